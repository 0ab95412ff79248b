/**
 * `GET /api/v1/stats/{id}` and the traffic behind it (service-behaviour.md, "Stats, and what a
 * delete destroys"): the flat paginator per profile, days and hours, validation before the
 * 404, the middleware order, traffic rules, `spreadTraffic`, deletes and the data file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SitesyncError, UsageError } from '../../src/messages/errors.js';
import { parseTrafficRule, spreadTraffic, type DayTraffic, type Emulator } from '../../src/emulator/index.js';
import { hashKey } from '../../src/emulator/store.js';
import { call, create, emulators } from './helpers.js';

const emus = emulators();
afterEach(() => emus.closeAll());
const dir = mkdtempSync(join(tmpdir(), 'sitesync-emulator-stats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const freshFile = () => join(dir, `state-${++fileCount}.json`);

/** Wide enough for any traffic a rule or `spreadTraffic` gives today. */
const ALWAYS = { from: '2000-01-01', to: '2099-12-31' };

function stats(emu: Emulator, id: number | string, params: Record<string, string>, key?: string) {
  const query = new URLSearchParams(params).toString();
  return call(emu, 'GET', `/api/v1/stats/${id}${query ? `?${query}` : ''}`, key === undefined ? {} : { key });
}

/** Every row of a stats query (100 a page), counts as numbers. */
async function allRows(emu: Emulator, id: number, params: Record<string, string>, key?: string) {
  const rows: { value: string; count: number }[] = [];
  for (let page = 1; ; page++) {
    const r = await stats(emu, id, { ...params, per_page: '100', page: String(page) }, key);
    expect(r.status).toBe(200);
    rows.push(...r.json.data.map((d: { value: string; count: string | number }) => ({ value: d.value, count: Number(d.count) })));
    if (r.json.next_page_url === null) return rows;
  }
}

const total = (rows: { count: number }[]) => rows.reduce((n, r) => n + r.count, 0);
const sumOf = (traffic: Record<string, DayTraffic>, field: keyof DayTraffic) =>
  Object.values(traffic).reduce((n, t) => n + t[field], 0);

/** `n` consecutive days from `start`, `YYYY-MM-DD`. */
function daysFrom(start: string, n: number): string[] {
  const t = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => new Date(t + i * 86_400_000).toISOString().slice(0, 10));
}

const TWO_DAYS = { '2025-01-02': 900, '2026-11-20': { pageviews: 120, visitors: 50 } };

describe('the answer: a flat paginator', () => {
  it('deployed: count and per_page as strings, a status, no meta/links envelope', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'shape.com', traffic: TWO_DAYS }]);
    const r = await stats(emu, w!.id, { name: 'pageviews', from: '2025-01-01', to: '2026-12-31', per_page: '100' });
    expect(r.status).toBe(200);
    const path = `${emu.url}/api/v1/stats/${w!.id}`;
    const page1 = `${path}?name=pageviews&from=2025-01-01&to=2026-12-31&per_page=100&page=1`;
    expect(r.json).toEqual({
      current_page: 1,
      data: [
        { value: '2025-01-02', count: '900' },
        { value: '2026-11-20', count: '120' },
      ],
      first_page_url: page1,
      from: 1,
      last_page: 1,
      last_page_url: page1,
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        { url: page1, label: '1', active: true },
        { url: null, label: 'Next &raquo;', active: false },
      ],
      next_page_url: null,
      path,
      per_page: '100',
      prev_page_url: null,
      to: 2,
      total: 2,
      status: 200,
    });
    // Key order as the product's paginator gives it.
    expect(Object.keys(r.json)).toEqual([
      'current_page', 'data', 'first_page_url', 'from', 'last_page', 'last_page_url', 'links',
      'next_page_url', 'path', 'per_page', 'prev_page_url', 'to', 'total', 'status',
    ]);
  });

  it('full: count an integer, per_page still a string, no status', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'shape.com', traffic: TWO_DAYS }]);
    const r = await stats(emu, w!.id, { name: 'visitors', from: '2025-01-01', to: '2026-12-31' });
    expect(r.status).toBe(200);
    // 900 pageviews and no visitors given: a third of them.
    expect(r.json.data).toEqual([
      { value: '2025-01-02', count: 300 },
      { value: '2026-11-20', count: 50 },
    ]);
    expect(r.json.per_page).toBe('10');
    expect(r.json).not.toHaveProperty('status');
    expect(r.json).not.toHaveProperty('meta');
  });

  it('no rows: data [], from and to null, total 0, for every name of a range without traffic', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'quiet.com', traffic: TWO_DAYS }]);
    for (const params of [
      { name: 'pageviews', from: '2030-01-01', to: '2030-12-31' },
      { name: 'browser', from: '2030-01-01', to: '2030-12-31' },
      { name: 'country', from: '2024-01-01', to: '2024-12-31' },
      { name: 'referrer', from: '2030-01-01', to: '2030-12-31' },
    ]) {
      const r = await stats(emu, w!.id, params);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ data: [], from: null, to: null, total: 0, current_page: 1, last_page: 1, status: 200 });
    }
    // A website without any traffic answers the same.
    const [empty] = emu.seed(emu.keys[0]!, [{ domain: 'new.com' }]);
    expect((await stats(emu, empty!.id, { name: 'pageviews', ...ALWAYS })).json).toMatchObject({ data: [], total: 0 });
    expect((await stats(emu, empty!.id, { name: 'page', ...ALWAYS })).json).toMatchObject({ data: [], total: 0 });
  });
});

describe('the audience: every other name, believable and consistent', () => {
  const VISITOR_NAMES = ['landing_page', 'browser', 'os', 'device', 'resolution', 'language', 'city', 'country', 'continent'];

  it('each name shares the range\'s pageviews or visitors; countries and continents add up their cities; the same range answers the same', async () => {
    const emu = await emus.start();
    const traffic = spreadTraffic(40_000, 200, new Date('2026-06-30T12:00:00Z'));
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'shop.example', traffic }]);
    const pages = await allRows(emu, w!.id, { name: 'page', ...ALWAYS, sort_by: 'value', sort: 'asc' });
    // About the square root of the lifetime's pageviews: two pages of rows.
    expect(pages).toHaveLength(200);
    expect(total(pages)).toBe(40_000);
    expect(pages.map((r) => r.value)).toContain('/search?q=caf%C3%A9');
    for (const name of VISITOR_NAMES) expect(total(await allRows(emu, w!.id, { name, ...ALWAYS })), name).toBe(sumOf(traffic, 'visitors'));
    const cities = await allRows(emu, w!.id, { name: 'city', ...ALWAYS });
    const countries = await allRows(emu, w!.id, { name: 'country', ...ALWAYS });
    const continents = await allRows(emu, w!.id, { name: 'continent', ...ALWAYS });
    expect(countries.find((r) => r.value === 'DE:Germany')!.count).toBe(cities.filter((r) => r.value.startsWith('DE:')).reduce((n, r) => n + r.count, 0));
    expect(continents.map((r) => r.value).sort()).toEqual(['AF:Africa', 'AS:Asia', 'EU:Europe', 'NA:North America', 'OC:Oceania', 'SA:South America']);
    for (const name of ['referrer', 'campaign', 'event']) expect((await allRows(emu, w!.id, { name, ...ALWAYS })).length, name).toBeGreaterThan(0);
    // A part of the range: a part of the counts, the same values.
    const june = await allRows(emu, w!.id, { name: 'browser', from: '2026-06-01', to: '2026-06-30' });
    expect(total(june)).toBe(Object.entries(traffic).filter(([d]) => d >= '2026-06-01').reduce((n, [, t]) => n + t.visitors, 0));
    expect(await allRows(emu, w!.id, { name: 'page', ...ALWAYS, sort_by: 'value', sort: 'asc' })).toEqual(pages);
  });
});

describe('days and hours', () => {
  const week = Object.fromEntries(daysFrom('2025-03-01', 7).map((d, i) => [d, { pageviews: 100 * (i + 1), visitors: 10 * (i + 1) }]));

  it('the range is inclusive at both ends; to before from is no rows', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'days.com', traffic: week }]);
    const range = await stats(emu, w!.id, { name: 'pageviews', from: '2025-03-02', to: '2025-03-04', sort_by: 'value', sort: 'asc' });
    expect(range.json.data).toEqual([
      { value: '2025-03-02', count: 200 },
      { value: '2025-03-03', count: 300 },
      { value: '2025-03-04', count: 400 },
    ]);
    const one = await stats(emu, w!.id, { name: 'visitors', from: '2025-03-07', to: '2025-03-07' });
    expect(one.json.data).toEqual([{ value: '2025-03-07', count: 70 }]);
    const backwards = await stats(emu, w!.id, { name: 'pageviews', from: '2025-03-05', to: '2025-03-01' });
    expect(backwards.json).toMatchObject({ data: [], total: 0 });
  });

  it('hours are "00" to "23", summed over the range, and add up to the days', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'hours.com', traffic: week }]);
    const range = { from: '2025-03-02', to: '2025-03-06' };
    const pageviews = await allRows(emu, w!.id, { name: 'pageviews_hour', ...range });
    const visitors = await allRows(emu, w!.id, { name: 'visitors_hour', ...range });
    expect(pageviews.length).toBeLessThanOrEqual(24);
    expect(pageviews.length).toBeGreaterThan(12);
    for (const row of [...pageviews, ...visitors]) expect(row.value).toMatch(/^(?:[01]\d|2[0-3])$/);
    expect(new Set(pageviews.map((r) => r.value)).size).toBe(pageviews.length);
    // 200 + 300 + 400 + 500 + 600 pageviews, 20 + … + 60 visitors.
    expect(total(pageviews)).toBe(2000);
    expect(total(visitors)).toBe(200);
    // No hour has more visitors than pageviews.
    for (const v of visitors) expect(v.count).toBeLessThanOrEqual(pageviews.find((p) => p.value === v.value)!.count);
    // Each day on its own adds up too, and the range is the sum of its days, hour by hour.
    const perDay = await Promise.all(
      daysFrom('2025-03-02', 5).map((d) => allRows(emu, w!.id, { name: 'pageviews_hour', from: d, to: d })),
    );
    perDay.forEach((rows, i) => expect(total(rows)).toBe(100 * (i + 2)));
    for (const row of pageviews) {
      expect(total(perDay.flat().filter((r) => r.value === row.value))).toBe(row.count);
    }
  });

  it('a single pageview lands in one hour, the busy part of the day', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'one.com', traffic: { '2025-05-05': { pageviews: 1, visitors: 1 } } }]);
    const r = await stats(emu, w!.id, { name: 'pageviews_hour', ...ALWAYS });
    expect(r.json.data).toHaveLength(1);
    expect(Number(r.json.data[0].value)).toBeGreaterThanOrEqual(9);
    expect(Number(r.json.data[0].value)).toBeLessThanOrEqual(17);
    expect((await stats(emu, w!.id, { name: 'visitors_hour', ...ALWAYS })).json.data).toEqual(r.json.data);
  });

  it('sorts by count (desc, ties by value) or by value, and searches the values', async () => {
    const emu = await emus.start({ profile: 'full' });
    const traffic = { '2025-01-01': 5, '2025-01-02': 9, '2025-01-03': 5, '2025-02-01': 7 };
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'sorted.com', traffic }]);
    const values = async (params: Record<string, string>) =>
      (await stats(emu, w!.id, { name: 'pageviews', ...ALWAYS, ...params })).json.data.map((d: { value: string }) => d.value);
    expect(await values({})).toEqual(['2025-01-02', '2025-02-01', '2025-01-01', '2025-01-03']);
    expect(await values({ sort: 'asc' })).toEqual(['2025-01-01', '2025-01-03', '2025-02-01', '2025-01-02']);
    expect(await values({ sort_by: 'value' })).toEqual(['2025-02-01', '2025-01-03', '2025-01-02', '2025-01-01']);
    expect(await values({ sort_by: 'value', sort: 'asc' })).toEqual(['2025-01-01', '2025-01-02', '2025-01-03', '2025-02-01']);
    // Unknown sort values fall back to the defaults.
    expect(await values({ sort_by: 'domain', sort: 'sideways' })).toEqual(await values({}));
    expect(await values({ search: '2025-01' })).toEqual(['2025-01-02', '2025-01-01', '2025-01-03']);
  });
});

describe('validation, then the website', () => {
  it('422 for every missing parameter at once, in the product’s shape', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'v.com' }]);
    const r = await stats(emu, w!.id, {});
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      message: {
        name: ['The name field is required.'],
        from: ['The from field is required.'],
        to: ['The to field is required.'],
      },
      status: 422,
    });
    // Empty is missing (Laravel turns it into null).
    expect((await stats(emu, w!.id, { name: '', from: ' ', to: '2025-01-01' })).json.message).toEqual({
      name: ['The name field is required.'],
      from: ['The from field is required.'],
    });
  });

  it('422 for a bad name or day, with Laravel 10 wording', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'v.com' }]);
    const r = await stats(emu, w!.id, { name: 'pageview', from: '2025-1-2', to: '2025-01-31' });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      message: { name: ['The selected name is invalid.'], from: ['The from field must match the format Y-m-d.'] },
      status: 422,
    });
    // Not a real day, a time, another format; names are case-sensitive.
    for (const bad of ['2025-02-30', '2025-13-01', '2025-01-01 00:00', '01/02/2025', '20250102']) {
      expect((await stats(emu, w!.id, { name: 'pageviews', from: '2025-01-01', to: bad })).json.message).toEqual({
        to: ['The to field must match the format Y-m-d.'],
      });
    }
    expect((await stats(emu, w!.id, { name: 'Pageviews', ...ALWAYS })).status).toBe(422);
    // A leap day is a day.
    expect((await stats(emu, w!.id, { name: 'pageviews', from: '2024-02-29', to: '2024-02-29' })).status).toBe(200);
  });

  it('full: Laravel’s shape with its summary, in the 9.x wording', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'v.com' }]);
    const r = await stats(emu, w!.id, { name: 'hits', from: 'yesterday', to: '2025-01-31' });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      message: 'The selected name is invalid. (and 1 more error)',
      errors: { name: ['The selected name is invalid.'], from: ['The from does not match the format Y-m-d.'] },
    });
  });

  it('404 for an unknown id and for another account’s, alike', async () => {
    const emu = await emus.start({ keys: ['mine', 'theirs'] });
    emu.seed('mine', [{ domain: 'mine.com', traffic: TWO_DAYS }]);
    const [theirs] = emu.seed('theirs', [{ domain: 'theirs.com', traffic: TWO_DAYS }]);
    const notFound = { message: 'Resource not found.', status: 404 };
    const foreign = await stats(emu, theirs!.id, { name: 'pageviews', ...ALWAYS }, 'mine');
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual(notFound);
    const unknown = await stats(emu, 999, { name: 'pageviews', ...ALWAYS }, 'mine');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual(notFound);
    // Its owner sees it.
    expect((await stats(emu, theirs!.id, { name: 'pageviews', ...ALWAYS }, 'theirs')).json.total).toBe(2);
  });

  it('validates before it looks for the website: a bad parameter on a foreign id is a 422', async () => {
    const emu = await emus.start({ keys: ['mine', 'theirs'] });
    const [theirs] = emu.seed('theirs', [{ domain: 'theirs.com' }]);
    for (const id of [theirs!.id, 999]) {
      const r = await stats(emu, id, { name: 'nope', ...ALWAYS }, 'mine');
      expect(r.status).toBe(422);
      expect(r.json).toEqual({ message: { name: ['The selected name is invalid.'] }, status: 422 });
    }
  });

  it('runs behind the same authentication and plan check; other methods are 405', async () => {
    const emu = await emus.start({ keys: ['ok', { key: 'no-api', apiAccess: false }] });
    const [w] = emu.seed('ok', [{ domain: 'guarded.com' }]);
    const path = `/api/v1/stats/${w!.id}?name=pageviews&from=2025-01-01&to=2025-01-31`;
    expect((await call(emu, 'GET', path, { key: null })).json).toEqual({ message: 'Unauthenticated.' });
    expect((await call(emu, 'GET', path, { key: null, accept: null })).status).toBe(302);
    // The plan check comes before validation.
    const denied = await call(emu, 'GET', `/api/v1/stats/${w!.id}`, { key: 'no-api' });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual({ message: "You don't have access to this feature.", status: 403 });
    const post = await call(emu, 'POST', path, { key: 'ok' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // Not an id: the deployed fallback route's 404, after authentication.
    expect((await call(emu, 'GET', '/api/v1/stats/abc', { key: 'ok' })).json).toEqual({ message: 'Resource not found.', status: 404 });
    expect((await call(emu, 'GET', '/api/v1/stats/abc', { key: null })).status).toBe(401);
  });
});

describe('pagination', () => {
  const fifteen = Object.fromEntries(daysFrom('2025-06-01', 15).map((d, i) => [d, i + 1]));

  it('per_page outside 10/25/50/100 is "10"; pages, links and a page past the end', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'pages.com', traffic: fifteen }]);
    const params = { name: 'pageviews', from: '2025-06-01', to: '2025-06-30', sort_by: 'value', sort: 'asc' };
    for (const per_page of ['7', '1000', 'ten', '']) {
      const r = await stats(emu, w!.id, { ...params, per_page });
      expect(r.json).toMatchObject({ per_page: '10', total: 15, last_page: 2, from: 1, to: 10 });
      expect(r.json.data).toHaveLength(10);
    }
    expect((await stats(emu, w!.id, { ...params, per_page: '25' })).json).toMatchObject({ per_page: '25', last_page: 1, to: 15 });

    const second = await stats(emu, w!.id, { ...params, page: '2' });
    expect(second.json).toMatchObject({ current_page: 2, from: 11, to: 15, next_page_url: null, total: 15 });
    expect(second.json.data.map((d: { value: string }) => d.value)).toEqual(daysFrom('2025-06-11', 5));
    expect(second.json.prev_page_url).toBe(
      `${emu.url}/api/v1/stats/${w!.id}?name=pageviews&from=2025-06-01&to=2025-06-30&sort_by=value&sort=asc&page=1`,
    );
    const first = await stats(emu, w!.id, params);
    expect(first.json.next_page_url).toBe(`${first.json.path}?name=pageviews&from=2025-06-01&to=2025-06-30&sort_by=value&sort=asc&page=2`);

    const past = await stats(emu, w!.id, { ...params, page: '3' });
    expect(past.status).toBe(200);
    expect(past.json).toMatchObject({ current_page: 3, data: [], from: null, to: null, total: 15 });
    // A page that is not a page is page 1.
    expect((await stats(emu, w!.id, { ...params, page: 'x' })).json.current_page).toBe(1);
  });
});

describe('throttle', () => {
  it('counts stats requests like any other, the refused ones included before authentication (deployed)', async () => {
    const emu = await emus.start({ rateLimit: { limit: 3, windowMs: 60_000 } });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'busy.com', traffic: TWO_DAYS }]);
    const remaining: (string | null)[] = [];
    const ok = await stats(emu, w!.id, { name: 'pageviews', ...ALWAYS });
    remaining.push(ok.headers.get('x-ratelimit-remaining'));
    const invalid = await stats(emu, w!.id, { name: 'nope', ...ALWAYS });
    expect(invalid.status).toBe(422);
    remaining.push(invalid.headers.get('x-ratelimit-remaining'));
    const wrongKey = await stats(emu, w!.id, { name: 'pageviews', ...ALWAYS }, 'wrong-key');
    expect(wrongKey.status).toBe(401);
    remaining.push(wrongKey.headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await stats(emu, w!.id, { name: 'pageviews', ...ALWAYS });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('a delete destroys the history', () => {
  it('the traffic goes with the website; a new website of the same domain starts with none', async () => {
    const emu = await emus.start();
    const key = emu.keys[0]!;
    const created = await create(emu, { domain: 'renamed.com' });
    const oldId: number = created.json.data.id;
    emu.addTraffic(key, 'renamed.com', TWO_DAYS);
    expect((await stats(emu, oldId, { name: 'pageviews', ...ALWAYS })).json.total).toBe(2);

    expect((await call(emu, 'DELETE', `/api/v1/websites/${oldId}`)).status).toBe(200);
    expect(emu.traffic(key, oldId)).toBeUndefined();
    expect((await stats(emu, oldId, { name: 'pageviews', ...ALWAYS })).status).toBe(404);

    const again = await create(emu, { domain: 'renamed.com' });
    expect(again.status).toBe(201);
    const newId: number = again.json.data.id;
    expect(newId).not.toBe(oldId);
    expect(emu.traffic(key, 'renamed.com')).toEqual({});
    expect((await stats(emu, newId, { name: 'pageviews', ...ALWAYS })).json).toMatchObject({ data: [], total: 0 });
    expect((await stats(emu, newId, { name: 'pageviews_hour', ...ALWAYS })).json.total).toBe(0);
  });

  it('unless a rule matches: then the new website gets the rule’s traffic, not the old history', async () => {
    const emu = await emus.start({ traffic: [{ pattern: 'renamed.com', pageviews: 300, days: 10 }] });
    const key = emu.keys[0]!;
    const first = await create(emu, { domain: 'renamed.com' });
    emu.addTraffic(key, first.json.data.id, { '2020-01-01': 5000 });
    expect(sumOf(emu.traffic(key, 'renamed.com')!, 'pageviews')).toBe(5300);
    await call(emu, 'DELETE', `/api/v1/websites/${first.json.data.id}`);
    const again = await create(emu, { domain: 'renamed.com' });
    const traffic = emu.traffic(key, again.json.data.id)!;
    expect(sumOf(traffic, 'pageviews')).toBe(300);
    expect(traffic).not.toHaveProperty('2020-01-01');
  });
});

describe('traffic rules', () => {
  const rules = [
    { pattern: 'new.shop.example', pageviews: 0, days: 30 },
    { pattern: '*.shop.example', pageviews: 500, days: 30 },
    { pattern: 'old.example.com', pageviews: 12340, days: 400 },
  ];

  it('give matching websites their traffic when a store creates them; the first match wins', async () => {
    const emu = await emus.start({ traffic: rules });
    const key = emu.keys[0]!;
    for (const domain of ['a.shop.example', 'old.example.com', 'new.shop.example', 'shop.example', 'x.y.shop.example', 'other.com']) {
      expect((await create(emu, { domain: `https://www.${domain}` })).status).toBe(201);
    }
    const pageviews = (domain: string) => sumOf(emu.traffic(key, domain)!, 'pageviews');
    expect(pageviews('a.shop.example')).toBe(500);
    expect(pageviews('old.example.com')).toBe(12340);
    // `*` is one label: not none, not two. A rule of 0 pageviews shadows the ones after it.
    for (const domain of ['new.shop.example', 'shop.example', 'x.y.shop.example', 'other.com']) expect(pageviews(domain)).toBe(0);

    const a = emu.websites(key).find((w) => w.domain === 'a.shop.example')!;
    const days = await allRows(emu, a.id, { name: 'pageviews', ...ALWAYS });
    expect(total(days)).toBe(500);
    expect(days.length).toBeLessThanOrEqual(30);
    // The last 30 days up to today (a day of slack, should the test run across midnight UTC).
    const today = new Date().toISOString().slice(0, 10);
    const earliest = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    for (const d of days) expect(d.value >= earliest && d.value <= today, d.value).toBe(true);
    const visitors = await allRows(emu, a.id, { name: 'visitors', ...ALWAYS });
    expect(total(visitors)).toBe(167);
    // The old site's 400 days: three pages of 100 and more.
    expect(total(await allRows(emu, emu.websites(key).find((w) => w.domain === 'old.example.com')!.id, { name: 'pageviews', ...ALWAYS }))).toBe(12340);
  });

  it('apply on seed too, unless the seed brings its own traffic (even none)', async () => {
    const emu = await emus.start({ traffic: rules });
    const key = emu.keys[0]!;
    emu.seed(key, [
      { domain: 'b.shop.example' },
      { domain: 'c.shop.example', traffic: { '2025-01-01': 3 } },
      { domain: 'd.shop.example', traffic: {} },
    ]);
    expect(sumOf(emu.traffic(key, 'b.shop.example')!, 'pageviews')).toBe(500);
    expect(emu.traffic(key, 'c.shop.example')).toEqual({ '2025-01-01': { pageviews: 3, visitors: 1 } });
    expect(emu.traffic(key, 'd.shop.example')).toEqual({});
  });

  it('are refused when unusable', async () => {
    await expect(emus.start({ traffic: [{ pattern: ' ', pageviews: 1, days: 1 }] })).rejects.toThrow(UsageError);
    await expect(emus.start({ traffic: [{ pattern: 'a.com', pageviews: -1, days: 1 }] })).rejects.toThrow(/pageviews/);
    await expect(emus.start({ traffic: [{ pattern: 'a.com', pageviews: 1, days: 0 }] })).rejects.toThrow(/days/);
    await expect(emus.start({ traffic: [{ pattern: 'a.com:8080', pageviews: 1, days: 1 }] })).rejects.toThrow(/not a domain pattern/);
  });

  it('parseTrafficRule reads PATTERN=PAGEVIEWS[/DAYS], DAYS 365 by default', () => {
    expect(parseTrafficRule('old.example.com=12340/400')).toEqual({ pattern: 'old.example.com', pageviews: 12340, days: 400 });
    expect(parseTrafficRule('*.shop.example=500/30')).toEqual({ pattern: '*.shop.example', pageviews: 500, days: 30 });
    expect(parseTrafficRule(' a.com = 10 ')).toEqual({ pattern: 'a.com', pageviews: 10, days: 365 });
    expect(parseTrafficRule('a.com=0')).toEqual({ pattern: 'a.com', pageviews: 0, days: 365 });
    for (const bad of ['', 'a.com', '=5', 'a.com=', 'a.com=-5', 'a.com=5/0', 'a.com=5/', 'a.com=1.5', 'a.com=5/99999', 'a.com/x=5', 'a.com=5/30/2']) {
      expect(parseTrafficRule(bad), bad).toBeUndefined();
    }
  });
});

describe('spreadTraffic and seeding', () => {
  const today = new Date('2025-03-10T18:30:00Z');

  it('spreads exactly N pageviews over the last D days, today included, a third of them visitors', () => {
    const traffic = spreadTraffic(12340, 400, today);
    expect(sumOf(traffic, 'pageviews')).toBe(12340);
    expect(sumOf(traffic, 'visitors')).toBe(4114);
    const days = Object.keys(traffic);
    expect(days).toHaveLength(400);
    expect(days.at(-1)).toBe('2025-03-10');
    expect(days[0]).toBe('2024-02-05');
    expect(days).toEqual([...days].sort());
    for (const t of Object.values(traffic)) {
      expect(Number.isInteger(t.pageviews) && Number.isInteger(t.visitors)).toBe(true);
      expect(t.visitors).toBeLessThanOrEqual(t.pageviews);
    }
    // Weekdays are busier than weekends.
    expect(traffic['2025-03-10']!.pageviews).toBeGreaterThan(traffic['2025-03-09']!.pageviews);
    // The same input gives the same numbers.
    expect(spreadTraffic(12340, 400, today)).toEqual(traffic);
  });

  it('spreads few pageviews out over the days instead of bunching them', () => {
    const traffic = spreadTraffic(10, 100, today);
    expect(Object.values(traffic).map((t) => t.pageviews)).toEqual(new Array(10).fill(1));
    const days = Object.keys(traffic).map((d) => Date.parse(d) / 86_400_000);
    const gaps = days.slice(1).map((d, i) => d - days[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(5);
    expect(spreadTraffic(0, 30, today)).toEqual({});
    expect(() => spreadTraffic(10, 0, today)).toThrow(RangeError);
    expect(() => spreadTraffic(-1, 10, today)).toThrow(RangeError);
  });

  it('seeded with spreadTraffic, the endpoint answers the same totals', async () => {
    const emu = await emus.start();
    const traffic = spreadTraffic(1000, 30);
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'spread.com', traffic }]);
    expect(emu.traffic(emu.keys[0]!, 'www.spread.com')).toEqual(traffic);
    const days = await allRows(emu, w!.id, { name: 'pageviews', ...ALWAYS });
    expect(days.length).toBe(30);
    expect(total(days)).toBe(1000);
    expect(total(await allRows(emu, w!.id, { name: 'pageviews_hour', ...ALWAYS }))).toBe(1000);
    expect(total(await allRows(emu, w!.id, { name: 'visitors', ...ALWAYS }))).toBe(334);
    expect(total(await allRows(emu, w!.id, { name: 'visitors_hour', ...ALWAYS }))).toBe(334);
  });

  it('refuses bad traffic without seeding anything', async () => {
    const emu = await emus.start();
    const key = emu.keys[0]!;
    expect(() => emu.seed(key, [{ domain: 'ok.com' }, { domain: 'bad.com', traffic: { '2025-02-30': 5 } }])).toThrow(/2025-02-30/);
    expect(() => emu.seed(key, [{ domain: 'bad.com', traffic: { '2025-02-01': -5 } }])).toThrow(/pageviews/);
    expect(() => emu.seed(key, [{ domain: 'bad.com', traffic: { '2025-02-01': { pageviews: 5, visitors: 1.5 } } }])).toThrow(/visitors/);
    expect(emu.websites(key)).toEqual([]);
  });

  it('addTraffic sums onto the days a website has; traffic() is a copy', async () => {
    const emu = await emus.start({ profile: 'full' });
    const key = emu.keys[0]!;
    const [w] = emu.seed(key, [{ domain: 'add.com', traffic: { '2025-01-01': { pageviews: 10, visitors: 4 } } }]);
    const after = emu.addTraffic(key, 'add.com', { '2025-01-01': { pageviews: 5, visitors: 1 }, '2025-01-02': 6 });
    expect(after).toEqual({ '2025-01-01': { pageviews: 15, visitors: 5 }, '2025-01-02': { pageviews: 6, visitors: 2 } });
    after['2025-01-01']!.pageviews = 1_000_000;
    expect(emu.traffic(key, w!.id)!['2025-01-01']!.pageviews).toBe(15);
    expect((await stats(emu, w!.id, { name: 'pageviews', ...ALWAYS })).json.data).toEqual([
      { value: '2025-01-01', count: 15 },
      { value: '2025-01-02', count: 6 },
    ]);
    expect(() => emu.addTraffic(key, 'missing.com', { '2025-01-01': 1 })).toThrow(/no website/);
    expect(emu.traffic(key, 'missing.com')).toBeUndefined();
  });
});

describe('the data file', () => {
  it('keeps traffic across a restart, one line per website, and drops it with the website', async () => {
    const file = freshFile();
    const first = await emus.start({ dataFile: file, keys: ['k'] });
    const [kept, dropped] = first.seed('k', [
      { domain: 'kept.com', traffic: spreadTraffic(5000, 60) },
      { domain: 'dropped.com', traffic: TWO_DAYS },
    ]);
    first.addTraffic('k', 'kept.com', { '2019-12-31': { pageviews: 7, visitors: 7 } });
    const before = first.traffic('k', 'kept.com');
    await first.close();

    const text = readFileSync(file, 'utf8');
    const saved = JSON.parse(text);
    expect(saved.traffic).toHaveLength(2);
    expect(saved.traffic[1]).toEqual({ website: dropped!.id, days: { '2025-01-02': [900, 300], '2026-11-20': [120, 50] } });
    expect(text.split('\n').filter((l) => l.includes('"website"'))).toHaveLength(2);

    const second = await emus.start({ dataFile: file, keys: ['k'] });
    expect(second.traffic('k', 'kept.com')).toEqual(before);
    expect(total(await allRows(second, kept!.id, { name: 'pageviews', ...ALWAYS }, 'k'))).toBe(5007);
    await call(second, 'DELETE', `/api/v1/websites/${dropped!.id}`, { key: 'k' });
    expect(JSON.parse(readFileSync(file, 'utf8')).traffic.map((t: { website: number }) => t.website)).toEqual([kept!.id]);
  });

  it('loads a file written before traffic existed; rules fill in websites that have none at start-up', async () => {
    const file = freshFile();
    const website = (id: number, domain: string) => ({
      id, account: 1, domain, privacy: 0, email: 0, exclude_bots: 1, exclude_params: null, exclude_ips: null,
      favorite: false, favorited_at: null, password: null, created_at: 'x', updated_at: 'x',
    });
    const old = {
      format: 'sitesync-emulator',
      version: 1,
      nextId: 3,
      accounts: [{ id: 1, keyHash: hashKey('k'), name: 'n', email: 'e', websiteLimit: null, apiAccess: true, created_at: 'x' }],
      websites: [website(1, 'a.legacy.example'), website(2, 'other.com')],
    };
    writeFileSync(file, JSON.stringify(old));
    const plain = await emus.start({ dataFile: file, keys: ['k'] });
    expect(plain.websites('k').map((w) => w.domain)).toEqual(['a.legacy.example', 'other.com']);
    expect(plain.traffic('k', 1)).toEqual({});
    await plain.close();
    expect(JSON.parse(readFileSync(file, 'utf8')).traffic).toEqual([]);

    const ruled = await emus.start({ dataFile: file, keys: ['k'], traffic: [{ pattern: '*.legacy.example', pageviews: 900, days: 90 }] });
    expect(sumOf(ruled.traffic('k', 1)!, 'pageviews')).toBe(900);
    expect(ruled.traffic('k', 2)).toEqual({});
    ruled.addTraffic('k', 1, { '2001-01-01': 1 });
    await ruled.close();
    // A website that has traffic keeps it and gets no more from the rule on the next start.
    const again = await emus.start({ dataFile: file, keys: ['k'], traffic: [{ pattern: '*.legacy.example', pageviews: 900, days: 90 }] });
    expect(sumOf(again.traffic('k', 1)!, 'pageviews')).toBe(901);
  });

  it('refuses damaged traffic with a clear error and leaves the file untouched', async () => {
    const base = {
      format: 'sitesync-emulator',
      version: 1,
      nextId: 2,
      accounts: [{ id: 1, keyHash: hashKey('k'), name: 'n', email: 'e', websiteLimit: null, apiAccess: true, created_at: 'x' }],
      websites: [
        {
          id: 1, account: 1, domain: 'a.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: null, exclude_ips: null,
          favorite: false, favorited_at: null, password: null, created_at: 'x', updated_at: 'x',
        },
      ],
    };
    const cases: [unknown, RegExp][] = [
      [{ website: 1 }, /"traffic" is not a list/],
      [[{ website: 9, days: {} }], /traffic\[0\]\.website does not name a website/],
      [[{ website: 1, days: { '2025-1-1': [1, 1] } }], /"2025-1-1", which is not a day/],
      [[{ website: 1, days: { '2025-01-01': [1] } }], /is not \[pageviews, visitors\]/],
      [[{ website: 1, days: {} }, { website: 1, days: {} }], /appears twice/],
    ];
    for (const [traffic, message] of cases) {
      const file = freshFile();
      const content = JSON.stringify({ ...base, traffic });
      writeFileSync(file, content);
      const error = await emus.start({ dataFile: file, keys: ['k'] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SitesyncError);
      expect((error as Error).message).toMatch(message);
      expect(readFileSync(file, 'utf8')).toBe(content);
    }
  });
});
