/**
 * The package as users get it: `npm pack` (of the build the other tests run), installed from
 * the tarball into an empty "config repository" by the README's own commands, offline, then
 * `npx sitesync` and the library's example (docs/library.md) run there against the emulator. One tarball and
 * one install serve every test here.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, root } from '../helpers/cli.js';
import { codeBlocks, page, sectionBlock } from '../helpers/docs.js';

const exec = promisify(execFile);
const KEY = 'package-test-key-0123456789';
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
const tarball = `${manifest.name}-${manifest.version}.tgz`;
const readme = await readFile(join(root, 'README.md'), 'utf8');

/** The library's example: the first ```js block of docs/library.md. */
const libraryExample = (): string => {
  const block = codeBlocks(page('docs/library.md').tokens, 'js')[0];
  if (block === undefined) throw new Error('docs/library.md has no ```js block');
  return block;
};

const lock = async (repo: string) => JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as unknown;

/** No network, and nothing of the developer's npm or sitesync settings. */
function offlineEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = cleanEnv(extra);
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k];
  return { ...env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1' };
}

const sh = (script: string, cwd: string, env: Record<string, string>) =>
  exec('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, timeout: 120_000, maxBuffer: 10 * 1024 * 1024 });

let dir: string;
let clone: string;
let configRepo: string;
let emu: Emulator;
let packed: { files: Array<{ path: string }> };
let packing: { stdout: string; stderr: string };
let installed: { stdout: string; stderr: string };

/** What a clone holds that the build and the pack read; its node_modules are this tree's (what `npm ci` installs). */
const CLONE = ['package.json', 'package-lock.json', 'README.md', 'docs', 'tsconfig.json', 'tsconfig.types.json', 'bin', 'scripts', 'schemas', 'src', 'examples'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-package-'));
  clone = join(dir, 'sitesync');
  configRepo = join(dir, 'config');
  await mkdir(clone);
  await mkdir(configRepo);
  // Step 1 of the README, `npm ci && npm pack`, in a copy of this tree whose node_modules are
  // this tree's: npm's own pack, with its lifecycle (prepack builds and leaves the scripts out of
  // the packed package.json, postpack puts them back), and this tree's dist/ left alone.
  for (const name of CLONE) await cp(join(root, name), join(clone, name), { recursive: true });
  await symlink(join(root, 'node_modules'), join(clone, 'node_modules'));
  packing = await exec('npm', ['pack', '--json'], { cwd: clone, env: offlineEnv() });
  packed = (JSON.parse(packing.stdout) as Array<typeof packed>)[0]!;
  // An empty config repository, as `npm init` leaves it, with a one-website file.
  await writeFile(join(configRepo, 'package.json'), `${JSON.stringify({ name: 'config', version: '1.0.0', private: true }, null, 2)}\n`);
  await writeFile(join(configRepo, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: example.com\n    privacy: private\n');
  emu = await startEmulator({ keys: [KEY] });
  // Step 2 of the README, literally, up to the first sitesync command.
  const steps = sectionBlock('README.md', 'Install in your config repository', 'sh').split('# 2.')[1]!;
  const install = steps.split('\n').filter((line) => /^(mkdir|cp|npm|echo) /.test(line)).join('\n');
  installed = await sh(install, configRepo, offlineEnv());
}, 180_000);

afterAll(async () => {
  await emu?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the bundled CLI, the API types, the schema and the README, and no sources, tests or benches', () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'package.json', 'bin/sitesync.cjs', 'dist/cli.js', 'dist/api.js', 'dist/types/api.d.ts', 'schemas/sitesync.schema.json']),
    );
    expect(files.filter((f) => /^(src|test|bench|examples|scripts|dist\/dev)\//.test(f) || /\.map$/.test(f))).toEqual([]);
  });

  it("holds docs/, every page the README links to, so that node_modules/sitesync/README.md's links resolve", async () => {
    const files = packed.files.map((f) => f.path);
    const pages = (await readdir(join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    expect(pages.length).toBeGreaterThanOrEqual(8);
    expect(files).toEqual(expect.arrayContaining(pages));
    for (const link of readme.matchAll(/\]\((docs\/[^)#]+)/g)) expect(files).toContain(link[1]);
  });

  it('the README names the tarball that npm pack writes', () => {
    expect(sectionBlock('README.md', 'Install in your config repository', 'sh')).toContain(`npm pack                  # writes ${tarball}`);
    expect(readme).not.toMatch(/#v\d+\.\d+\.\d+/); // no git tag that does not exist
  });

  it('installs from the tarball offline, with no dependencies to fetch', async () => {
    const lock = JSON.parse(await readFile(join(configRepo, 'package-lock.json'), 'utf8'));
    expect(Object.keys(lock.packages).sort()).toEqual(['', 'node_modules/sitesync']);
    expect(lock.packages['node_modules/sitesync'].resolved).toBe(`file:vendor/${tarball}`);
    expect(JSON.parse(await readFile(join(configRepo, 'package.json'), 'utf8')).devDependencies).toEqual({ sitesync: `file:vendor/${tarball}` });
    expect(installed.stderr).not.toMatch(/ERR!/);
  });

  it('installs nothing to run: the packed package.json has no scripts, and npm warns of no install script', async () => {
    const installedManifest = JSON.parse(await readFile(join(configRepo, 'node_modules/sitesync/package.json'), 'utf8'));
    expect(installedManifest.scripts).toBeUndefined();
    await expect(lock(configRepo)).resolves.not.toHaveProperty('packages.node_modules/sitesync.hasInstallScript');
    // The README's step keeps the install out of the config repository's git.
    expect(await readFile(join(configRepo, '.gitignore'), 'utf8')).toBe('node_modules/\n');
    expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/install.scripts?|prepare/i);
  });

  it("the pack ran npm's lifecycle in the clone: built once (prepack, no prepare), its package.json put back as it was", async () => {
    expect(packing.stderr).toMatch(/> sitesync@[^ ]+ prepack\n/);
    expect(packing.stderr).toMatch(/> sitesync@[^ ]+ postpack\n/);
    expect(packing.stderr).not.toMatch(/> sitesync@[^ ]+ prepare\n/);
    expect(await readFile(join(clone, 'package.json'), 'utf8')).toBe(await readFile(join(root, 'package.json'), 'utf8'));
    expect((await readdir(clone)).filter((f) => f.startsWith('.package.json'))).toEqual([]);
    // A clone's `npm ci` still builds sitesync (the README's set-up): through prepare.
    expect(JSON.parse(await readFile(join(clone, 'package.json'), 'utf8')).scripts.prepare).toBe('node scripts/build.mjs');
  });
});

describe("the README's install instructions, followed in an empty config repository", () => {
  const run = (command: string) =>
    sh(command, configRepo, offlineEnv({ SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY })).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('npx sitesync validate checks the file', async () => {
    const r = await run('npx sitesync validate');
    expect(r.stderr.replace(/^npm warn .*\n/gm, '')).toBe(''); // npm's own notes about this machine's npmrc
    expect(r.stdout).toBe('✓ sitesync.yaml is valid: 1 website.\n');
  });

  it('npx sitesync plan shows the plan against the emulator', async () => {
    const r = await run('npx sitesync plan');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('+ create example.com');
    expect(r.stdout).toContain('Plan: 1 to create, 0 to update, 0 to delete (0 unchanged, 0 unmanaged).');
  });

  it('npx sitesync --version says the packed version', async () => {
    expect((await run('npx sitesync --version')).stdout).toBe(`${manifest.version}\n`);
  });

  it('the completion script works through npx', async () => {
    const r = await run('npx sitesync --get-yargs-completions sitesync pl');
    expect(r.stdout.split('\n')).toContain('plan');
  });
});

describe("the library's example (docs/library.md), run from the installed package", () => {
  it('plans, shows the plan and applies it against the emulator', async () => {
    await writeFile(join(configRepo, 'sync.mjs'), libraryExample());
    const env = offlineEnv({ SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY });
    const first = await exec(process.execPath, ['sync.mjs'], { cwd: configRepo, env });
    expect(first.stdout).toContain('+ create example.com');
    expect(first.stdout).toContain('created 1, updated 0, deleted 0, failed 0');
    const again = await exec(process.execPath, ['sync.mjs'], { cwd: configRepo, env });
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete (1 unchanged, 0 unmanaged).');
    expect(again.stdout).not.toContain('created');
  });

  // TypeScript's compiler, run on the installed package by nature: a few seconds of CPU quiet,
  // past 30 s beside a second suite (the lead's baseline run).
  it('type-checks against the installed .d.ts files, strictly and without skipping them', { timeout: 120_000 }, async () => {
    await writeFile(join(configRepo, 'sync.mjs'), libraryExample());
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--allowJs', '--checkJs', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    const types = ['--types', 'node', '--typeRoots', join(root, 'node_modules/@types')];
    const r = await exec(process.execPath, [tsc, ...args, ...types, 'sync.mjs'], { cwd: configRepo }).catch((e: { stdout: string }) => e);
    expect(r.stdout).toBe('');
  });
});
