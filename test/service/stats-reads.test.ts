/**
 * What a plan's deletes destroy, read over real HTTP from the emulator's stats API, when that API
 * is slow or missing: a timeout is not sent again, and once the API is found slow or missing,
 * the other deletes are not read (each would wait or fail the same way); each says why.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planWithHistory } from '../../src/run/delete-traffic.js';
import { parseFile } from '../../src/config/parse.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { DeleteChange } from '../../src/model/types.js';
import { planChanges } from '../../src/planner/plan.js';
import { ServiceClient } from '../../src/service/client.js';
import { trickleServer } from '../helpers/hostile-server.js';
import { failure } from '../helpers/api-failure.js';
import { readWholeHistory } from '../../src/service/stats.js';

const KEY = 'test-key-0123456789abcdef';
let emu: Emulator;
let client: ServiceClient;

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY] });
  emu.seed(KEY, Array.from({ length: 8 }, (_, i) => ({ domain: `s${i}.example.com`, traffic: { '2020-01-01': 5 } })));
  client = new ServiceClient({ baseUrl: emu.url, apiKey: KEY, baseDelayMs: 5, maxDelayMs: 20, statsTimeoutMs: 200 });
});
afterEach(async () => {
  await client.close();
  await emu.close();
});

async function deletesWithHistory() {
  const config = parseFile('version: 1\nprune: true\nsafety: {max_delete_percent: 100}\nwebsites: []\n', 'sitesync.yaml', { env: {} }).configs[0]!;
  const plan = planChanges({ config, live: await client.listWebsites(), account: null, baseUrl: emu.url, options: {} });
  emu.resetStats();
  const done = await planWithHistory(plan, config, client);
  return done.changes.filter((c): c is DeleteChange => c.action === 'delete');
}
/** Stats requests sent (the emulator logs a request when it answers: a timed-out one later). */
const statsRequests = () => client.stats.byKind.statistics ?? 0;

describe("a delete's traffic when the stats API is slow or missing", () => {
  it('a stats read that does not answer in time is not sent again, and the deletes not yet read are not read', async () => {
    emu.faults.before = (req) => (req.path.startsWith('/api/v1/stats/') ? { delayMs: 1_000 } : undefined);
    const deletes = await deletesWithHistory();
    expect(deletes).toHaveLength(8);
    // The four read at once time out, once each; the other four are never asked for.
    expect(statsRequests()).toBe(4);
    for (const d of deletes) {
      expect(d.traffic).toBeNull();
      expect(d.traffic_unknown).toMatch(/^(not read: )?the statistics API did not answer in time$/);
    }
  });

  it('a service without the stats API (a bare 404) says so, once, not that the base URL is wrong', async () => {
    emu.faults.before = (req) => (req.path.startsWith('/api/v1/stats/') ? { status: 404, body: { message: '' } } : undefined);
    const deletes = await deletesWithHistory();
    expect(statsRequests()).toBeLessThanOrEqual(4);
    for (const d of deletes) expect(d.traffic_unknown).toMatch(/^(not read: )?this service has no statistics API \(its version may predate it\)$/);
  });

  it('a slow website among quick ones: the quick ones read before it are kept', async () => {
    emu.faults.before = (req) => (req.path === '/api/v1/stats/1' || req.path.startsWith('/api/v1/stats/1?') ? { delayMs: 1_000 } : undefined);
    const deletes = await deletesWithHistory();
    const slow = deletes.find((d) => d.id === 1)!;
    expect(slow.traffic_unknown).toBe('the statistics API did not answer in time');
    expect(deletes.filter((d) => d.traffic !== null).length).toBeGreaterThanOrEqual(3);
  });

  it('a stats answer trickled a few bytes at a time is cut off at its deadline: the traffic is unknown, which counts as recent', async () => {
    const config = parseFile('version: 1\nprune: true\nsafety: {max_delete_percent: 100}\nwebsites: []\n', 'sitesync.yaml', { env: {} }).configs[0]!;
    const plan = planChanges({ config, live: await client.listWebsites(), account: null, baseUrl: emu.url, options: {} });
    const trickle = await trickleServer();
    // Chunks every 150 ms never trip the 1 s between them; the 0.6 s deadline of a stats read does.
    const slow = new ServiceClient({ baseUrl: trickle.url, apiKey: KEY, statsTimeoutMs: 1_000, statsDeadlineMs: 600 });
    try {
      const done = await planWithHistory(plan, config, slow);
      const deletes = done.changes.filter((c): c is DeleteChange => c.action === 'delete');
      expect(deletes).toHaveLength(8);
      for (const d of deletes) {
        expect(d.traffic).toBeNull();
        expect(d.traffic_unknown).toMatch(/^(not read: )?the statistics API did not answer in time$/);
      }
      // Unknown counts as recent: apply refuses these deletes unless retire: lists them.
      expect(done.safety.active).toEqual(deletes.map((d) => d.domain));
    } finally {
      await slow.close();
      await trickle.close();
    }
  });

  it('an archive\'s pages are statistics reads too: a trickled one is cut off at the statistics deadline, not the 2 minutes of other answers', async () => {
    const trickle = await trickleServer();
    const slow = new ServiceClient({ baseUrl: trickle.url, apiKey: KEY, statsTimeoutMs: 1_000, statsDeadlineMs: 600, deadlineMs: 60_000 });
    try {
      const error = await failure(readWholeHistory(slow, 1, 'gone.example.com', ['page']));
      expect(error.message).toBe(`read the page statistics of gone.example.com: ${trickle.host} did not send its whole answer within 0.6 s`);
    } finally {
      await slow.close();
      await trickle.close();
    }
  });
});
