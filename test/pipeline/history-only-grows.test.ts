/**
 * History only grows: every read of a website's history in one run must find at least what an
 * earlier one found. The service answering less the second time is its error for that website:
 * its delete is not sent, the rest goes on, exit 1, and the message names the website and both
 * figures.
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

const FILE = `version: 1
prune: true
archive: archives
safety: { max_delete_percent: 100 }
websites:
  - domain: keep.example.com
`;

/** keep (listed), gone and old (quiet: traffic long ago), both pruned and archived first. */
async function setUp() {
  s = await scenario();
  s.emu.seed(KEY, [
    { domain: 'keep.example.com' },
    { domain: 'gone.example.com', traffic: { [ago(400)]: 4_000, [ago(200)]: 1_000 } },
    { domain: 'old.example.com', traffic: { [ago(300)]: 70 } },
  ]);
  await s.write(FILE);
  s.emu.resetStats();
}

/** The service answers no rows for website `id` once `after` of its statistics have been answered. */
function emptiedAfter(id: number, after: number) {
  let seen = 0;
  return (req: FaultRequest) => {
    if (req.path !== `/api/v1/stats/${id}`) return undefined;
    if (++seen <= after) return undefined;
    return { status: 200, body: { current_page: 1, data: [], last_page: 1, per_page: '100', total: 0, status: 200 } };
  };
}

describe('history only grows', () => {
  it('an archive that finds less than the plan showed (the service answers no rows the second time) is not written, and the delete is not sent: exit 1, the others go on', async () => {
    await setUp();
    // The plan's traffic read takes two requests (the lifetime's hours, then the window's days); every read after finds nothing.
    s.emu.faults.before = emptiedAfter(2, 2);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('destroys 5,000 pageviews recorded');
    expect(r.stdout).toContain(
      '✗ delete gone.example.com (id 2): not deleted: the history of gone.example.com shrank between two reads: the plan read 5,000 pageviews, the archive 0. History only grows, so the service answered wrongly, and what the delete would destroy is not known',
    );
    expect(r.stdout).toContain('Applied: 0 created, 0 updated, 1 deleted, 1 failed.');
    expect(writes(s.emu).filter((w) => w.startsWith('DELETE'))).toEqual(['DELETE /api/v1/websites/3 200']);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toContain('gone.example.com');
    const day = new Date().toISOString().slice(0, 10);
    expect((await readdir(join(s.dir, 'archives'))).sort()).toEqual([`old.example.com-3-${day}.csv`, `old.example.com-3-${day}.json`]);

    // The service right again: a re-run archives it whole and deletes it.
    s.emu.faults.before = undefined;
    const again = await s.cli(['apply', '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`✓ delete gone.example.com (id 2) (archived first: archives/gone.example.com-2-${day}.json)`);
  });

  it('an archive that finds more than the plan showed (hits arrived since) is written, and the delete is sent', async () => {
    await setUp();
    let added = false;
    s.emu.faults.before = (req) => {
      // The first archive request: a visit arrives after the plan was read.
      if (!added && req.path === '/api/v1/stats/2' && req.query.get('name') === 'browser') {
        added = true;
        s.emu.addTraffic(KEY, 'gone.example.com', { [ago(0)]: 3 });
      }
      return undefined;
    };
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Applied: 0 created, 0 updated, 2 deleted, 0 failed.');
  });

});
