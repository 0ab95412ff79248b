/**
 * One file, many accounts on two installations: plan, apply, saved plans, export and account
 * across them, the CLI run as users run it against two emulators.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCliHere, type CliResult } from '../helpers/cli.js';
import { writes } from '../helpers/scenario.js';

const KEYS = {
  ACME_KEY: 'sk-test-ACME-0123456789abcdef',
  BETA_KEY: 'sk-test-BETA-0123456789abcdef',
  GLOBEX_KEY: 'sk-test-GLOBEX-0123456789abcdef',
};
const PASSWORD = 'pw-of-the-vault-42';

let east: Emulator; // acme and beta
let west: Emulator; // globex
let dir: string;

beforeEach(async () => {
  east = await startEmulator({ keys: [KEYS.ACME_KEY, KEYS.BETA_KEY], profile: 'deployed' });
  west = await startEmulator({ keys: [KEYS.GLOBEX_KEY], profile: 'deployed' });
  dir = await mkdtemp(join(tmpdir(), 'sitesync-accounts-'));
  await mkdir(join(dir, 'clients/globex'), { recursive: true });
  await writeFile(join(dir, 'sitesync.yaml'), agencyFile());
  await writeFile(
    join(dir, 'clients/globex/shops.yaml'),
    ['websites:', '  - domain: shop.globex.example', '    email: true', '  - domain: store.globex.example', ''].join('\n'),
  );
});

afterEach(async () => {
  await east?.close();
  await west?.close();
  await rm(dir, { recursive: true, force: true });
});

function agencyFile(extra: { betaSafety?: string } = {}): string {
  return [
    'version: 1',
    'defaults: { exclude_bots: true }',
    'accounts:',
    '  acme:',
    `    base_url: ${east.url}`,
    '    api_key_env: ACME_KEY',
    '    websites:',
    '      - domain: acme.example',
    '      - domain: vault.acme.example',
    '        privacy: password',
    '        password: ${VAULT_PW}',
    '  beta:',
    `    base_url: ${east.url}`,
    '    api_key_env: BETA_KEY',
    '    prune: true',
    `    safety: ${extra.betaSafety ?? '{ max_delete_percent: 20, min_existing: 1 }'}`,
    '    websites:',
    '      - domain: beta.example',
    '  globex:',
    `    base_url: ${west.url}`,
    '    api_key_env: GLOBEX_KEY',
    '    include: ["clients/globex/*.yaml"]',
    '    websites:',
    '      - domain: globex.example',
    '',
  ].join('\n');
}

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCliHere(args, { cwd: dir, env: { ...KEYS, VAULT_PW: PASSWORD, ...env } });
}

function domains(emu: Emulator, key: string): string[] {
  return emu
    .websites(key)
    .map((w) => w.domain)
    .sort();
}

/** No output ever holds a key or a password. */
function expectNoSecrets(...results: CliResult[]): void {
  for (const r of results) {
    for (const secret of [...Object.values(KEYS), PASSWORD]) {
      expect(r.stdout).not.toContain(secret);
      expect(r.stderr).not.toContain(secret);
    }
  }
}

describe('a file with accounts on two installations', () => {
  it('plans every account in its own section with a total, applies them all, and converges', async () => {
    const plan = await cli(['plan']);
    expect(plan.code).toBe(0);
    for (const name of ['acme', 'beta', 'globex']) expect(plan.stdout).toContain(`━━ account ${name} ━━`);
    expect(plan.stdout).toContain(`sitesync plan for ${west.url}`);
    expect(plan.stdout).toMatch(/Total for 3 accounts: 6 to create, 0 to update, 0 to delete/);

    const apply = await cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/Total for 3 accounts: 6 changes applied, 0 failed/);
    expect(domains(east, KEYS.ACME_KEY)).toEqual(['acme.example', 'vault.acme.example']);
    expect(domains(east, KEYS.BETA_KEY)).toEqual(['beta.example']);
    expect(domains(west, KEYS.GLOBEX_KEY)).toEqual(['globex.example', 'shop.globex.example', 'store.globex.example']);
    // The included file's settings and the top-level defaults reached the service.
    const shop = west.websites(KEYS.GLOBEX_KEY).find((w) => w.domain === 'shop.globex.example')!;
    expect(shop.email).toBe(1);
    expect(shop.exclude_bots).toBe(1);

    const again = await cli(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Total for 3 accounts: 0 to create, 0 to update, 0 to delete/);
    expectNoSecrets(plan, apply, again);
  });

  it("one account's wrong key: the others apply, the summary names it, exit 1; fixed, a re-run converges", async () => {
    const apply = await cli(['apply', '--auto-approve'], { GLOBEX_KEY: 'sk-test-WRONG-0000000000000' });
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(/✗ globex \(http:\/\/127\.0\.0\.1:\d+\) could not be planned: .*key/i);
    expect(apply.stdout).toMatch(/1 of 3 failed: globex/);
    expect(domains(east, KEYS.ACME_KEY)).toEqual(['acme.example', 'vault.acme.example']);
    expect(domains(east, KEYS.BETA_KEY)).toEqual(['beta.example']);
    expect(domains(west, KEYS.GLOBEX_KEY)).toEqual([]);

    const fixed = await cli(['apply', '--auto-approve']);
    expect(fixed.code, fixed.stdout.slice(-600) + fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(/Total for 3 accounts: 3 changes applied, 0 failed/);
    const again = await cli(['plan', '--detailed-exitcode', '--verbose']);
    expect(again.code).toBe(0);
    // --verbose logs every request under its account's name, never a key.
    expect(again.stderr).toMatch(/\[globex\] GET /);
    expectNoSecrets(apply, fixed, again);
  });

  it("an account's own delete threshold refuses that account only; the others apply", async () => {
    east.seed(
      KEYS.BETA_KEY,
      Array.from({ length: 4 }, (_, i) => ({ domain: `old${i}.beta.example` })),
    );
    const apply = await cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/✗ account beta will not be applied: .*delete/i);
    // beta: nothing written; acme and globex: applied.
    expect(domains(east, KEYS.BETA_KEY)).toHaveLength(4);
    expect(domains(east, KEYS.ACME_KEY)).toHaveLength(2);
    expect(domains(west, KEYS.GLOBEX_KEY)).toHaveLength(3);

    const plan = await cli(['plan', '--fail-unsafe']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/apply would refuse 1 of 3 accounts/);
    expect(plan.stderr).toMatch(/beta: /);
  });

  it('--account and --exclude narrow the run; a name or pattern that matches nothing is an error', async () => {
    const one = await cli(['apply', '--auto-approve', '--account', 'globex', '--exclude', 'store.*.example']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).not.toContain('━━ account acme ━━');
    expect(domains(west, KEYS.GLOBEX_KEY)).toEqual(['globex.example', 'shop.globex.example']);
    expect(domains(east, KEYS.ACME_KEY)).toEqual([]);

    const typo = await cli(['plan', '--account', 'acmee']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('--account acmee: sitesync.yaml has no such account (did you mean acme?)');
    // A control character in the name is shown escaped once, as data.
    const control = await cli(['plan', '--account', 'a\x1b[31mb']);
    expect(control.stderr).toContain('--account a\\x1b[31mb: sitesync.yaml has no such account');
    expect(control.stderr).not.toContain('\x1b');

    const nothing = await cli(['plan', '--exclude', 'nomatch.example']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('--exclude "nomatch.example" matches no website in any account');

    const target = await cli(['plan', '--target', 'store.globex.example']);
    expect(target.code).toBe(0);
    expect(target.stdout).toMatch(/Total for 3 accounts: 1 to create/);
  });

  it('a missing api_key_env variable names the account and the variable; nothing is read', async () => {
    const r = await cli(['plan'], { BETA_KEY: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('account beta: environment variable BETA_KEY (its api_key_env) is not set');
    expect(east.stats.log).toHaveLength(0);
    expect(west.stats.log).toHaveLength(0);
  });

  it('an api_key_env naming what every object inherits (constructor) is a variable that is not set, not an internal error', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), agencyFile().replace('api_key_env: BETA_KEY', 'api_key_env: constructor'));
    const validate = await cli(['validate']);
    expect(validate.stderr).toContain('warning: account beta: environment variable constructor (its api_key_env) is not set; plan and apply need it');
    expect(validate.code).toBe(0);
    const plan = await cli(['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('account beta: environment variable constructor (its api_key_env) is not set');
    expect(`${validate.stderr}${plan.stderr}`).not.toContain('Internal error');
    expect(east.stats.log).toHaveLength(0);
  });

  it('validate checks every included file offline; an error there is printed at its own FILE:LINE:COL and nothing is read', async () => {
    const ok = await cli(['validate'], { GLOBEX_KEY: '' });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('sitesync.yaml is valid: 3 accounts, 6 websites, 1 included file, 1 warning.');
    expect(ok.stderr).toContain('warning: account globex: environment variable GLOBEX_KEY (its api_key_env) is not set; plan and apply need it');

    await writeFile(join(dir, 'clients/globex/shops.yaml'), 'websites:\n  - domain: shop.globex.example\n    email: maybe\n');
    for (const command of ['validate', 'plan']) {
      const r = await cli([command]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${join(dir, 'clients/globex/shops.yaml')}:3:12: websites[0].email must be`);
    }
    const github = await cli(['validate', '--format', 'github']);
    expect(github.code).toBe(1);
    expect(github.stdout).toContain('::error file=clients/globex/shops.yaml,line=3,col=12::websites[0].email must be');
    const formatted = await cli(['fmt']);
    expect(formatted.code).toBe(0);
    expect(formatted.stdout + formatted.stderr).toMatch(/Formatted sitesync\.yaml/);
    expect(formatted.stdout + formatted.stderr).toMatch(/clients\/globex\/shops\.yaml is already formatted/);
    expect(east.stats.log).toHaveLength(0);
    expect(west.stats.log).toHaveLength(0);
  });

  it('a saved plan is refused when an included file changed since, before anything is read', async () => {
    expect((await cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    await writeFile(join(dir, 'clients/globex/shops.yaml'), 'websites:\n  - domain: shop.globex.example\n');
    east.resetStats();
    west.resetStats();
    const r = await cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml or a file it includes changed since plan.json was made from it');
    expect(east.stats.log).toHaveLength(0);
    expect(west.stats.log).toHaveLength(0);
  });

  it('the markdown comment has the marker once, a table of accounts and a section per account', async () => {
    const r = await cli(['plan', '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/<!-- sitesync-plan -->/g)).toHaveLength(1);
    expect(r.stdout).toMatch(/^### sitesync plan, 3 accounts: 6 to create, 0 to update, 0 to delete/m);
    for (const name of ['acme', 'beta', 'globex']) {
      expect(r.stdout).toContain(`### Account \`${name}\``);
      expect(r.stdout).toMatch(new RegExp(`\\| \`${name}\` \\| \`http`));
    }
    expect(r.stdout.length).toBeLessThan(60_000);
  });

  it('the JSON plan lists the accounts, each with its plan, and the total', async () => {
    const r = await cli(['plan', '--format', 'json']);
    const json = JSON.parse(r.stdout);
    expect(json.format_version).toBe(2);
    expect(json.summary.create).toBe(6);
    expect(json.accounts.map((a: { name: string }) => a.name)).toEqual(['acme', 'beta', 'globex']);
    expect(json.accounts[2].base_url).toBe(west.url);
    expect(json.accounts[2].summary.create).toBe(3);
    const globex = json.changes.filter((c: { account: string }) => c.account === 'globex');
    expect(globex.map((c: { domain: string }) => c.domain)).toContain('shop.globex.example');
  });

  it('a saved plan covers every account and is applied whole', async () => {
    const plan = await cli(['plan', '--out', 'plan.json']);
    expect(plan.code).toBe(0);
    const saved = await readFile(join(dir, 'plan.json'), 'utf8');
    for (const secret of [...Object.values(KEYS), PASSWORD]) expect(saved).not.toContain(secret);
    const apply = await cli(['apply', 'plan.json']);
    expect(apply.code).toBe(0);
    expect(domains(west, KEYS.GLOBEX_KEY)).toHaveLength(3);
    expect(domains(east, KEYS.ACME_KEY)).toHaveLength(2);
  });

  it('a saved plan made stale in one account is refused whole: nothing is written anywhere', async () => {
    east.seed(KEYS.ACME_KEY, [{ domain: 'acme.example', email: 0 }]);
    await writeFile(join(dir, 'sitesync.yaml'), agencyFile().replace('      - domain: acme.example', '      - domain: acme.example\n        email: true'));
    const plan = await cli(['plan', '--out', 'plan.json']);
    expect(plan.code).toBe(0);
    // Someone changes acme's website after the plan was made.
    const [site] = east.websites(KEYS.ACME_KEY);
    const res = await fetch(`${east.url}/api/v1/websites/${site!.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${KEYS.ACME_KEY}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'domain=acme.example&privacy=1',
    });
    expect(res.status).toBe(200);
    east.resetStats();
    west.resetStats();
    const apply = await cli(['apply', 'plan.json']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('plan.json is stale: 1 of its 6 changes no longer match the service; nothing was written');
    expect(apply.stderr).toMatch(/account acme: acme\.example \(id \d+\): changed since the plan: privacy public → private/);
    expect(writes(east)).toEqual([]);
    expect(writes(west)).toEqual([]);
  });

  it('export of the file writes the accounts: form, which plans clean', async () => {
    await cli(['apply', '--auto-approve']);
    const r = await cli(['export', '-c', 'sitesync.yaml', '-o', 'exported.yaml']);
    expect(r.code).toBe(0);
    const text = await readFile(join(dir, 'exported.yaml'), 'utf8');
    expect(text).toMatch(/^accounts:\n(  #.*\n)*  acme:\n    base_url: http/m);
    expect(text).toContain('api_key_env: GLOBEX_KEY');
    for (const secret of Object.values(KEYS)) expect(text).not.toContain(secret);
    const plan = await cli(['plan', '-c', 'exported.yaml', '--detailed-exitcode']);
    expect(plan.stdout).toMatch(/Total for 3 accounts: 0 to create, 0 to update, 0 to delete/);
    expect(plan.code).toBe(0);

    const one = await cli(['export', '--account', 'beta']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('  beta:');
    expect(one.stdout).not.toContain('  acme:');
  });

  it('import adds a live website under the account that holds it, and the file then plans clean', async () => {
    await cli(['apply', '--auto-approve']);
    west.seed(KEYS.GLOBEX_KEY, [{ domain: 'new.globex.example', privacy: 1, email: 0, exclude_bots: 1 }]);
    east.seed(KEYS.ACME_KEY, [{ domain: 'new.acme.example', email: 1, exclude_bots: 0 }]);
    const r = await cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Imported 1 website into sitesync.yaml (account acme): new.acme.example');
    expect(r.stdout).toContain('Imported 1 website into sitesync.yaml (account globex): new.globex.example');
    const text = await readFile(join(dir, 'sitesync.yaml'), 'utf8');
    const unknown = '\n      # not returned by the service, not written: exclude_params\n';
    expect(text).toContain(`        password: \${VAULT_PW}\n${unknown}      - domain: new.acme.example\n        email: true\n        exclude_bots: false\n`);
    expect(text).toContain(`      - domain: globex.example\n${unknown}      - domain: new.globex.example\n        privacy: private\n`);
    const plan = await cli(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });

  it('account shows each account of the file', async () => {
    const r = await cli(['account', '-c', 'sitesync.yaml']);
    expect(r.code).toBe(0);
    for (const name of ['acme', 'beta', 'globex']) expect(r.stdout).toContain(`━━ account ${name} ━━`);
    expect(r.stdout).toContain(west.url);
    expectNoSecrets(r);
  });
});

describe('the first hour with a file with accounts', () => {
  it('every missing variable is said at once: the passwords\' and the keys\'', async () => {
    const r = await cli(['plan'], { VAULT_PW: undefined as unknown as string, BETA_KEY: '', GLOBEX_KEY: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('accounts.acme.websites[1].password: environment variable VAULT_PW is not set');
    expect(r.stderr).toContain('account beta: environment variable BETA_KEY (its api_key_env) is not set');
    expect(r.stderr).toContain('account globex: environment variable GLOBEX_KEY (its api_key_env) is not set');
    expect(r.stderr).toContain('3 problems found');
    expect(east.stats.log).toHaveLength(0);
  });

  it('a change of a website in an included file names that file and its line, in text and JSON', async () => {
    const text = await cli(['plan']);
    expect(text.stdout).toContain('+ create shop.globex.example  (clients/globex/shops.yaml:2)');
    expect(text.stdout).toContain('+ create acme.example  (line 8)');
    const json = JSON.parse((await cli(['plan', '--format', 'json'])).stdout);
    expect(json.changes.find((c: { domain: string }) => c.domain === 'shop.globex.example')).toMatchObject({ file: 'clients/globex/shops.yaml', line: 2 });
    expect(json.changes.find((c: { domain: string }) => c.domain === 'acme.example').file).toBeUndefined();
  });
});
