/**
 * What a saved plan recorded of a delete's traffic is a floor: history only grows, so a re-read
 * at apply that finds less is the service's error for that website. Its delete is not sent (and
 * no archive is written as if it were the history), the rest of the plan goes on, exit 1, and the
 * message names the website and both figures. (Within one run: test/pipeline/history-only-grows.test.ts.)
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRequest } from '../../src/emulator/index.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** The service answers no rows for the statistics of website `id`. */
function emptied(id: number) {
  return (req: FaultRequest) =>
    req.path === `/api/v1/stats/${id}` ? { status: 200, body: { current_page: 1, data: [], last_page: 1, per_page: '100', total: 0, status: 200 } } : undefined;
}

describe('a saved plan whose deletes recorded traffic', () => {
  it('a delete whose history the service now answers smaller is not sent (no archive written as if it were the history); the rest of the plan goes on, exit 1', async () => {
    s = await scenario();
    s.emu.seed(KEY, [
      { domain: 'keep.example.com' },
      { domain: 'gone.example.com', traffic: { [ago(400)]: 4_000, [ago(200)]: 1_000 } },
      { domain: 'old.example.com', traffic: { [ago(300)]: 70 } },
    ]);
    await s.write('version: 1\nprune: true\narchive: archives\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: keep.example.com\n  - domain: new.example.com\n');
    const made = await s.cli(['plan', '--out', 'plan.json']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('destroys 5,000 pageviews recorded');
    s.emu.resetStats();
    s.emu.faults.before = emptied(2);
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain(
      '✗ delete gone.example.com (id 2): not deleted: the history of gone.example.com shrank between two reads: the saved plan read 5,000 pageviews, the service now 0. History only grows, so the service answered wrongly, and what the delete would destroy is not known',
    );
    expect(r.stdout).toContain('Applied: 1 created, 0 updated, 1 deleted, 1 failed.');
    expect(writes(s.emu).filter((w) => w.startsWith('DELETE'))).toEqual(['DELETE /api/v1/websites/3 200']);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toContain('gone.example.com');
    expect((await readdir(join(s.dir, 'archives'))).filter((n) => n.startsWith('gone.'))).toEqual([]);
  });
});
