/**
 * A service that ignores the order it is asked for cannot make recent traffic look old: the
 * lifetime comes from the hourly sums, the window from the daily rows from its first day, each
 * placed by its date; a longer window pages by value and dedupes. The emulator's fault hook
 * makes it answer every stats read in the opposite order (oldest first when asked latest first).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ServiceClient } from '../../src/service/client.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';
import { failure } from '../helpers/api-failure.js';

const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** Every day of the last `days` days, oldest `from` days ago: `count` pageviews each. */
function everyDay(from: number, to: number, count: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let n = from; n >= to; n--) out[ago(n)] = count;
  return out;
}

/** Stats answers in the opposite order of the one asked, whatever it is; the rest as the emulator answers. */
function reverseStatsOrder(emu: Emulator): void {
  emu.faults.before = async (req) => {
    if (!req.path.startsWith('/api/v1/stats/') || req.query.has('as_asked')) return undefined;
    const query = new URLSearchParams(req.query);
    query.set('sort', query.get('sort') === 'asc' ? 'desc' : 'asc');
    query.set('as_asked', '1');
    const res = await fetch(`${emu.url}${req.path}?${query}`, { headers: { authorization: `Bearer ${req.key}`, accept: 'application/json' } });
    return { status: res.status, body: await res.json() };
  };
}

/** The stats requests the client made (the hook's own requests carry as_asked). */
const statsReads = (emu: Emulator) => emu.stats.log.filter((r) => r.path.startsWith('/api/v1/stats/') && !r.path.includes('as_asked'));
/** The stats name a request asked for. */
const name = (path: string) => new URLSearchParams(path.split('?')[1]).get('name');

describe('a service that answers oldest first', () => {
  let s: Scenario;
  afterEach(async () => {
    await s?.close();
  });

  it("last month's traffic still counts as recent, and apply refuses to delete it without retire:", async () => {
    s = await scenario();
    // 400 days of traffic: page 1 of the days, oldest first, holds nothing of the last 30.
    s.emu.seed(KEY, [{ domain: 'busy.example.com', traffic: everyDay(400, 1, 10) }, { domain: 'keep.example.com' }]);
    reverseStatsOrder(s.emu);
    await s.write('version: 1\nprune: true\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: keep.example.com\n');
    s.emu.resetStats();
    const plan = await s.cli(['plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('- delete busy.example.com (id 1)\n    ! destroys 4,000 pageviews recorded, 290 in the last 30 days');
    // The lifetime from the hours, then the window's days: two requests, whatever the order.
    expect(statsReads(s.emu).map((r) => name(r.path))).toEqual(['pageviews_hour', 'pageviews']);
    const apply = await s.cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('busy.example.com: destroys 4,000 pageviews recorded, 290 in the last 30 days');
    expect(apply.stderr).toContain('retire: ["busy.example.com"]');
    expect(writes(s.emu)).toEqual([]);
  });

  it('a service whose clock is days ahead of this one: its latest hits, dated after this clock\'s today, are recent, and archived', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'ahead.example.com', traffic: { [ago(400)]: 100, [ago(-3)]: 40 } }, { domain: 'keep.example.com' }]);
    await s.write('version: 1\nprune: true\narchive: archives\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: keep.example.com\n');
    const plan = await s.cli(['plan']);
    expect(plan.stdout).toContain('- delete ahead.example.com (id 1)\n    ! destroys 140 pageviews recorded, 40 in the last 30 days\n    last 30 days ▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁█ (most 40 a day)');
    const apply = await s.cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('retire: ["ahead.example.com"]');
    expect(writes(s.emu)).toEqual([]);
    const archived = await s.cli(['archive', 'ahead.example.com', '-o', 'out']);
    expect(archived.stdout).toContain(`✓ ahead.example.com (id 1): 140 pageviews, 2 days from ${ago(400)}`);
  });

  it('a website with no traffic at all costs two requests (its hours, then its events); rows outside the window are not counted', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'empty.example.com' }, { domain: 'old.example.com', traffic: { [ago(200)]: 50 } }]);
    // A service that ignores `from`: it answers every day of the history.
    s.emu.faults.before = async (req) => {
      if (!req.path.startsWith('/api/v1/stats/') || req.query.get('name') !== 'pageviews' || req.query.has('as_asked')) return undefined;
      const query = new URLSearchParams(req.query);
      query.set('from', '1970-01-01');
      query.set('as_asked', '1');
      const res = await fetch(`${s.emu.url}${req.path}?${query}`, { headers: { authorization: `Bearer ${req.key}`, accept: 'application/json' } });
      return { status: res.status, body: await res.json() };
    };
    await s.write('version: 1\nprune: true\nsafety: { max_delete_percent: 100 }\nwebsites: []\n');
    s.emu.resetStats();
    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    const traffic = (domain: string) => json.changes.find((c: { domain: string }) => c.domain === domain).traffic;
    expect(traffic('empty.example.com')).toMatchObject({ pageviews: 0, pageviews_recent: 0, events: 0 });
    expect(traffic('old.example.com')).toMatchObject({ pageviews: 50, pageviews_30d: 0, pageviews_recent: 0 });
    expect(traffic('old.example.com').daily_30d).toEqual(new Array(30).fill(0));
    // No pageviews: its events say whether any history is left (an event hit records no pageview).
    expect(statsReads(s.emu).filter((r) => r.path.startsWith('/api/v1/stats/1?')).map((r) => name(r.path))).toEqual(['pageviews_hour', 'event']);
  });
});

describe('reads of a whole window or a last day, in any order', () => {
  let emu: Emulator;
  let client: ServiceClient;
  beforeEach(async () => {
    emu = await startEmulator({ keys: [KEY] });
    client = new ServiceClient({ baseUrl: emu.url, apiKey: KEY, baseDelayMs: 5, maxDelayMs: 20 });
  });
  afterEach(async () => {
    await client.close();
    await emu.close();
  });

  it('a window of a year pages by value, and every day of it counts once', async () => {
    const [site] = emu.seed(KEY, [{ domain: 'long.example.com', traffic: everyDay(500, 0, 2) }]);
    reverseStatsOrder(emu);
    const traffic = await client.readTraffic(site!.id, 'long.example.com', 365);
    expect(traffic).toMatchObject({ pageviews: 1002, pageviews_30d: 60, pageviews_recent: 730, recent_days: 365 });
    expect(traffic.daily_30d).toEqual(new Array(30).fill(2));
    // 1 for the hours, 4 pages of days (366 days of the window, and tomorrow).
    expect(client.stats.byKind.statistics).toBe(5);
  });

  it('ci drift --quiet-days: the last day of a website, busy or silent, whatever the order', async () => {
    const [busy, silent, never] = emu.seed(KEY, [
      { domain: 'busy.example.com', traffic: everyDay(300, 3, 1) },
      { domain: 'silent.example.com', traffic: everyDay(300, 50, 1) },
      { domain: 'never.example.com' },
    ]);
    reverseStatsOrder(emu);
    const since = ago(6);
    expect((await client.quietDays(busy!.id, 'busy.example.com', since)).lastDay).toBe(ago(3));
    expect((await client.quietDays(silent!.id, 'silent.example.com', since)).lastDay).toBe(ago(50));
    expect((await client.quietDays(never!.id, 'never.example.com', since)).lastDay).toBeNull();
  });

  it('ci drift --quiet-days: a service whose latest day creeps one day a page is cut within the pages the days since 1970 take, not 10,000', async () => {
    const [site] = emu.seed(KEY, [{ domain: 'creep.example.com' }]);
    // A full page of one day, the first asked: each round moves one day on.
    emu.faults.before = (req) =>
      req.path.startsWith('/api/v1/stats/')
        ? { status: 200, body: { current_page: 1, data: Array.from({ length: 100 }, () => ({ value: req.query.get('from'), count: 1 })), last_page: 9, per_page: '100', total: 900 } }
        : undefined;
    const error = await failure(client.quietDays(site!.id, 'creep.example.com', ago(6)));
    expect(error.message).toMatch(/^read the statistics of creep\.example\.com: the service's answers never settle on a latest day \(2\d\d pages of days\)$/);
    expect(client.stats.byKind.statistics).toBeLessThan(220);
  });

  it('a paginator that disagrees with itself is the service\'s error, in words, and a paging that never ends is cut', async () => {
    const [site] = emu.seed(KEY, [{ domain: 'x.example.com', traffic: everyDay(10, 0, 1) }]);
    emu.faults.before = (req) =>
      req.path.startsWith('/api/v1/stats/')
        ? { status: 200, body: { current_page: Number(req.query.get('page')), data: Array.from({ length: 100 }, (_, i) => ({ value: `v${req.query.get('page')}-${i}`, count: 1 })), last_page: 50_000_000, per_page: '100', total: 2 } }
        : undefined;
    const error = await failure(client.statsRows(site!.id, 'x.example.com', 'page', '1970-01-01', ago(-1)));
    expect(error.message).toBe("read the page statistics of x.example.com: the service's paginator disagrees with itself: last_page 50000000, but 2 rows at 100 a page");
    // Each page says there is one more: consistent with itself, and never ending.
    emu.faults.before = (req) => {
      if (!req.path.startsWith('/api/v1/stats/')) return undefined;
      const page = Number(req.query.get('page'));
      return { status: 200, body: { current_page: page, data: Array.from({ length: 100 }, (_, i) => ({ value: `v${page}-${i}`, count: '3' })), last_page: page + 1, per_page: '100', total: (page + 1) * 100 } };
    };
    emu.resetStats();
    const endless = await failure(client.statsRows(site!.id, 'x.example.com', 'page', '1970-01-01', ago(-1)));
    expect(endless.message).toBe("read the page statistics of x.example.com: still more pages after 14 (the first said 2): the service's paging does not end");
    expect(emu.stats.requests).toBe(14);
  });

  it('a website receiving hits while a name is read: a new value before the offset repeats a row, which counts once; none is missed', async () => {
    const [site] = emu.seed(KEY, [{ domain: 'live.example.com' }]);
    const values = Array.from({ length: 200 }, (_, i) => `/v${String(i).padStart(3, '0')}`);
    emu.faults.before = (req) => {
      if (!req.path.startsWith('/api/v1/stats/')) return undefined;
      const page = Number(req.query.get('page'));
      // A first hit on a new page, sorted before everything read so far, once page 1 is read.
      if (page === 2 && !values.includes('/a-new')) values.unshift('/a-new');
      const data = values.slice((page - 1) * 100, page * 100).map((value) => ({ value, count: '1' }));
      return { status: 200, body: { current_page: page, data, last_page: Math.ceil(values.length / 100), per_page: '100', total: values.length } };
    };
    const rows = await client.statsRows(site!.id, 'live.example.com', 'page', '1970-01-01', ago(-1));
    const read = rows.map((r) => r.value);
    expect(new Set(read).size).toBe(read.length);
    for (let i = 0; i < 200; i++) expect(read).toContain(`/v${String(i).padStart(3, '0')}`);
    // Page 2 repeated /v099; page 3 held /v199.
    expect(client.stats.byKind.statistics).toBe(3);
  });

  it('a service that answers the same page whatever "page" says is caught, not read as a whole name', async () => {
    const [site] = emu.seed(KEY, [{ domain: 'x.example.com' }]);
    emu.faults.before = (req) =>
      req.path.startsWith('/api/v1/stats/')
        ? { status: 200, body: { data: Array.from({ length: 100 }, (_, i) => ({ value: `/p${i}`, count: 1 })), last_page: 3, per_page: '100', total: 300 } }
        : undefined;
    const error = await failure(client.statsRows(site!.id, 'x.example.com', 'page', '1970-01-01', ago(-1)));
    expect(error.message).toContain('page 2 repeats the rows of the pages before it');
  });

  it('a statistic whose page before the last holds nothing is the service\'s error at that page (as a listing of websites says it)', async () => {
    const [site] = emu.seed(KEY, [{ domain: 'x.example.com' }]);
    emu.faults.before = (req) => {
      if (!req.path.startsWith('/api/v1/stats/')) return undefined;
      const n = Number(req.query.get('page'));
      const data = n === 1 ? Array.from({ length: 100 }, (_, i) => ({ value: `/p${String(i).padStart(3, '0')}`, count: 1 })) : [];
      return { status: 200, body: { current_page: n, data, last_page: 3, per_page: '100', total: 300 } };
    };
    const error = await failure(client.statsRows(site!.id, 'x.example.com', 'page', '1970-01-01', ago(-1)));
    expect(error.message).toBe('read the page statistics of x.example.com: page 2 says last_page 3, but holds no value');
    expect(client.stats.byKind.statistics).toBe(2);
  });

  it('ci drift --quiet-days without a month to sum (an unlimited plan): the last day, from one request, and nothing more is read', async () => {
    const [busy] = emu.seed(KEY, [{ domain: 'busy.example.com', traffic: everyDay(300, 3, 1) }]);
    expect(await client.quietDays(busy!.id, 'busy.example.com', ago(6))).toEqual({ lastDay: ago(3), month: 0, extra: 0 });
    expect(client.stats.byKind.statistics).toBe(1);
  });

  it('ci drift --quiet-days with a month to sum: the same last day, and the month from the same first page', async () => {
    const [busy] = emu.seed(KEY, [{ domain: 'busy.example.com', traffic: everyDay(300, 3, 1) }]);
    expect(await client.quietDays(busy!.id, 'busy.example.com', ago(6), ago(10))).toEqual({ lastDay: ago(3), month: 8, extra: 0 });
    expect(client.stats.byKind.statistics).toBe(1);
  });
});

describe('answers the product never gives make the traffic unknown, which counts as recent: never quiet', () => {
  let s: Scenario;
  afterEach(async () => {
    await s?.close();
  });

  /** busy.example.com had 50 pageviews two days ago; `answer` replaces the stats answers it returns one for. */
  async function applyWith(answer: (name: string, page: number) => unknown) {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'busy.example.com', traffic: { [ago(2)]: 50 } }, { domain: 'keep.example.com' }]);
    s.emu.faults.before = (req) => {
      if (!req.path.startsWith('/api/v1/stats/')) return undefined;
      const body = answer(req.query.get('name')!, Number(req.query.get('page')));
      return body === undefined ? undefined : { status: 200, body };
    };
    await s.write('version: 1\nprune: true\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: keep.example.com\n');
    s.emu.resetStats();
    const apply = await s.cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(writes(s.emu)).toEqual([]);
    expect(apply.stderr).toContain('retire: ["busy.example.com"]');
    return apply;
  }
  const page = (data: unknown[], more: Record<string, unknown> = {}) => ({ current_page: 1, data, last_page: 1, per_page: '100', total: data.length, ...more });

  it('a day written as no day (a date and a time) cannot be placed in the window', async () => {
    const r = await applyWith((name) => (name === 'pageviews' ? page([{ value: `${ago(2)} 00:00:00`, count: 50 }]) : undefined));
    expect(r.stdout).toContain(`! traffic unknown (the service sent a row whose value is not a day: "${ago(2)} 00:00:00"): counted as recent`);
  });

  it('a count that is no number of hits (a fraction, past exact integers) is not read as none', async () => {
    const r = await applyWith((name) => (name === 'pageviews_hour' ? page([{ value: '10', count: '0.4' }]) : undefined));
    expect(r.stdout).toContain('! traffic unknown (the service sent a count that is not a number of hits: "0.4"): counted as recent');
    const huge = await applyWith((name) => (name === 'pageviews_hour' ? page([{ value: '10', count: 1e300 }]) : undefined));
    expect(huge.stdout).toContain('the service sent a count that is not a number of hits: 1e+300');
  });

  it('more hours than a day has, or more days than the window, is the service\'s error, and the read stops there: endless pages of 100 KB values cost one request', async () => {
    const hours = await applyWith((name) => (name === 'pageviews_hour' ? page(Array.from({ length: 30 }, (_, h) => ({ value: String(h), count: 1 }))) : undefined));
    expect(hours.stdout).toContain('traffic unknown (the service sent 30 values, more than the hours of a day (24)): counted as recent');
    const big = 'x'.repeat(100_000);
    const endless = await applyWith((name, n) =>
      name === 'pageviews' ? page(Array.from({ length: 100 }, (_, i) => ({ value: `${n}-${i}-${big}`, count: 1 })), { current_page: n, last_page: 5_000, total: 500_000 }) : undefined,
    );
    expect(endless.stdout).toContain(`traffic unknown (the service sent 100 values, more than the days from ${ago(29)} to a month past today (61)): counted as recent`);
    expect(statsReads(s.emu).map((r) => name(r.path))).toEqual(['pageviews_hour', 'pageviews']);
  });
});
