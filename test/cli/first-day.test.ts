/**
 * The first day of an agency, tried as a new user would (issue 34): a closed pipe, flags before
 * the command and flags given twice, what import and export write passing `fmt --check`, where
 * `retire:` goes, what a refused `--account` says, the wording of saved plans and mistakes, and a
 * plan of many accounts that shows what changes. The CLI as a child process where the process is
 * the point (a pipe, the command line, a terminal); in this process elsewhere.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, cleanEnv, root, runCli, type CliOptions } from '../helpers/cli.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';
import { sectionText } from '../helpers/docs.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const sites = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `  - domain: ${prefix}${i}.example.com\n    privacy: private`).join('\n');

/** A day `n` days ago, as the stats API writes days. */
const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

const KEYS = { ALPHA_KEY: 'sk-test-ALPHA-0123456789abcdef', BETA_KEY: 'sk-test-BETA-0123456789abcdef', GAMMA_KEY: 'sk-test-GAMMA-0123456789abcdef' };

/** Nothing new that these outputs say holds a key: no renderer or message is handed one. */
function expectNoKeys(...outputs: { stdout: string; stderr: string }[]): void {
  for (const { stdout, stderr } of outputs) for (const key of [KEY, ...Object.values(KEYS)]) expect(`${stdout}${stderr}`).not.toContain(key);
}

/** One installation, three accounts: `alpha`, `beta` and `gamma`, each with the websites of `own`. */
async function agency(own: Record<'alpha' | 'beta' | 'gamma', string>): Promise<(args: string[], options?: CliOptions) => ReturnType<Scenario['cli']>> {
  s = await scenario({ keys: Object.values(KEYS) });
  const file = ['version: 1', 'accounts:'];
  for (const [name, websites] of Object.entries(own)) {
    file.push(`  ${name}:`, `    base_url: ${s.emu.url}`, `    api_key_env: ${name.toUpperCase()}_KEY`, `    websites:${websites ? `\n${websites}` : ' []'}`);
  }
  await s.write(`${file.join('\n')}\n`);
  return (args, options = {}) => s.cli(args, { ...options, env: { ...KEYS, SITESYNC_API_KEY: undefined, SITESYNC_BASE_URL: undefined, ...options.env } });
}

describe('1. a reader that closes early (`sitesync plan | head -1`) ends the output quietly, as git does (141)', () => {
  it('text and json plans larger than the pipe buffer: no trace, nothing on stderr, exit 141', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n${sites(2000)}\n`);
    for (const format of ['text', 'json']) {
      const r = await s.cli(['plan', '--format', format], { process: true, closeStdoutEarly: true });
      expect(r.stdout.length, format).toBeLessThan(1_000_000); // only the start was read: the output is ~1 MB
      expect(r.stderr, format).toBe('');
      expect(r.code, format).toBe(141);
    }
  });

  it('fmt --check keeps its own verdict (1: not formatted) and says it, without a trace', async () => {
    s = await scenario();
    // No blank line between websites: fmt adds 2,000, a diff of ~100 KB.
    await s.write(`version: 1\nwebsites:\n${sites(2000)}\n`, 'big.yaml');
    const r = await runCli(['fmt', '--check', 'big.yaml'], { cwd: s.dir, closeStdoutEarly: true });
    expect(r.stdout).toMatch(/^--- big\.yaml\n/);
    expect(r.stderr).toBe('big.yaml is not formatted; run: sitesync fmt big.yaml\n');
    expect(r.code).toBe(1);
  });

  it('apply whose output is closed still applies every change (an apply half done would help nobody), then exits 141', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n${sites(300)}\n`);
    const r = await s.cli(['apply', '--auto-approve'], { process: true, closeStdoutEarly: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(141);
    expect(s.emu.websites(KEY)).toHaveLength(300);
  });
});

describe('2. a mistyped flag before the command gets the suggestion it gets after it', () => {
  it.each([
    [['--verbos', 'plan'], 'Error: unknown option --verbos for sitesync: did you mean --verbose?\nRun `sitesync --help` for usage.\n'],
    [['plan', '--verbos'], 'Error: unknown option --verbos for sitesync plan: did you mean --verbose?\nRun `sitesync plan --help` for usage.\n'],
    [['--versoin', 'plan'], 'Error: unknown option --versoin for sitesync: did you mean --version?\nRun `sitesync --help` for usage.\n'],
    [['--frob', '--verbos', 'plan'], 'Error: 2 unknown arguments\n  unknown option --frob for sitesync\n  unknown option --verbos for sitesync: did you mean --verbose?\nRun `sitesync --help` for usage.\n'],
    [['ci', '--verbos', 'drift'], 'Error: unknown option --verbos for sitesync ci: did you mean --verbose?\nRun `sitesync ci --help` for usage.\n'],
    [['--prune', 'plan'], 'Error: --prune is an option of sitesync plan: put it after the command (sitesync plan --prune)\nRun `sitesync --help` for usage.\n'],
    [['--token', 'sk-secret-value-1', 'plan'], 'Error: there is no --token option: the API key is never a command-line argument, where shell history, CI logs and the process list would show it: set SITESYNC_API_KEY, or put it in a file and pass --api-key-file FILE\nRun `sitesync plan --help` for usage.\n'],
  ])('sitesync %j', async (args, stderr) => {
    const r = await runCli(args);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
  });

});

describe('3. a flag given twice says so, as a value given twice does', () => {
  it.each([
    [['plan', '--prune', '--prune'], 'Error: --prune is given 2 times (--prune, --prune); give it once\nRun `sitesync plan --help` for usage.\n'],
    [['plan', '--prune', '--no-prune'], 'Error: --prune is given 2 times (--prune, --no-prune); give it once\nRun `sitesync plan --help` for usage.\n'],
    [['apply', '--auto-approve', '--auto-approve=false'], 'Error: --auto-approve is given 2 times (--auto-approve, --auto-approve=false); give it once\nRun `sitesync apply --help` for usage.\n'],
    // One rule for every flag, colour too: NO_COLOR in the environment, not a second flag, turns it off for good.
    [['validate', '--no-color', '--color'], 'Error: --color is given 2 times (--no-color, --color); give it once\nRun `sitesync validate --help` for usage.\n'],
    [['--verbose', 'validate', '--verbose'], 'Error: --verbose is given 2 times (--verbose, --verbose); give it once\nRun `sitesync validate --help` for usage.\n'],
  ])('sitesync %j', async (args, stderr) => {
    const r = await runCli(args);
    expect(r.stderr).toBe(stderr);
    expect(r.code).toBe(1);
  });

  it('a flag once, and words after -- that look like it, are fine', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n');
    expect((await s.cli(['validate', '--verbose', '--no-color'])).code).toBe(0);
    const r = await s.cli(['fmt', '--check', '--', '--check']);
    expect(r.stderr).toContain('--check: no such file');
    expect(r.stderr).not.toContain('given 2 times');
  });
});

describe('4. what a command writes is already formatted: `fmt --check` passes right after it', () => {
  const FORMATTED = [
    '# yaml-language-server: $schema=./schema.json',
    'version: 1',
    '',
    'defaults:',
    '  exclude_bots: true',
    '',
    'websites:',
    '  - domain: example.com',
    '    privacy: private',
    '',
    '  - domain: blog.example.com',
    '',
  ].join('\n');

  it('import, into a list, an empty list, and an account of an accounts: file', async () => {
    s = await scenario();
    s.emu.seed(KEY, ['example.com', 'blog.example.com', 'shop.example.com', 'vault.example.com', 'news.example.com'].map((domain, i) => ({ domain, privacy: i % 3 })));
    await s.write(FORMATTED);
    expect((await s.cli(['fmt', '--check'])).code).toBe(0);
    const imported = await s.cli(['import', 'shop.example.com', 'vault.example.com']);
    expect(imported.code, imported.stderr).toBe(0);
    const check = await s.cli(['fmt', '--check']);
    expect(check.stdout).toBe('sitesync.yaml is already formatted\n');
    expect(check.code, check.stderr).toBe(0);
    expect((await s.cli(['export', '-o', 'exported.yaml'])).code).toBe(0);
    expect((await s.cli(['fmt', '--check', 'exported.yaml'])).code).toBe(0);

    await s.write('version: 1\nwebsites: []\n', 'empty.yaml');
    expect((await s.cli(['import', '--unmanaged', '-c', 'empty.yaml'])).code).toBe(0);
    expect((await s.cli(['fmt', '--check', 'empty.yaml'])).code).toBe(0);
  });

  it('import into an account, then fmt --check of the whole file', async () => {
    const cli = await agency({ alpha: '      - domain: a1.example.com', beta: '      - domain: b1.example.com', gamma: '' });
    s.emu.seed(KEYS.ALPHA_KEY, ['a1.example.com', 'a2.example.com', 'a3.example.com'].map((domain) => ({ domain })));
    s.emu.seed(KEYS.GAMMA_KEY, ['g1.example.com', 'g2.example.com'].map((domain) => ({ domain })));
    await cli(['fmt']);
    const r = await cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    expect((await cli(['fmt', '--check'])).code).toBe(0);
  });

  it('export of an accounts: file, and fmt itself', async () => {
    const cli = await agency({ alpha: '      - domain: a1.example.com', beta: '      - domain: b1.example.com', gamma: '      - domain: g1.example.com' });
    s.emu.seed(KEYS.ALPHA_KEY, ['a1.example.com', 'a2.example.com', 'odd name.example.com'].map((domain, i) => ({ domain, privacy: i % 3, exclude_ips: '10.0.0.1' })));
    s.emu.seed(KEYS.BETA_KEY, ['b1.example.com', 'b2.example.com'].map((domain) => ({ domain })));
    expect((await cli(['export', '-o', 'all.yaml'])).code).toBe(0);
    const r = await cli(['fmt', '--check', 'all.yaml']);
    expect(r.stdout).toBe('all.yaml is already formatted\n');
    expect(r.code).toBe(0);
    await s.write('version: 1\nwebsites: [{domain: a.example.com}, {domain: b.example.com, exclude_ips: [10.0.0.1]}]\n', 'flow.yaml');
    expect((await cli(['fmt', 'flow.yaml'])).code).toBe(0);
    expect((await cli(['fmt', '--check', 'flow.yaml'])).code).toBe(0);
  });
});

describe('5. the fields the service does not return are said once per import, not on every entry', () => {
  it('importing 40 websites writes the exclude_params comment once, above the first', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 40 }, (_, i) => ({ domain: `site${i}.example.com` })));
    await s.write('version: 1\nwebsites:\n  - domain: site0.example.com\n');
    const r = await s.cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(join(s.dir, 'sitesync.yaml'), 'utf8');
    expect(text.match(/#.*exclude_params/g)).toEqual(['# not returned by the service, not written for these 39 imported websites: exclude_params']);
    expect(text).toContain('  - domain: site0.example.com\n\n  # not returned by the service, not written for these 39 imported websites: exclude_params\n  - domain: site1.example.com\n');
  });
});

describe('6. the retire: hint names where it goes', () => {
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

describe('7. an --account refused, and a --target in a file of many accounts', () => {
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

describe('8. wording', () => {
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

  it.each([
    [['plan', '--no-colour'], 'Error: unknown option --no-colour for sitesync plan: did you mean --no-color?\nRun `sitesync plan --help` for usage.\n'],
    [['--no-colour', 'validate'], 'Error: unknown option --no-colour for sitesync validate: did you mean --no-color?\nRun `sitesync validate --help` for usage.\n'],
    [['plan', '--colour'], 'Error: unknown option --colour for sitesync plan: did you mean --color?\nRun `sitesync plan --help` for usage.\n'],
  ])('sitesync %j', async (args, stderr) => {
    const r = await runCli(args);
    expect(r.stderr).toBe(stderr);
    expect(r.code).toBe(1);
  });
});

describe('10. the docs and the GitHub recipes agree', () => {
  it("the agency layout keeps node_modules/ out of the config repository's git", async () => {
    const layout = sectionText('docs/accounts.md', "An agency's repository");
    expect(layout).toMatch(/\n├── \.gitignore +# node_modules\/ and \.\*\.sitesync-lock: never committed\n/);
  });

  it('examples/github/README.md counts and lists every workflow, and forbids no trigger a workflow uses', async () => {
    const dir = join(root, 'examples/github');
    const workflows = (await readdir(dir)).filter((f) => f.endsWith('.yml'));
    const text = await readFile(join(dir, 'README.md'), 'utf8');
    const words = ['', 'One', 'Two', 'Three', 'Four', 'Five', 'Six'];
    expect(text).toMatch(new RegExp(`^${words[workflows.length]} workflows`, 'm'));
    for (const file of workflows) expect(text).toContain(`| \`${file}\` |`);
    for (const file of workflows) {
      const triggers = (await readFile(join(dir, file), 'utf8')).match(/^ {2}(pull_request_target|pull_request|push|schedule|workflow_dispatch):/gm) ?? [];
      for (const trigger of triggers) expect(text, `${file} uses ${trigger.trim()}`).not.toMatch(new RegExp(`[Dd]o not use \`${trigger.trim().slice(0, -1)}\``));
    }
  });
});

describe('11. a plan of many accounts: one line for each account without changes, the detail for the others', () => {
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
