/**
 * A file of many accounts on one installation, each with its own key: the retire: hint names the
 * file and the account, a refused `--account` says nothing of the others, `--target` shows the
 * accounts it reaches, and a plan gives one line to each account without changes and the detail
 * to the others, in text, markdown and on a terminal.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { agencyIn, expectNoKeys, KEYS } from '../helpers/agency.js';
import { bin, cleanEnv } from '../helpers/cli.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

/** A day `n` days ago, as the stats API writes days. */
const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

const agency = agencyIn((sc) => (s = sc));

describe('the retire: hint names where it goes', () => {
  it('in an accounts: file: the file and the account', async () => {
    const cli = await agency({ alpha: '      - domain: keep.example.com', beta: '      - domain: b1.example.com', gamma: '      - domain: g1.example.com' });
    s.emu.seed(KEYS.ALPHA_KEY, [{ domain: 'keep.example.com' }, { domain: 'old.alpha.example', traffic: { [ago(3)]: 120 } }]);
    const r = await cli(['apply', '--auto-approve', '--prune', '--account', 'alpha']);
    expect(r.stderr).toContain('✗ account alpha will not be applied: refusing to delete a website with recent traffic, and its history with it; nothing was written\n');
    expect(r.stderr).toContain('    To delete it with its history, list it in sitesync.yaml under accounts.alpha: retire: ["old.alpha.example"]\n');
    expect(r.code).toBe(1);
    expect(writes(s.emu)).toEqual([]);
    expectNoKeys(r);
  });

  it('in a single-account file: the file', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'keep.example.com' }, { domain: 'old.example.com', traffic: { [ago(3)]: 120 } }, { domain: 'older.example.com', traffic: { [ago(1)]: 7 } }]);
    await s.write('version: 1\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: keep.example.com\n', 'ours.yaml');
    const r = await s.cli(['apply', '-c', 'ours.yaml', '--auto-approve', '--prune']);
    expect(r.stderr).toContain('Error: refusing to delete 2 websites with recent traffic, and their history with them; nothing was written\n');
    expect(r.stderr).toContain('  To delete them with their history, list them in ours.yaml: retire: ["old.example.com", "older.example.com"]\n');
  });
});

describe('an --account refused, and a --target in a file of many accounts', () => {
  it('--account alpha refused says nothing about other accounts; with others planned, it says they had nothing to apply', async () => {
    const cli = await agency({ alpha: '      - domain: keep.example.com', beta: '      - domain: b1.example.com', gamma: '      - domain: g1.example.com' });
    s.emu.seed(KEYS.ALPHA_KEY, [{ domain: 'keep.example.com' }, { domain: 'old.alpha.example', traffic: { [ago(3)]: 120 } }]);
    s.emu.seed(KEYS.BETA_KEY, [{ domain: 'b1.example.com' }]);
    const alone = await cli(['apply', '--auto-approve', '--prune', '--account', 'alpha']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('✗ account alpha will not be applied');
    expect(alone.stdout).not.toContain('Nothing to apply');
    const two = await cli(['apply', '--auto-approve', '--prune', '--account', 'alpha', '--account', 'beta']);
    expect(two.code).toBe(1);
    expect(two.stdout).toContain('Nothing to apply in the other accounts.\n');
    expectNoKeys(alone, two);
  });

  it('--target shows the accounts it reaches, and one line for the rest; in markdown too', async () => {
    const cli = await agency({ alpha: '      - domain: a1.example.com', beta: '      - domain: shop.beta.example\n        privacy: private', gamma: '      - domain: g1.example.com' });
    s.emu.seed(KEYS.BETA_KEY, [{ domain: 'shop.beta.example' }]);
    const r = await cli(['plan', '--target', '*.beta.example']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('━━ account beta ━━');
    expect(r.stdout).toContain('~ update shop.beta.example');
    expect(r.stdout).not.toContain('━━ account alpha');
    expect(r.stdout).not.toContain('━━ account gamma');
    expect(r.stdout).toContain('\n2 accounts with no website in this plan: alpha, gamma.\n\nTotal for 3 accounts: 0 to create, 1 to update, 0 to delete');
    const md = (await cli(['plan', '--target', '*.beta.example', '--format', 'markdown'])).stdout;
    expect(md).toContain('| `beta` |');
    expect(md).not.toContain('| `alpha` |');
    expect(md).not.toContain('### Account `alpha`');
    expect(md).toContain('2 accounts with no website in this plan: `alpha`, `gamma`.');
    expectNoKeys(r, { stdout: md, stderr: '' });
  });
});

describe('a plan of many accounts: one line for each account without changes, the detail for the others', () => {
  async function thirty() {
    const cli = await agency({
      alpha: '      - domain: a1.example.com\n      - domain: a2.example.com',
      beta: '      - domain: shop.beta.example\n        privacy: private',
      gamma: '      - domain: g1.example.com',
    });
    s.emu.seed(KEYS.ALPHA_KEY, [{ domain: 'a1.example.com' }, { domain: 'a2.example.com' }, { domain: 'extra.example.com' }]);
    s.emu.seed(KEYS.BETA_KEY, [{ domain: 'shop.beta.example' }]);
    s.emu.seed(KEYS.GAMMA_KEY, [{ domain: 'g1.example.com' }]);
    return cli;
  }

  it('text: `alpha: no changes (2 websites, 1 unmanaged)`, beta in full, then the total', async () => {
    const cli = await thirty();
    const r = await cli(['plan']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^alpha: no changes \(2 websites, 1 unmanaged\)\n\n━━ account beta ━━\n\nsitesync plan for /);
    expect(r.stdout).toContain('~ update shop.beta.example');
    expect(r.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete (0 unchanged, 0 unmanaged).\n\ngamma: no changes (1 website)\n\nTotal for 3 accounts:');
    expect(r.stdout.match(/━━ account/g)).toHaveLength(1);
    expect((r.stdout.match(/Note: not verifiable/g) ?? []).length).toBeLessThanOrEqual(1); // beta's; the quiet accounts' not at all
    expectNoKeys(r);
  });

  it('markdown: a row for each account, a section only for beta', async () => {
    const cli = await thirty();
    const md = (await cli(['plan', '--format', 'markdown'])).stdout;
    expect(md).toContain('| `alpha` | `' + s.emu.url + '` | 0 | 0 | 0 | 2 | 1 |');
    expect(md).toContain('| `gamma` | `' + s.emu.url + '` | 0 | 0 | 0 | 1 | 0 |');
    expect(md.match(/### Account/g)).toEqual(['### Account']);
    expect(md).toContain('### Account `beta`: 0 to create, 1 to update, 0 to delete');
  });

  it('on a terminal (a pseudo-terminal, script(1)): what a person sees, in colour', async () => {
    await thirty();
    const env = cleanEnv({ ...KEYS, TERM: 'xterm-256color' });
    const child = spawn('script', ['-qefc', `${process.execPath} ${bin} plan`, '/dev/null'], { cwd: s.dir, env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    // After the progress line (stderr, on the same terminal), which is cleared (ESC [2K) before the plan.
    const plain = out.slice(out.lastIndexOf('\x1b[2K') + 4).replace(/\x1b\[[0-9;]*m/g, '').replace(/\r\n/g, '\n');
    expect(code).toBe(0);
    expect(out).toContain('\x1b['); // colour, on a terminal
    expect(plain).toMatch(/^alpha: no changes \(2 websites, 1 unmanaged\)\n\n━━ account beta ━━\n/);
    expect(plain).toContain('\ngamma: no changes (1 website)\n\nTotal for 3 accounts: 0 to create, 1 to update, 0 to delete (3 unchanged, 1 unmanaged).\n');
    expect(plain.split('\n').length).toBeLessThan(20);
  });
});
