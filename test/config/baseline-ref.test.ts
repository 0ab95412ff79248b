/**
 * `--baseline-ref REF`: the config file and every file it includes as they were at a git
 * revision, read from git's objects (no checkout), compared as `--baseline FILE` is. What the
 * apply after a merge needs so that a write-only change the pull request showed is sent.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan, loadConfig, loadWorkspace, plan, readLiveState } from '../../src/api.js';
import { git } from '../ci/pull-request-repo.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

const MAIN = 'version: 1\ninclude: [clients/*.yaml]\nwebsites: []\n';
const shop = (pw: string, params: string[]) =>
  `websites:\n  - domain: shop.example.com\n    privacy: password\n    password: \${${pw}}\n    exclude_params: [${params.join(', ')}]\n`;
const ENV = { PW_OLD: 'old-secret-1', PW_NEW: 'new-secret-2' };

async function writeAll(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** A repository whose first commit is applied (deployed profile: no exclude_params returned), then `change` committed on top. */
async function repository(change: Record<string, string>): Promise<Scenario> {
  const s = await scenario();
  await writeAll(s.dir, { 'sitesync.yaml': MAIN, 'clients/shop.yaml': shop('PW_OLD', ['utm_source']) });
  git(s.dir, 'init', '-q', '-b', 'main');
  git(s.dir, 'add', '.');
  git(s.dir, 'commit', '-q', '-m', 'shop');
  const first = await s.cli(['apply', '--auto-approve'], { env: ENV });
  expect(first.code, first.stderr).toBe(0);
  await writeAll(s.dir, change);
  git(s.dir, 'add', '.');
  git(s.dir, 'commit', '-q', '-m', 'change');
  s.emu.resetStats();
  return s;
}

describe('apply --baseline-ref sends what changed since the revision', () => {
  it('a rotated password and an exclude_params change in an included file reach the service through --baseline-ref HEAD~1; HEAD sends nothing', async () => {
    sc = await repository({ 'clients/shop.yaml': shop('PW_NEW', ['utm_source', 'fbclid']) });
    // Without a baseline neither change can be seen: the service returns neither field.
    const plain = await sc.cli(['plan', '--detailed-exitcode'], { env: ENV });
    expect(plain.code, plain.stderr).toBe(0);

    const same = await sc.cli(['apply', '--auto-approve', '--baseline-ref', 'HEAD'], { env: ENV });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('No changes');
    expect(writes(sc.emu)).toEqual([]);

    const r = await sc.cli(['apply', '--auto-approve', '--baseline-ref', 'HEAD~1'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/~ update shop\.example\.com \(id 1\)\s+\(clients\/shop\.yaml:2\)/);
    expect(r.stdout).toMatch(/password .*changed since the baseline/);
    expect(r.stdout).toMatch(/exclude_params .*changed since the baseline/);
    expect(writes(sc.emu)).toEqual(['PATCH /api/v1/websites/1 200']);
    const stored = sc.emu.websites(KEY)[0]!;
    expect(stored.password).toBe(ENV.PW_NEW);
    expect(stored.exclude_params).toBe('utm_source\nfbclid');
    // Nothing of the work tree was touched: git sees no change.
    expect(git(sc.dir, 'status', '--porcelain')).toBe('');
    for (const text of [plain, same, r].flatMap((run) => [run.stdout, run.stderr])) for (const value of Object.values(ENV)) expect(text).not.toContain(value);
  });

  it('reads the revision from git objects, not the work tree: an uncommitted rotation is sent against HEAD', async () => {
    sc = await repository({ 'README.md': 'clients\n' });
    await writeFile(join(sc.dir, 'clients/shop.yaml'), shop('PW_NEW', ['utm_source']));
    const r = await sc.cli(['plan', '--baseline-ref', 'HEAD', '--format', 'json'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: { details: { field: string; write_only?: string }[] }[] };
    expect(plan.changes[0]!.details.map((d) => [d.field, d.write_only])).toEqual([
      ['password', 'baseline'],
      ['exclude_params', 'with-update'],
    ]);
  });

  it('a file included since the revision (matched by the same glob) is new: its write-only fields are sent', async () => {
    sc = await repository({ 'clients/blog.yaml': 'websites:\n  - domain: blog.example.com\n    exclude_params: [ref]\n' });
    await sc.emu.seed(KEY, [{ domain: 'blog.example.com' }]);
    const r = await sc.cli(['plan', '--baseline-ref', 'HEAD~1'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/~ update blog\.example\.com .*\n\s+exclude_params .*changed since the baseline/);
    expect(r.stdout).not.toContain('shop.example.com');
  });

  it('a config file the revision does not hold had nothing: everything in it is new, and a note says so', async () => {
    sc = await repository({ 'other.yaml': 'version: 1\nwebsites:\n  - domain: shop.example.com\n    password: ${PW_NEW}\n' });
    const r = await sc.cli(['plan', '-c', 'other.yaml', '--baseline-ref', 'HEAD~1'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Note: other.yaml is not in HEAD~1: everything in it is new since, so every write-only field it sets is sent.');
    expect(r.stdout).toMatch(/password .*changed since the baseline/);
  });
});

describe('--baseline-ref in a file with accounts', () => {
  it('each account against its own baseline: a rotation in one is sent, an account added since is all new', async () => {
    sc = await scenario({ keys: [KEY, 'sk-test-BETA-KEY-0123456789'] });
    const acme = (pw: string) => `  acme:\n    base_url: ${sc!.emu.url}\n    api_key_env: ACME_KEY\n    websites:\n      - domain: shop.example.com\n        password: \${${pw}}\n`;
    const beta = `  beta:\n    base_url: ${sc.emu.url}\n    api_key_env: BETA_KEY\n    websites:\n      - domain: beta.example.com\n        exclude_params: [ref]\n`;
    const env = { ...ENV, ACME_KEY: KEY, BETA_KEY: 'sk-test-BETA-KEY-0123456789' };
    await writeAll(sc.dir, { 'sitesync.yaml': `version: 1\naccounts:\n${acme('PW_OLD')}` });
    git(sc.dir, 'init', '-q', '-b', 'main');
    git(sc.dir, 'add', '.');
    git(sc.dir, 'commit', '-q', '-m', 'acme');
    expect((await sc.cli(['apply', '--auto-approve'], { env })).code).toBe(0);
    sc.emu.seed('sk-test-BETA-KEY-0123456789', [{ domain: 'beta.example.com' }]);
    await writeAll(sc.dir, { 'sitesync.yaml': `version: 1\naccounts:\n${acme('PW_NEW')}${beta}` });
    git(sc.dir, 'commit', '-q', '-am', 'rotate, and beta');
    const r = await sc.cli(['plan', '--baseline-ref', 'HEAD~1', '--format', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: { account: string; details: { field: string; write_only?: string }[] }[] };
    expect(plan.changes.map((c) => [c.account, c.details.map((d) => `${d.field} ${d.write_only}`)])).toEqual([
      ['acme', ['password baseline']],
      ['beta', ['exclude_params baseline']],
    ]);
  });
});

describe('what --baseline-ref refuses, in words, before any request', () => {
  it('an unknown revision, a folder outside git, and --baseline with --baseline-ref', async () => {
    sc = await repository({ 'clients/shop.yaml': shop('PW_NEW', ['utm_source']) });
    const unknown = await sc.cli(['plan', '--baseline-ref', 'no-such-branch'], { env: ENV });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`Error: --baseline-ref no-such-branch: no such commit in the repository at `);
    const both = await sc.cli(['plan', '--baseline-ref', 'HEAD', '--baseline', 'sitesync.yaml'], { env: ENV });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--baseline and --baseline-ref both give the baseline: give one');
    const option = await sc.cli(['plan', '--baseline-ref=--output=x'], { env: ENV });
    expect(option.stderr).toContain('--baseline-ref "--output=x" is not a name of a git revision');
    const saved = await sc.cli(['apply', 'plan.json', '--baseline-ref', 'HEAD~1'], { env: ENV });
    expect(saved.stderr).toContain('a saved plan is applied exactly as it was made: --baseline-ref cannot change it');
    expect(sc.emu.stats.log).toEqual([]);

    await rm(join(sc.dir, '.git'), { recursive: true, force: true });
    const outside = await sc.cli(['plan', '--baseline-ref', 'HEAD'], { env: ENV });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain(`Error: --baseline-ref HEAD: ${join(sc.dir, 'sitesync.yaml')} is not in a git repository (the baseline is read from the repository that holds the config file)`);
    expect(sc.emu.stats.log).toEqual([]);
  });

  // By nature heavy: git lists 256 MiB of names, and sitesync reads them to its cap, to see them
  // refused: about 10 s of CPU between them (measured); beside a second suite on two cores, minutes.
  it('a tree whose listing has no bound (paths of megabytes, or gigabytes of names from a push of kilobytes) costs seconds: refused in words, nothing sent', { timeout: 180_000 }, async () => {
    sc = await repository({ 'clients/shop.yaml': shop('PW_NEW', ['utm_source']) });
    const dir = sc.dir;
    const mktree = (entries: string) => execFileSync('git', ['mktree'], { cwd: dir, input: entries, encoding: 'utf8' }).trim();
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: 'x\n', encoding: 'utf8' }).trim();
    const commitWith = (tree: string) => {
      const top = execFileSync('git', ['ls-tree', 'HEAD'], { cwd: dir, encoding: 'utf8' });
      return git(dir, 'commit-tree', mktree(`${top}040000 tree ${tree}\tzz\n`), '-m', 'trees').trim();
    };
    // A path of 4,267 bytes: 17 folders of a 250-character name.
    let deep = mktree(`100644 blob ${blob}\tf\n`);
    for (let i = 0; i < 17; i++) deep = mktree(`040000 tree ${deep}\t${'n'.repeat(250)}\n`);
    // 131,072 files of 3,800-byte paths: 500 MB of names, from some 30 small trees.
    let wide = mktree(`100644 blob ${blob}\tf\n`);
    for (let i = 0; i < 17; i++) wide = mktree(`040000 tree ${wide}\ta\n040000 tree ${wide}\tb\n`);
    for (let i = 0; i < 14; i++) wide = mktree(`040000 tree ${wide}\t${'w'.repeat(250)}\n`);
    for (const [tree, said] of [
      [deep, 'holds a path longer than 4,096 bytes, which no checkout could hold'],
      [wide, 'lists more than 256 MiB of file names, more than any repository of configs'],
    ] as const) {
      const ref = commitWith(tree);
      const r = await sc.cli(['plan', '--baseline-ref', ref], { env: ENV });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`the tree at ${ref} ${said}: sitesync reads none of it`);
    }
    expect(sc.emu.stats.log).toEqual([]);
  });

  it("the revision's files are checked as the work tree's: problems name REF:PATH, a link is not followed, nothing outside is read", async () => {
    sc = await repository({
      'clients/shop.yaml': 'websites:\n  - domain: shop.example.com\n    privcy: public\n',
    });
    // The revision's own problem, at its line, named as git names a file at a revision.
    await writeFile(join(sc.dir, 'clients/shop.yaml'), shop('PW_NEW', ['utm_source']));
    const bad = await sc.cli(['plan', '--baseline-ref', 'HEAD'], { env: ENV });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('HEAD:clients/shop.yaml:3:5: unknown key "privcy" in websites[0] (did you mean "privacy"?)');

    // A link at the revision is not walked into (as on disk); a glob it alone matches matches no file.
    await symlink('shop.yaml', join(sc.dir, 'clients/linked.yaml'));
    await writeFile(join(sc.dir, 'sitesync.yaml'), 'version: 1\ninclude: [clients/linked.yaml]\nwebsites: []\n');
    git(sc.dir, 'add', '.');
    git(sc.dir, 'commit', '-q', '-m', 'link');
    await writeFile(join(sc.dir, 'sitesync.yaml'), MAIN);
    const linked = await sc.cli(['plan', '--baseline-ref', 'HEAD'], { env: ENV });
    expect(linked.stderr).toContain('HEAD:sitesync.yaml:2:11: include "clients/linked.yaml" matches no file');

    await writeFile(join(sc.dir, 'sitesync.yaml'), 'version: 1\ninclude: [../*.yaml]\nwebsites: []\n');
    git(sc.dir, 'commit', '-q', '-am', 'outside');
    await writeFile(join(sc.dir, 'sitesync.yaml'), MAIN);
    const outside = await sc.cli(['plan', '--baseline-ref', 'HEAD'], { env: ENV });
    expect(outside.stderr).toContain('HEAD:sitesync.yaml:2:11: include "../*.yaml": it names files outside the repository');

    // A file too large at the revision is refused by its size, before it is read, and named once.
    await writeFile(join(sc.dir, 'clients/big.yaml'), `websites: []\n#${' '.repeat(17 * 1024 * 1024)}\n`);
    git(sc.dir, 'add', '.');
    git(sc.dir, 'commit', '-q', '-m', 'big');
    await rm(join(sc.dir, 'clients/big.yaml'));
    const big = await sc.cli(['plan', '--baseline-ref', 'HEAD'], { env: ENV });
    expect(big.stderr).toMatch(/^HEAD:clients\/big\.yaml: the file is 17\.0 MiB at HEAD; an included file may be at most 16 MiB$/m);
    expect(sc.emu.stats.log).toEqual([]);
  });
});


describe('the library reads a revision as the CLI does', () => {
  it('loadConfig(file, { ref }) is the baseline that sends a rotated password; a file added since lists nothing', async () => {
    sc = await repository({ 'clients/shop.yaml': shop('PW_NEW', ['utm_source']) });
    const file = join(sc.dir, 'sitesync.yaml');
    const options = { baseUrl: sc.emu.url, apiKey: KEY, env: { PW_NEW: ENV.PW_NEW }, autoApprove: true };
    const config = await loadConfig(file, { env: options.env });
    // PW_OLD is not set: a baseline's passwords compare as written.
    const baseline = await loadConfig(file, { ref: 'HEAD~1', env: options.env });
    expect(baseline.websites.map((w) => w.password?.template)).toEqual(['${PW_OLD}']);
    const planned = await plan(config, await readLiveState(config, options), { ...options, baseline });
    expect(planned.changes.map((c) => [c.domain, c.fields])).toEqual([['shop.example.com', ['password', 'exclude_params']]]);
    await applyPlan(planned, config, options);
    expect(sc.emu.websites(KEY)[0]!.password).toBe(ENV.PW_NEW);

    await writeFile(join(sc.dir, 'new.yaml'), 'version: 1\nwebsites: []\n');
    expect(await loadWorkspace(join(sc.dir, 'new.yaml'), { ref: 'HEAD' })).toMatchObject({ configs: [] });
    expect((await loadConfig(join(sc.dir, 'new.yaml'), { ref: 'HEAD' })).websites).toEqual([]);
  });
});
