/**
 * `sitesync init`: an estate under sitesync in one command, against emulators. Afterwards
 * validate, plan (nothing to change), plan --prune (nothing to delete) and fmt --check are
 * clean; init again changes no file; no key or password is written anywhere.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { root, runCliHere, type CliResult } from '../helpers/cli.js';
import { CliSurface, invocationsIn } from '../ci/recipe-lint.js';
import { adoptAccounts } from '../../src/edit/adopt.js';
import { sectionBlock } from '../helpers/docs.js';

/** The walkthrough of docs/adopting.md, section "With sitesync init": its sitesync command lines, as arguments. */
const walkthrough = sectionBlock('docs/adopting.md', 'With sitesync init', 'sh')
  .split('\n')
  .filter((line) => line.startsWith('npx sitesync '))
  .map((line) => line.replace(/#.*/, '').trim().split(/\s+/).slice(2));

const KEYS = { ACME_STATS_KEY: 'demo-key-0123456789', BETA_STATS_KEY: 'beta-key-0123456789', GLOBEX_STATS_KEY: 'globex-key-0123456789' };
const PASSWORD = 'members-secret-4711';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

async function emulator(keys: string[]): Promise<Emulator> {
  const emu = await startEmulator({ keys, profile: 'deployed' });
  cleanup.push(() => emu.close());
  return emu;
}

/** A folder in a git repository of its own, as an agency's config repository is. */
async function repository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sitesync-init-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q', dir]);
  return dir;
}

/** Every file of the folder (but .git) and its text. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isFile() || relative(dir, path).startsWith('.git/')) continue;
    files[relative(dir, path)] = await readFile(path, 'utf8');
  }
  return files;
}

/** validate, plan, plan --prune and fmt --check: each clean (exit 0, nothing to change or delete). */
async function expectClean(cli: (args: string[]) => Promise<CliResult>): Promise<void> {
  for (const args of [['validate'], ['plan', '--detailed-exitcode'], ['plan', '--prune', '--detailed-exitcode'], ['fmt', '--check']]) {
    const r = await cli(args);
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  }
}

function expectNoSecret(texts: string[], secrets: string[]): void {
  for (const text of texts) for (const secret of secrets) expect(text).not.toContain(secret);
}

/** The quick start's accounts file (examples/accounts/sitesync.yaml) as an agency starts it: each account's name, base_url and api_key_env, the top defaults. */
async function accountsOnly(ports: Record<string, string>): Promise<string> {
  const example = parse(await readFile(join(root, 'examples/accounts/sitesync.yaml'), 'utf8'));
  const lines = ['# Our clients: what only we know. sitesync init writes the rest.', 'version: 1', 'defaults:'];
  for (const [k, v] of Object.entries(example.defaults)) lines.push(`  ${k}: ${v}`);
  lines.push('accounts:');
  for (const [name, account] of Object.entries<{ base_url: string; api_key_env: string }>(example.accounts)) {
    const url = account.base_url.replace(/127\.0\.0\.1:(\d+)/, (_, port: string) => `127.0.0.1:${ports[port]}`);
    lines.push(`  ${name}:`, `    base_url: ${url}`, `    api_key_env: ${account.api_key_env} # the NAME of the variable`);
  }
  return `${lines.join('\n')}\n`;
}

describe('sitesync init', () => {
  it("adopts the quick start's three accounts on two installations in one run; then everything is clean, and init again changes nothing", async () => {
    const one = await emulator([KEYS.ACME_STATS_KEY, KEYS.BETA_STATS_KEY]);
    const two = await emulator([KEYS.GLOBEX_STATS_KEY]);
    const ports = { '8080': String(one.port), '8081': String(two.port) };
    // The live estate: the quick start's accounts applied (examples/accounts/), plus websites added by hand.
    const seeded = await mkdtemp(join(tmpdir(), 'sitesync-init-seed-'));
    cleanup.push(() => rm(seeded, { recursive: true, force: true }));
    await mkdir(join(seeded, 'examples'));
    execFileSync('cp', ['-r', join(root, 'examples/accounts'), join(seeded, 'examples')]);
    const example = join(seeded, 'examples/accounts/sitesync.yaml');
    await writeFile(example, (await readFile(example, 'utf8')).replace(/127\.0\.0\.1:(8080|8081)/g, (_, port: '8080' | '8081') => `127.0.0.1:${ports[port]}`));
    const applied = await runCliHere(['apply', '-c', example, '--auto-approve'], { cwd: seeded, env: KEYS });
    expect(applied.code, applied.stderr).toBe(0);
    one.seed(KEYS.ACME_STATS_KEY, [{ domain: 'blog.acme.example', exclude_bots: 0 }, { domain: 'members.acme.example', privacy: 2, password: PASSWORD }]);

    const dir = await repository();
    await writeFile(join(dir, 'sitesync.yaml'), await accountsOnly(ports));
    const cli = (args: string[]) => runCliHere(args, { cwd: dir, env: KEYS });

    const started = performance.now();
    const init = await cli(['init']);
    const took = performance.now() - started;
    console.log(`init of the quick start's 3 accounts on 2 emulators: ${Math.round(took)} ms`);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('Wrote clients/acme/websites.yaml: 4 websites of account acme');
    expect(init.stdout).toContain('Wrote clients/beta/websites.yaml: 1 website of account beta');
    expect(init.stdout).toContain('Wrote clients/globex/websites.yaml: 2 websites of account globex');
    expect(init.stdout).toContain('Wrote .gitignore');
    expect(init.stdout).toContain('Edited sitesync.yaml: include, password_env for accounts acme, beta, globex');

    const files = await snapshot(dir);
    expect(Object.keys(files).sort()).toEqual(['.gitignore', 'clients/acme/websites.yaml', 'clients/beta/websites.yaml', 'clients/globex/websites.yaml', 'sitesync.yaml']);
    const config = parse(files['sitesync.yaml']!);
    expect(config.accounts.acme).toMatchObject({ include: ['clients/acme/*.yaml'], password_env: ['ACME_*'], api_key_env: 'ACME_STATS_KEY' });
    expect(config.accounts.globex).toMatchObject({ include: ['clients/globex/*.yaml'], password_env: ['GLOBEX_*'] });
    // The person's comments stay.
    expect(files['sitesync.yaml']).toContain('# Our clients: what only we know.');
    expect(files['sitesync.yaml']).toContain('api_key_env: ACME_STATS_KEY # the NAME of the variable');
    // The file's defaults (exclude_bots: true) are the entries' defaults: blog.acme.example, which excludes no bots, says so.
    expect(parse(files['clients/acme/websites.yaml']!).websites).toContainEqual({ domain: 'blog.acme.example', exclude_bots: false });
    expect(files['clients/acme/websites.yaml']).toContain('#   password: ${ACME_MEMBERS_ACME_EXAMPLE_PASSWORD}');
    expect(files['.gitignore']).toContain('.*.sitesync-lock');
    expectNoSecret([...Object.values(files), init.stdout, init.stderr], [...Object.values(KEYS), PASSWORD]);

    await expectClean(cli);
    // The docs' walkthrough (docs/adopting.md): init (its --ci github is the recipes test's below), then each check exits 0, then init again.
    expect(walkthrough[0]).toEqual(['init', '--ci', 'github']);
    for (const args of walkthrough.slice(1, -1)) {
      const r = await cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    expect(walkthrough.at(-1)).toEqual(['init']);

    const again = await cli(['init']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Nothing written');
    expect(await snapshot(dir)).toEqual(files);
    // What it would add, and how.
    one.seed(KEYS.BETA_STATS_KEY, [{ domain: 'new.beta.example' }]);
    const later = await cli(['init']);
    expect(later.stderr).toContain('account beta: 1 website no file lists: new.beta.example. Add them with: sitesync import --unmanaged --account beta');
    expect(await snapshot(dir)).toEqual(files);
  });

  it('a live estate with uppercase, IDN, trailing dots, www., a name with a space and a password-protected website; its first password pull request passes', async () => {
    const emu = await emulator([KEYS.ACME_STATS_KEY]);
    emu.seed(KEYS.ACME_STATS_KEY, [
      { domain: 'Harborfoods.COM' },
      { domain: 'www.harborfoods.com' },
      { domain: 'bäckerei-harbor.de' },
      { domain: 'lumen-dental.com.' },
      { domain: 'test site.harborfoods.com' },
      { domain: 'members.harborfoods.com', privacy: 2, password: PASSWORD },
    ]);
    const dir = await repository();
    await writeFile(join(dir, 'sitesync.yaml'), `version: 1\naccounts:\n  harbor:\n    base_url: ${emu.url}\n    api_key_env: HARBOR_KEY\n`);
    const env = { HARBOR_KEY: KEYS.ACME_STATS_KEY };
    const cli = (args: string[], extra: Record<string, string> = {}) => runCliHere(args, { cwd: dir, env: { ...env, ...extra } });

    const init = await cli(['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('Edited sitesync.yaml: include, password_env, ignore (what no file entry can hold) for account harbor');
    const files = await snapshot(dir);
    const config = parse(files['sitesync.yaml']!);
    expect(config.accounts.harbor.ignore).toEqual(['test site.harborfoods.com']);
    expect(files['sitesync.yaml']).toMatch(/# "test site\.harborfoods\.com" \(id \d+\) is no host name a file entry can hold: left alone, never updated or deleted\n\s+- test site\.harborfoods\.com/);
    const websites = files['clients/harbor/websites.yaml']!;
    // As the service stores them (lower case, the unicode name, the trailing dot); it stores www.harborfoods.com
    // without its www.: a second harborfoods.com, left alone with a note.
    expect(parse(websites).websites.map((w: { domain: string }) => w.domain)).toEqual(['bäckerei-harbor.de', 'harborfoods.com', 'lumen-dental.com.', 'members.harborfoods.com']);
    expect(websites).toMatch(/The service also holds "harborfoods\.com" \(id \d+\), the same website to sitesync as/);
    expect(websites).toContain('#   password: ${HARBOR_MEMBERS_HARBORFOODS_COM_PASSWORD}');
    expectNoSecret([...Object.values(files), init.stdout, init.stderr], [KEYS.ACME_STATS_KEY, PASSWORD]);
    await expectClean(cli);
    expect(await cli(['plan', '--prune', '--detailed-exitcode'])).toMatchObject({ code: 0 });

    // The first pull request that sets a password: the base branch's copy is what init wrote.
    execFileSync('git', ['-C', dir, 'add', '-A']);
    await mkdir(join(dir, 'trusted'));
    await writeFile(join(dir, 'trusted/sitesync.yaml'), files['sitesync.yaml']!);
    await writeFile(
      join(dir, 'clients/harbor/websites.yaml'),
      websites.replace('  - domain: members.harborfoods.com\n', '  - domain: members.harborfoods.com\n    password: ${HARBOR_MEMBERS_HARBORFOODS_COM_PASSWORD}\n'),
    );
    const pr = await cli(['plan', '--trusted-config', 'trusted/sitesync.yaml', '--detailed-exitcode'], { HARBOR_MEMBERS_HARBORFOODS_COM_PASSWORD: 'a-new-one-1234' });
    expect(pr.code, pr.stdout + pr.stderr).toBe(0);
    expect(pr.stderr).not.toContain('password_env');
    // Without init's password_env on the base branch, the same pull request fails.
    await writeFile(join(dir, 'trusted/sitesync.yaml'), files['sitesync.yaml']!.replace(/ {4}password_env:\n {6}- HARBOR_\*\n/, ''));
    const without = await cli(['plan', '--trusted-config', 'trusted/sitesync.yaml'], { HARBOR_MEMBERS_HARBORFOODS_COM_PASSWORD: 'a-new-one-1234' });
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('${HARBOR_MEMBERS_HARBORFOODS_COM_PASSWORD}');
    expectNoSecret([pr.stdout, pr.stderr, without.stdout, without.stderr], ['a-new-one-1234', PASSWORD, KEYS.ACME_STATS_KEY]);
  });

  it('without a file: one account from SITESYNC_BASE_URL and SITESYNC_API_KEY, in a single-account sitesync.yaml', async () => {
    const emu = await emulator([KEYS.ACME_STATS_KEY]);
    emu.seed(KEYS.ACME_STATS_KEY, [{ domain: 'example.com' }, { domain: 'shop.example.com', privacy: 2, password: PASSWORD }, { domain: 'odd name.example.com' }]);
    const dir = await repository();
    const cli = (args: string[]) => runCliHere(args, { cwd: dir, env: { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEYS.ACME_STATS_KEY } });
    const init = await cli(['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('Wrote sitesync.yaml: 2 websites of the account');
    const files = await snapshot(dir);
    expect(Object.keys(files).sort()).toEqual(['.gitignore', 'sitesync.yaml']);
    const config = parse(files['sitesync.yaml']!);
    expect(config).toMatchObject({ version: 1, password_env: ['SITE_*'], ignore: ['odd name.example.com'] });
    expect(files['sitesync.yaml']).toContain('#   password: ${SITE_SHOP_EXAMPLE_COM_PASSWORD}');
    expectNoSecret([...Object.values(files), init.stdout, init.stderr], [KEYS.ACME_STATS_KEY, PASSWORD]);
    await expectClean(cli);
    const again = await cli(['init']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing written');
    expect(await snapshot(dir)).toEqual(files);
  });

  it('never replaces a file that is there: a person\'s .gitignore and a folder an account would get are left as is, and said', async () => {
    const emu = await emulator([KEYS.ACME_STATS_KEY, KEYS.BETA_STATS_KEY]);
    emu.seed(KEYS.ACME_STATS_KEY, [{ domain: 'acme.example' }]);
    emu.seed(KEYS.BETA_STATS_KEY, [{ domain: 'beta.example' }]);
    const dir = await repository();
    const mine = { '.gitignore': 'dist/\n', 'clients/acme/websites.yaml': 'websites: []\n' };
    await mkdir(join(dir, 'clients/acme'), { recursive: true });
    for (const [name, text] of Object.entries(mine)) await writeFile(join(dir, name), text);
    const accounts = `version: 1\naccounts:\n  acme:\n    base_url: ${emu.url}\n    api_key_env: ACME_STATS_KEY\n  beta:\n    base_url: ${emu.url}\n    api_key_env: BETA_STATS_KEY\n`;
    await writeFile(join(dir, 'sitesync.yaml'), accounts);
    const init = await runCliHere(['init'], { cwd: dir, env: KEYS });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain('account acme left as is: clients/acme/websites.yaml is there already');
    expect(init.stdout).toContain('Edited sitesync.yaml: include, password_env for account beta');
    const files = await snapshot(dir);
    expect(files['.gitignore']).toBe(mine['.gitignore']);
    expect(files['clients/acme/websites.yaml']).toBe(mine['clients/acme/websites.yaml']);
    expect(parse(files['sitesync.yaml']!).accounts.acme).toEqual({ base_url: emu.url, api_key_env: 'ACME_STATS_KEY' });
  });

  for (const provider of ['github', 'gitlab'] as const) {
    it(`--ci ${provider}: the recipes, their filters on the included folders, each account's key from its secret, every sitesync call one the CLI has`, async () => {
      const emu = await emulator([KEYS.ACME_STATS_KEY, KEYS.GLOBEX_STATS_KEY]);
      emu.seed(KEYS.ACME_STATS_KEY, [{ domain: 'acme.example' }]);
      const dir = await repository();
      await writeFile(
        join(dir, 'sitesync.yaml'),
        `version: 1\narchive: history\naccounts:\n  acme:\n    base_url: ${emu.url}\n    api_key_env: ACME_STATS_KEY\n  globex:\n    base_url: ${emu.url}\n    api_key_env: GLOBEX_STATS_KEY\n`,
      );
      // As a process: the bundle, which ships no examples/, carries the recipes.
      const init = await runCliHere(['init', '--ci', provider], { cwd: dir, env: KEYS, process: true });
      expect(init.code, init.stderr).toBe(0);
      const files = await snapshot(dir);
      const recipes = Object.keys(files).filter((f) => f.startsWith('.github/') || f === '.gitlab-ci.yml');
      expect(recipes.sort()).toEqual(
        provider === 'github' ? ['.github/workflows/sitesync-apply.yml', '.github/workflows/sitesync-drift.yml', '.github/workflows/sitesync-plan.yml'] : ['.gitlab-ci.yml'],
      );
      const surface = new CliSurface();
      for (const name of recipes) {
        const found = invocationsIn(files[name]!, name);
        expect(found.problems).toEqual([]);
        for (const inv of found.invocations) expect(await surface.lint(inv)).toEqual([]);
      }
      if (provider === 'github') {
        const plan = parse(files['.github/workflows/sitesync-plan.yml']!);
        expect(plan.on.pull_request_target.paths).toEqual(['sitesync.yaml', 'clients/**']);
        const apply = parse(files['.github/workflows/sitesync-apply.yml']!);
        expect(apply.on.push.paths).toEqual(['sitesync.yaml', 'clients/**']);
        const env = apply.jobs.apply.steps.find((s: { with?: { command?: string } }) => s.with?.command === 'apply').env;
        expect(env).toEqual({ ACME_STATS_KEY: '${{ secrets.ACME_STATS_KEY }}', GLOBEX_STATS_KEY: '${{ secrets.GLOBEX_STATS_KEY }}' });
      } else {
        const pipeline = parse(files['.gitlab-ci.yml']!);
        expect(pipeline['sitesync-validate'].rules[0].changes).toEqual(['sitesync.yaml', 'clients/**/*']);
        expect(pipeline['sitesync-apply'].rules[0].changes).toEqual(['sitesync.yaml', 'clients/**/*']);
        expect(pipeline['sitesync-apply'].artifacts.paths).toEqual(['history/']);
      }
      expectNoSecret(Object.values(files), Object.values(KEYS));
      // Again: nothing replaced.
      const again = await runCliHere(['init', '--ci', provider], { cwd: dir, env: KEYS });
      expect(again.stdout).toContain('Nothing written');
      expect(await snapshot(dir)).toEqual(files);
    }, 120_000);
  }
});

describe("init's edit of a person's file", () => {
  it('a left-alone name with an invisible character is escaped; the comments of the file keep theirs (an emoji with its joiner)', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const text = `version: 1\n# the ${family} account\naccounts:\n  acme:\n    base_url: https://stats.example.com\n    api_key_env: ACME_STATS_KEY\n`;
    const leftAlone = [{ list: 'ignore' as const, name: 'odd\u200B.example', note: ' a name no entry can write' }];
    const out = adoptAccounts(text, 'sitesync.yaml', [{ account: 'acme', include: 'clients/acme/*.yaml', passwordEnv: 'ACME_*', leftAlone }]);
    expect(out).toContain(`# the ${family} account\n`);
    expect(out).toContain('- "odd\\u200b.example"');
    expect(parse(out).accounts.acme.ignore).toEqual(['odd\u200B.example']);
  });
});
