/**
 * A clone as a contributor has it after `npm ci` (which builds through `prepare`): the first
 * `npx sitesync` runs the CLI at once, without building again (npm links the clone into its npx
 * cache and runs `prepare` there, in the clone); and no build empties dist/, which a running test
 * suite reads (dist/dev/demo.js, dist/cli.js). Issue 39, item 8.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, root } from '../helpers/cli.js';

const exec = promisify(execFile);
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };

/** No network, an npx cache of its own, and nothing of the developer's npm settings. */
function offlineEnv(cache: string): Record<string, string> {
  const env = cleanEnv({});
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k];
  return { ...env, npm_config_cache: cache, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1' };
}

let dir: string;
let clone: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-npx-'));
  clone = join(dir, 'sitesync');
  for (const name of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.types.json', 'bin', 'scripts', 'schemas', 'src', 'bench', 'examples']) {
    await cp(join(root, name), join(clone, name), { recursive: true });
  }
  // What `npm ci` built (this tree's build, the same sources), and a test suite's file beside it.
  await cp(join(root, 'dist'), join(clone, 'dist'), { recursive: true });
  await writeFile(join(clone, 'dist/dev/in-use.txt'), 'a running suite reads dist/dev\n');
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a clone after npm ci', () => {
  // Without node_modules here: npx works in this folder's package.json and dist/ only, and nothing of this tree's is at stake.
  it('the first `npx sitesync` runs the built CLI without building again, and leaves dist/ as it was', async () => {
    const before = (await stat(join(clone, 'dist/cli.js'))).mtimeMs;
    const r = await exec('npx', ['sitesync', '--version'], { cwd: clone, env: offlineEnv(join(dir, 'npm-cache')), timeout: 120_000 });
    expect(r.stdout.trim()).toBe(manifest.version);
    expect(r.stdout + r.stderr).not.toMatch(/prepare|build\.mjs/);
    expect((await stat(join(clone, 'dist/cli.js'))).mtimeMs).toBe(before);
    expect(await readFile(join(clone, 'dist/dev/in-use.txt'), 'utf8')).toContain('running suite');
  }, 150_000);

  it('a build replaces what it builds and leaves the rest of dist/ (dist/dev under a running suite) in place', async () => {
    // The build's tools: this tree's packages, each linked (never this tree's node_modules itself, which npm may rework).
    await mkdir(join(clone, 'node_modules'));
    for (const name of await readdir(join(root, 'node_modules'))) await symlink(join(root, 'node_modules', name), join(clone, 'node_modules', name));
    await exec(process.execPath, [join(clone, 'scripts/build.mjs'), '--no-types'], { cwd: clone, env: cleanEnv({}), timeout: 120_000 });
    expect(await readFile(join(clone, 'dist/dev/in-use.txt'), 'utf8')).toContain('running suite');
    const cli = await exec(process.execPath, [join(clone, 'bin/sitesync.cjs'), '--version'], { cwd: clone, env: cleanEnv({}) });
    expect(cli.stdout.trim()).toBe(manifest.version);
  }, 150_000);
});
