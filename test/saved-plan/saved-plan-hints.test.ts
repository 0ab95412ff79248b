/** The words around a saved plan: how many accounts it holds, the command that applies it (none in CI or when apply would refuse), and a config file given where a saved plan goes. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agencyIn, expectNoKeys } from '../helpers/agency.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const agency = agencyIn((sc) => (s = sc));

describe('what a saved plan says it is, and how to apply it', () => {
  it('a saved plan of one account is "1 account", and its hint names -c when the config is not sitesync.yaml', async () => {
    const cli = await agency({ alpha: '      - domain: a1.example.com', beta: '', gamma: '' });
    const r = await cli(['plan', '--account', 'alpha', '--out', 'plan.json']);
    expect(r.stderr).toBe('Saved the plan of 1 account to plan.json; apply it with: sitesync apply plan.json\n');
    await s.write(await readFile(join(s.dir, 'sitesync.yaml'), 'utf8'), 'agency.yaml');
    const other = await cli(['plan', '-c', 'agency.yaml', '--out', 'plan.json']);
    expect(other.stderr).toBe('Saved the plan of 3 accounts to plan.json; apply it with: sitesync apply -c agency.yaml plan.json\n');
  });

  it('in CI, and for a plan that apply would refuse, no "apply it with" and no temporary path to type', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 12 }, (_, i) => ({ domain: `w${i}.example.com` })));
    await s.write('version: 1\nwebsites:\n  - domain: w0.example.com\n  - domain: new.example.com\n');
    for (const env of [{ CI: 'true' }, { GITHUB_ACTIONS: 'true' }, { GITLAB_CI: 'true' }]) {
      const ci = await s.cli(['plan', '--out', 'plan.json'], { env });
      expect(ci.stderr, JSON.stringify(env)).toBe('Saved the plan to plan.json.\n');
    }
    const unsafe = await s.cli(['plan', '--prune', '--fail-unsafe', '--out', 'plan.json']);
    expect(unsafe.code).toBe(1);
    expect(unsafe.stderr).toMatch(/^Saved the plan to plan\.json\.\nError: refusing to delete 11 of 12 managed websites/);
    expect(unsafe.stderr).not.toContain('apply it with');
    const here = await s.cli(['plan', '--out', 'plan.json'], { env: { CI: 'false' } });
    expect(here.stderr).toBe('Saved the plan to plan.json; apply it with: sitesync apply plan.json\n');
    expectNoKeys(unsafe, here);
  });

  it('sitesync apply sitesync.yaml says to give a config file with -c', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites: []\n');
    const r = await s.cli(['apply', 'sitesync.yaml']);
    expect(r.stderr).toBe(
      'sitesync.yaml: this is a config file, not a saved plan: to apply it, give it with -c (sitesync apply -c sitesync.yaml); a saved plan is made with sitesync plan --out FILE\n1 problem found; nothing was changed on the service.\n',
    );
    expect(r.code).toBe(1);
  });
});
