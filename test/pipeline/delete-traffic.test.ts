/**
 * A delete destroys a website's statistics with it. Every planned delete says what it destroys,
 * in every output, read through the stats API (and only for deletes); a delete of a website
 * with recent traffic is refused unless the file retires it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

/** A day `n` days ago, as the stats API writes days. */
const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** keep (listed), old (quiet: traffic long ago), busy (recent traffic), empty (none ever). */
async function setUp(file: string) {
  s = await scenario();
  s.emu.seed(KEY, [
    { domain: 'keep.example.com', traffic: { [ago(2)]: 50 } },
    { domain: 'old.example.com', traffic: { [ago(400)]: 12_000, [ago(200)]: 340 } },
    { domain: 'busy.example.com', traffic: { [ago(300)]: 9_000, [ago(10)]: 1_000, [ago(1)]: 204 } },
    { domain: 'empty.example.com' },
  ]);
  await s.write(file);
  s.emu.resetStats();
}
const PRUNE = 'version: 1\nprune: true\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: keep.example.com\n';

describe('what a delete destroys', () => {
  it('every output shows each delete with its traffic, read with two requests a delete where pageviews answer whether it is active (without any, the second reads its events; without recent ones, a third reads the window\'s events)', async () => {
    await setUp(PRUNE);
    const text = await s.cli(['plan']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('- delete old.example.com (id 2)\n    ! destroys 12,340 pageviews recorded, 0 in the last 30 days');
    expect(text.stdout).toContain('- delete busy.example.com (id 3)\n    ! destroys 10,204 pageviews recorded, 1,204 in the last 30 days');
    expect(text.stdout).toContain('- delete empty.example.com (id 4)\n    ! no pageviews recorded: its statistics are empty');
    expect(text.stdout).toContain('this plan destroys the history of a website with pageviews in the last 30 days or traffic unknown (busy.example.com): apply will refuse unless retire: lists it');
    // The lifetime from the hours; the window's days for a website with any, else its events.
    const stats = s.emu.stats.log.filter((r) => r.path.startsWith('/api/v1/stats/'));
    expect(stats.map((r) => `${r.path.split('?')[0]} ${new URLSearchParams(r.path.split('?')[1]).get('name')}`).sort()).toEqual([
      // Without pageviews in the window, its events there (case of old.example.com, quiet for 200 days).
      '/api/v1/stats/2 event',
      '/api/v1/stats/2 pageviews',
      '/api/v1/stats/2 pageviews_hour',
      '/api/v1/stats/3 pageviews',
      '/api/v1/stats/3 pageviews_hour',
      '/api/v1/stats/4 event',
      '/api/v1/stats/4 pageviews_hour',
    ]);
    expect(new Set(stats.map((r) => r.path.split('?')[0]))).toEqual(new Set(['/api/v1/stats/2', '/api/v1/stats/3', '/api/v1/stats/4']));

    const md = (await s.cli(['plan', '--format', 'markdown'])).stdout;
    expect(md).toContain('> This plan deletes 3 websites and the 22,544 pageviews they recorded (1,204 in the last 30 days). There is no undo.');
    // The last 30 days as a sparkline, from the rows the traffic read fetched: 1,000 ten days ago, 204 yesterday.
    expect(md).toContain('| 🔴 delete | `busy.example.com` | deleted with 10,204 pageviews (1,204 in the last 30 days) ▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁█▁▁▁▁▁▁▁▁▃▁ |');
    expect(text.stdout).toContain('1,204 in the last 30 days\n    last 30 days ▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁█▁▁▁▁▁▁▁▁▃▁ (most 1,000 a day)\n');
    expect(md).toContain('| 🔴 delete | `empty.example.com` | deleted; no pageviews recorded |');

    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    const busy = json.changes.find((c: { domain: string }) => c.domain === 'busy.example.com');
    const daily = new Array(30).fill(0);
    daily[19] = 1_000;
    daily[28] = 204;
    expect(busy.traffic).toEqual({ pageviews: 10_204, pageviews_30d: 1_204, pageviews_recent: 1_204, recent_days: 30, daily_30d: daily });
    expect(json.accounts[0].safety.active).toEqual(['busy.example.com']);
  });

  it('events are activity: a website with events in the active_days window and no pageviews there is active, said in every output, refused without retire:; the events\' window is read only where pageviews do not answer', async () => {
    await setUp(PRUNE);
    s.emu.seed(KEY, [{ domain: 'events.example.com' }]);
    // The product's tracker writes an event hit's `event` row alone (the emulator derives every name from pageviews):
    // events.example.com has 52 events yesterday and 8 long ago, no pageview; old.example.com 5 events 3 days ago.
    const events: Record<string, { day: string; value: string; count: number }[]> = {
      '/api/v1/stats/2': [{ day: ago(3), value: 'Download:app:', count: 5 }],
      '/api/v1/stats/5': [{ day: ago(1), value: 'Signup:free:', count: 52 }, { day: ago(100), value: 'Download:app:', count: 8 }],
    };
    s.emu.faults.before = (req) => {
      const rows = events[req.path];
      if (!rows || req.query.get('name') !== 'event') return undefined;
      const byValue = new Map<string, number>();
      for (const r of rows) if (r.day >= req.query.get('from')!) byValue.set(r.value, (byValue.get(r.value) ?? 0) + r.count);
      const data = [...byValue].sort(([a], [b]) => (a < b ? -1 : 1)).map(([value, count]) => ({ value, count: String(count) }));
      return { status: 200, body: { current_page: 1, data, last_page: 1, per_page: '100', total: data.length, status: 200 } };
    };
    s.emu.resetStats();
    const text = await s.cli(['plan']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('- delete events.example.com (id 5)\n    ! destroys 60 events recorded (no pageviews), 52 in the last 30 days');
    expect(text.stdout).toContain('- delete old.example.com (id 2)\n    ! destroys 12,340 pageviews recorded, 0 in the last 30 days; 5 events in the last 30 days');
    expect(text.stdout).toContain('with pageviews or events in the last 30 days or traffic unknown (');
    // Two requests a delete where pageviews answer (busy: recent pageviews; empty: no pageview, no event ever); one more for the events' window otherwise.
    const stats = s.emu.stats.log.filter((r) => r.path.startsWith('/api/v1/stats/')).map((r) => `${r.path.split('?')[0]} ${new URLSearchParams(r.path.split('?')[1]).get('name')}`);
    const perWebsite = (id: number) => stats.filter((r) => r.startsWith(`/api/v1/stats/${id} `)).sort();
    expect(perWebsite(3)).toEqual(['/api/v1/stats/3 pageviews', '/api/v1/stats/3 pageviews_hour']);
    expect(perWebsite(4)).toEqual(['/api/v1/stats/4 event', '/api/v1/stats/4 pageviews_hour']);
    expect(perWebsite(2)).toEqual(['/api/v1/stats/2 event', '/api/v1/stats/2 pageviews', '/api/v1/stats/2 pageviews_hour']);
    expect(perWebsite(5)).toEqual(['/api/v1/stats/5 event', '/api/v1/stats/5 event', '/api/v1/stats/5 pageviews_hour']);
    expect(stats).toHaveLength(10);

    const md = (await s.cli(['plan', '--format', 'markdown'])).stdout;
    expect(md).toContain('| 🔴 delete | `events.example.com` | deleted with 60 events (no pageviews; 52 in the last 30 days) |');
    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    expect(json.accounts[0].safety.active.sort()).toEqual(['busy.example.com', 'events.example.com', 'old.example.com']);
    expect(json.changes.find((c: { domain: string }) => c.domain === 'events.example.com').traffic).toMatchObject({ pageviews: 0, events: 60, events_recent: 52 });

    const apply = await s.cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('refusing to delete 3 websites with recent traffic');
    expect(apply.stderr).toContain('events.example.com: destroys 60 events recorded (no pageviews), 52 in the last 30 days');
    expect(writes(s.emu)).toEqual([]);

    // active_days: 2 leaves old.example.com's events of 3 days ago out: it is quiet.
    await s.write(PRUNE.replace('{ max_delete_percent: 100 }', '{ max_delete_percent: 100, active_days: 2 }').replace('websites:', 'retire: ["busy.example.com", "events.example.com"]\nwebsites:'));
    const quiet = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    expect(quiet.accounts[0].safety.active).toEqual([]);
    expect(quiet.changes.find((c: { domain: string }) => c.domain === 'old.example.com').traffic).toMatchObject({ events_recent: 0 });
    const retired = await s.cli(['apply', '--auto-approve']);
    expect(retired.code, retired.stderr).toBe(0);
    expect(retired.stdout).toContain('Applied: 0 created, 0 updated, 4 deleted, 0 failed.');
  });

  it('a plan without deletes reads no statistics at all', async () => {
    await setUp('version: 1\nwebsites:\n  - domain: keep.example.com\n    email: true\n');
    const r = await s.cli(['plan']);
    expect(r.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete');
    expect(s.emu.stats.log.filter((l) => l.path.includes('/stats/'))).toEqual([]);
    expect(s.emu.stats.requests).toBe(2);
  });

  it('apply refuses to delete a website with recent traffic, naming it, its traffic and the retire: line to add; nothing is written', async () => {
    await setUp(PRUNE);
    const r = await s.cli(['apply', '--auto-approve', '--force']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refusing to delete a website with recent traffic, and its history with it; nothing was written');
    expect(r.stderr).toContain('busy.example.com: destroys 10,204 pageviews recorded, 1,204 in the last 30 days');
    expect(r.stderr).toContain('To delete it with its history, list it in sitesync.yaml: retire: ["busy.example.com"]');
    expect(writes(s.emu)).toEqual([]);
  });

  it('retire: lets it go with its history; a retire: that matches nothing is a warning, and a retired website still listed is an error', async () => {
    await setUp(PRUNE.replace('websites:', 'retire: ["busy.example.com", "typo.example.com"]\nwebsites:'));
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('! destroys 10,204 pageviews recorded, 1,204 in the last 30 days (retired: deleted with its history)');
    expect(r.stdout).toContain('retire: "typo.example.com" (line 4) matches no live website: a typo?');
    expect(r.stdout).toContain('Applied: 0 created, 0 updated, 3 deleted, 0 failed.');
    // Deleted with the website: its statistics are gone at the service too.
    expect(s.emu.traffic(KEY, 'busy.example.com')).toBeUndefined();

    await s.write(`${PRUNE}retire: ["keep.example.com"]\n`);
    const listed = await s.cli(['validate']);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain('"keep.example.com" is listed at line 5 and retired by "keep.example.com" at line 6: a retired website is deleted; remove one of them');
  });

  it('safety.active_days sets how recent is recent', async () => {
    await setUp(PRUNE.replace('{ max_delete_percent: 100 }', '{ max_delete_percent: 100, active_days: 365 }'));
    const r = await s.cli(['plan', '--format', 'json']);
    const json = JSON.parse(r.stdout);
    expect(json.accounts[0].safety.active.sort()).toEqual(['busy.example.com', 'old.example.com']);
    expect(json.changes.find((c: { domain: string }) => c.domain === 'old.example.com').traffic).toMatchObject({ pageviews_recent: 340, recent_days: 365 });
  });

  it('traffic that cannot be read is unknown, with the reason: plan shows it, apply refuses it', async () => {
    await setUp(PRUNE);
    // An answer the client cannot use (a 5xx is the same, after its retries).
    s.emu.faults.before = (req) => (req.path.startsWith('/api/v1/stats/2') ? { status: 422, body: { message: { name: ['The selected name is invalid.'] }, status: 422 } } : undefined);
    const plan = await s.cli(['plan']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('- delete old.example.com (id 2)\n    ! traffic unknown (name: The selected name is invalid.): counted as recent');
    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    const old = json.changes.find((c: { domain: string }) => c.domain === 'old.example.com');
    expect(old.traffic).toBeNull();
    expect(old.traffic_unknown).toBe('name: The selected name is invalid.');
    const apply = await s.cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('old.example.com: traffic unknown (name: The selected name is invalid.): counted as recent');
    expect(writes(s.emu)).toEqual([]);
  });

  it('a website deleted by another run between the listing and its stats is "already deleted", not counted as recent, and apply goes on', async () => {
    await setUp(PRUNE);
    const deleteDuringStats = (id: number) => {
      s.emu.faults.before = async (req) => {
        if (req.path.startsWith(`/api/v1/stats/${id}`)) {
          s.emu.faults.before = undefined;
          await fetch(`${s.emu.url}/api/v1/websites/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' } });
        }
        return undefined;
      };
    };
    deleteDuringStats(2);
    const text = await s.cli(['plan']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('- delete old.example.com (id 2)\n    ! already deleted at the service: nothing left to destroy');
    expect(text.stdout).not.toContain('counted as recent');
    expect(text.stdout).not.toMatch(/traffic unknown \(old\.example\.com/);
    s.emu.seed(KEY, [{ domain: 'old2.example.com' }]);
    deleteDuringStats(5);
    const markdown = await s.cli(['plan', '--format', 'markdown']);
    expect(markdown.stdout).toContain('already deleted at the service: nothing left to destroy');
    expect(markdown.stdout).not.toContain('could not be read');
  });

  it('a website the service answers 404 for, for a moment, is not deleted again: no DELETE past retire:, in a fresh apply or a saved plan\'s; the next plan shows it', async () => {
    await setUp(PRUNE.replace('websites:', 'retire: ["old.example.com", "empty.example.com"]\nwebsites:'));
    // busy.example.com (recent traffic, not retired): its stats, then its record, answer 404 once each.
    const flicker = () => {
      let stats = false;
      s.emu.faults.before = (req) => {
        const notFound = { status: 404, body: { message: 'Resource not found.', status: 404 } };
        if (req.path === '/api/v1/stats/3') return (stats = true), notFound;
        if (req.method === 'GET' && req.path === '/api/v1/websites/3' && stats) return (s.emu.faults.before = undefined), notFound;
        return undefined;
      };
    };
    flicker();
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('busy.example.com (id 3)\n    ! already deleted at the service: nothing left to destroy');
    expect(r.stdout).toContain('delete busy.example.com (id 3): already gone when planned (the service answered 404 for it): not deleted again');
    expect(r.stdout).toContain('Applied: 0 created, 0 updated, 2 deleted, 1 already gone, 0 failed.');
    expect(writes(s.emu).sort()).toEqual(['DELETE /api/v1/websites/2 200', 'DELETE /api/v1/websites/4 200']);
    // Listed again: the next plan shows it, with its traffic, and apply refuses it.
    const again = await s.cli(['plan']);
    expect(again.stdout).toContain('- delete busy.example.com (id 3)\n    ! destroys 10,204 pageviews recorded, 1,204 in the last 30 days');

    // A saved plan of it, applied while the service answers 404 for a moment.
    await s.write(`${PRUNE.replace('websites:', 'retire: ["busy.example.com"]\nwebsites:')}`);
    expect((await s.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    await s.write(PRUNE.replace('websites:', 'retire: ["busy.example.com"]\nwebsites:'));
    s.emu.resetStats();
    // The saved plan's apply reads the website by id first: the flicker starts after that.
    let shown = false;
    s.emu.faults.before = (req) => {
      if (req.method === 'GET' && req.path === '/api/v1/websites/3' && !shown) return (shown = true), undefined;
      if (shown) flicker();
      return undefined;
    };
    const saved = await s.cli(['apply', 'plan.json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain('not deleted again');
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.traffic(KEY, 'busy.example.com')).toBeDefined();
  });

  it('a saved plan records the traffic it showed, and is refused when a website that was quiet has had traffic since', async () => {
    await setUp(PRUNE.replace('websites:', 'retire: ["busy.example.com"]\nwebsites:'));
    expect((await s.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(await readFile(join(s.dir, 'plan.json'), 'utf8'));
    expect(saved.changes.find((c: { domain: string }) => c.domain === 'old.example.com').traffic).toMatchObject({ pageviews: 12_340, pageviews_recent: 0 });
    s.emu.addTraffic(KEY, 'old.example.com', { [ago(0)]: 7 });
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('plan.json is stale');
    expect(r.stderr).toContain('old.example.com (id 2): had no pageviews in the last 30 days when the plan was made, and has 7 now');
    expect(writes(s.emu)).toEqual([]);
    // Unchanged since, the saved plan applies.
    await writeFile(join(s.dir, 'sitesync.yaml'), PRUNE.replace('websites:', 'retire: ["busy.example.com", "old.example.com"]\nwebsites:'));
    await s.cli(['plan', '--out', 'plan.json']);
    const again = await s.cli(['apply', 'plan.json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Applied: 0 created, 0 updated, 3 deleted, 0 failed.');
  });

  it('a saved plan is refused when a website that was quiet has had events since, with no pageviews: events are activity for a saved plan too', async () => {
    await setUp(PRUNE.replace('websites:', 'retire: ["busy.example.com"]\nwebsites:'));
    expect((await s.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(await readFile(join(s.dir, 'plan.json'), 'utf8'));
    expect(saved.changes.find((c: { domain: string }) => c.domain === 'old.example.com').traffic).toMatchObject({ pageviews_recent: 0, events_recent: 0 });
    // old.example.com (id 2) records 5 events yesterday and no pageview (the product writes an event hit's row alone).
    s.emu.faults.before = (req) => {
      if (req.path !== '/api/v1/stats/2' || req.query.get('name') !== 'event') return undefined;
      const data = req.query.get('from')! <= ago(1) ? [{ value: 'Signup:free:', count: '5' }] : [];
      return { status: 200, body: { current_page: 1, data, last_page: 1, per_page: '100', total: data.length, status: 200 } };
    };
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('plan.json is stale');
    expect(r.stderr).toContain('old.example.com (id 2): had no pageviews or events in the last 30 days when the plan was made, and has 5 events now');
    expect(writes(s.emu)).toEqual([]);
  });
});
