/**
 * The library is a door to the same pipeline as the CLI, with the same guards: plan() reads what
 * each delete destroys, and applyPlan() reads it again and refuses to delete recent history that
 * the file does not retire — before any write.
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan, loadConfig, plan, readLiveState, SafetyError } from '../../src/api.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const FILE = 'version: 1\nprune: true\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: keep.example.com\n';

async function setUp(yaml: string) {
  s = await scenario();
  s.emu.seed(KEY, [
    { domain: 'keep.example.com' },
    { domain: 'busy.example.com', traffic: { [ago(300)]: 9_000, [ago(3)]: 120 } },
    { domain: 'old.example.com', traffic: { [ago(400)]: 500 } },
  ]);
  const options = { baseUrl: s.emu.url, apiKey: KEY, env: {}, autoApprove: true };
  const config = await loadConfig(await s.write(yaml), options);
  return { options, config, live: await readLiveState(config, options) };
}

describe('the library keeps the CLI’s history guard', () => {
  it('plan() says what each delete destroys, and applyPlan() refuses recent history without retire:, writing nothing', async () => {
    const { options, config, live } = await setUp(FILE);
    const planned = await plan(config, live, options);
    const busy = planned.changes.find((c) => c.domain === 'busy.example.com');
    expect(busy).toMatchObject({ action: 'delete', traffic: { pageviews: 9_120, pageviews_recent: 120 } });
    expect(planned.safety.active).toEqual(['busy.example.com']);
    s.emu.resetStats();
    await expect(applyPlan(planned, config, options)).rejects.toThrow(SafetyError);
    await expect(applyPlan(planned, config, options)).rejects.toThrow(/refusing to delete a website with recent traffic/);
    expect(writes(s.emu)).toEqual([]);
  });

  it('a plan whose deletes carry no traffic (made by hand, or before the traffic came) is read again, and refused the same', async () => {
    const { options, config, live } = await setUp(FILE);
    const planned = await plan(config, live, options);
    const bare = { ...planned, safety: { ...planned.safety, active: [] }, changes: planned.changes.map((c) => (c.action === 'delete' ? { ...c, traffic: undefined } : c)) };
    await expect(applyPlan(bare, config, { ...options, force: true })).rejects.toMatchObject({
      name: 'SafetyError',
      details: expect.arrayContaining([expect.stringMatching(/^busy\.example\.com: /)]),
    });
    expect(writes(s.emu)).toEqual([]);
  });

  it('with retire: the history goes, as the file says', async () => {
    const { options, config, live } = await setUp(`${FILE}retire: ["busy.example.com"]\n`);
    const result = await applyPlan(await plan(config, live, options), config, options);
    expect(result).toMatchObject({ deleted: 2, failed: 0 });
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['keep.example.com']);
  });

  it('with archive: in the file, applyPlan() archives each history before its delete, as the CLI does', async () => {
    const { options, config, live } = await setUp(`${FILE}retire: ["busy.example.com"]\narchive: archives\n`);
    const planned = await plan(config, live, options);
    expect(planned.changes.filter((c) => c.action === 'delete').map((c) => [c.domain, c.action === 'delete' && c.archive])).toEqual([
      ['busy.example.com', 'archives'],
      ['old.example.com', 'archives'],
    ]);
    const result = await applyPlan(planned, config, options);
    expect(result).toMatchObject({ deleted: 2, failed: 0 });
    const archived = result.results.map((r) => r.archive).sort();
    expect(archived).toHaveLength(2);
    for (const file of archived) expect(JSON.parse(await readFile(join(s.dir, 'archives', basename(file!)), 'utf8')).format_version).toBe(1);
  });
});
