/**
 * How the shipped CLI starts (bin/sitesync.cjs running dist/*.cjs with V8's code cache; see
 * scripts/build.mjs), seen from outside: which of its scripts a command loads, read from the
 * cache files each run leaves, and that a cache is used, never trusted blindly, and never kept
 * where another user could write. The start-up goals of issue 14 depend on all of it, and a
 * stray import would silently undo them.
 */
import { chmod, mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
let cache: string;
beforeEach(async () => {
  s = await scenario();
  cache = join(s.dir, 'compile-cache');
  s.emu.seed(KEY, [{ domain: 'example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
  await s.write('version: 1\nwebsites:\n  - domain: example.com\n');
});
afterEach(async () => {
  await s?.close();
});

/** The cache files, by script: `{ cli: ['validate'], undici: [] }`. */
async function cached(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = { cli: [], undici: [], yargs: [] };
  const [versionDir] = await readdir(join(cache, 'sitesync'));
  for (const name of await readdir(join(cache, 'sitesync', versionDir!))) {
    // SCRIPT-BUILD-COMMAND.bin, BUILD being the build's hash of the script, its size and time.
    const [, script, command] = /^(\w+)-[0-9a-f]{16}\.\d+\.\d+-(\w+)\.bin$/.exec(name)!;
    out[script!]!.push(command!);
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

const run = (args: string[], env: Record<string, string> = {}) => s.cli(args, { env: { NODE_COMPILE_CACHE: cache, ...env } });

describe('start-up', () => {
  it('validate loads neither the HTTP client nor yargs, plan loads the client but not yargs, and only help loads yargs', async () => {
    expect((await run(['validate'])).code).toBe(0);
    expect(await cached()).toEqual({ cli: ['validate'], undici: [], yargs: [] });
    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(await cached()).toEqual({ cli: ['plan', 'validate'], undici: ['plan'], yargs: [] });
    const help = await run(['plan', '--help']);
    expect(help.stdout).toContain('--detailed-exitcode');
    expect((await cached()).yargs).toEqual(['plan']);
  });

  it("plan loads none of Node's HTTP/2, TLS and crypto modules, which an http:// service never needs", async () => {
    // Node's own list of the modules a process loaded, written as it exits.
    const preload = join(s.dir, 'modules.cjs');
    const list = join(s.dir, 'modules.txt');
    await writeFile(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`);
    const plan = await run(['plan', '--detailed-exitcode'], { NODE_OPTIONS: `--require ${JSON.stringify(preload)}` });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    const loaded = (await readFile(list, 'utf8')).split('\n').map((line) => line.replace(/^NativeModule /, ''));
    expect(loaded).toContain('http');
    expect(loaded.filter((name) => /^(http2|tls|crypto|internal\/http2\/.*|internal\/crypto\/.*)$/.test(name))).toEqual([]);
  });

  it('plan parses a large file on a worker thread that runs the same bundle from a code cache of its own', async () => {
    // About 200 KB: over the size from which plan parses on a worker.
    await s.write(`version: 1\nwebsites:\n${Array.from({ length: 5000 }, (_, i) => `  - domain: site-${i}.example.com\n`).join('')}`);
    const first = await run(['plan']);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain('Plan: 5000 to create, 0 to update, 0 to delete (0 unchanged, 1 unmanaged).');
    expect(await cached()).toEqual({ cli: ['plan', 'worker'], undici: ['plan'], yargs: [] });
    const [dir] = await readdir(join(cache, 'sitesync'));
    const worker = join(cache, 'sitesync', dir!, (await readdir(join(cache, 'sitesync', dir!))).find((name) => name.endsWith('-worker.bin'))!);
    const own = join(cache, 'sitesync', dir!, (await readdir(join(cache, 'sitesync', dir!))).find((name) => /^cli-.*-plan\.bin$/.test(name))!);
    const made = (await stat(worker)).mtimeMs;
    const planMade = (await stat(own)).mtimeMs;
    expect((await run(['plan'])).stdout).toContain('Plan: 5000 to create');
    // Both starts used their caches: V8 accepted them (starting the worker changes no V8 flag), so neither was written again.
    expect((await stat(worker)).mtimeMs).toBe(made);
    expect((await stat(own)).mtimeMs).toBe(planMade);
  });

  it('the argument that makes a worker of sitesync is, on the command line, a mistake like any other (no waiting for a message)', async () => {
    const r = await run(['--sitesync-parse-worker']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Say which command to run');
  });

  it('a second start uses the compiled code the first kept, and a damaged cache is compiled again, not run', async () => {
    expect((await run(['validate'])).code).toBe(0);
    const [dir] = await readdir(join(cache, 'sitesync'));
    const [file] = await readdir(join(cache, 'sitesync', dir!));
    const path = join(cache, 'sitesync', dir!, file!);
    const first = await stat(path);
    const again = await run(['validate']);
    expect(again.stdout).toBe('✓ sitesync.yaml is valid: 1 website.\n');
    // V8 accepted it: a cache it refuses is written anew.
    expect((await stat(path)).mtimeMs).toBe(first.mtimeMs);

    await writeFile(path, Buffer.alloc(first.size, 7));
    const damaged = await run(['validate']);
    expect(damaged.stdout).toBe('✓ sitesync.yaml is valid: 1 website.\n');
    expect(damaged.stderr).toBe('');
    expect(await readFile(path)).not.toEqual(Buffer.alloc(first.size, 7));
  });

  it("removes another build's caches made more than a week ago and half-written ones, and keeps the recent ones another version may be using", async () => {
    expect((await run(['validate'])).code).toBe(0);
    const [dir] = await readdir(join(cache, 'sitesync'));
    const folder = join(cache, 'sitesync', dir!);
    const [own] = await readdir(folder);
    await rm(join(folder, own!));
    const old = join(folder, 'cli-0123456789abcdef.1.1-plan.bin');
    const recent = join(folder, 'cli-fedcba9876543210.1.1-plan.bin');
    // What a run of this very build leaves when it dies between writing a cache and renaming it.
    const halfWritten = join(folder, `${own!}.4242`);
    await writeFile(old, 'x');
    await writeFile(recent, 'x');
    await writeFile(halfWritten, 'x');
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    await utimes(old, eightDaysAgo, eightDaysAgo);
    await utimes(halfWritten, eightDaysAgo, eightDaysAgo);
    expect((await run(['validate'])).code).toBe(0);
    expect((await readdir(folder)).sort()).toEqual([own!, 'cli-fedcba9876543210.1.1-plan.bin'].sort());
  });

  it("keeps this build's caches of every script and command however old, since using a cache does not touch it", async () => {
    expect((await run(['plan', '--detailed-exitcode'])).code).toBe(0);
    expect((await run(['validate'])).code).toBe(0);
    const [dir] = await readdir(join(cache, 'sitesync'));
    const folder = join(cache, 'sitesync', dir!);
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const name of await readdir(folder)) await utimes(join(folder, name), eightDaysAgo, eightDaysAgo);
    // A run that writes a cache (fmt has none yet) looks for stale ones: plan's of cli and undici stay.
    expect((await run(['fmt', '--check'])).code).toBe(0);
    expect(await cached()).toEqual({ cli: ['fmt', 'plan', 'validate'], undici: ['plan'], yargs: [] });
  });

  it('a mistyped command leaves no cache of its own (each typo would pile up another)', async () => {
    for (const typo of ['vaildate', 'pln']) expect((await run([typo])).stderr).toContain('did you mean');
    expect((await run(['validate'])).code).toBe(0);
    expect(await cached()).toEqual({ cli: ['validate'], undici: [], yargs: [] });
  });

  it("removes stale caches past entries it cannot remove, and an older Node's folder once its caches are a week old", async () => {
    expect((await run(['validate'])).code).toBe(0);
    const versions = join(cache, 'sitesync');
    const [dir] = await readdir(versions);
    const folder = join(versions, dir!);
    const [own] = await readdir(folder);
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    const old = join(folder, 'cli-0123456789abcdef.1.1-plan.bin');
    await writeFile(old, 'x');
    await utimes(old, eightDaysAgo, eightDaysAgo);
    // Entries no run of sitesync makes: a link to nothing and an old folder, which stay.
    await symlink('/nonexistent', join(folder, 'a-link'));
    await mkdir(join(folder, 'a-folder'));
    await utimes(join(folder, 'a-folder'), eightDaysAgo, eightDaysAgo);
    // What an older Node left, and a folder that is not a Node version's.
    for (const other of ['v20.19.0-x64', 'not-a-version']) {
      await mkdir(join(versions, other));
      await writeFile(join(versions, other, 'cli-x-plan.bin'), 'x');
      await utimes(join(versions, other, 'cli-x-plan.bin'), eightDaysAgo, eightDaysAgo);
    }
    await rm(join(folder, own!));
    expect((await run(['validate'])).code).toBe(0);
    expect((await readdir(folder)).sort()).toEqual([own!, 'a-folder', 'a-link'].sort());
    expect((await readdir(versions)).sort()).toEqual([dir!, 'not-a-version'].sort());
  });

  it('keeps no cache where another user may write, nor with NODE_DISABLE_COMPILE_CACHE', async () => {
    await mkdir(join(cache, 'sitesync'), { recursive: true });
    await chmod(join(cache, 'sitesync'), 0o777);
    expect((await run(['validate'])).code).toBe(0);
    expect(await readdir(join(cache, 'sitesync'))).toEqual([expect.stringMatching(/^v\d/)]);
    const [dir] = await readdir(join(cache, 'sitesync'));
    expect(await readdir(join(cache, 'sitesync', dir!))).toEqual([]);

    await rm(cache, { recursive: true });
    const off = await run(['validate'], { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.code).toBe(0);
    await expect(stat(cache)).rejects.toThrow();
  });

  it('the client uses only the parts of undici that the bundle gives it', async () => {
    // scripts/build.mjs gives the CLI undici's Pool, Agent and errors (not its index, all of undici).
    const build = await readFile(join(root, 'scripts/build.mjs'), 'utf8');
    const given = [...build.matchAll(/^\s+(\w+): require\('undici\/lib\//gm)].map((m) => m[1]);
    expect(given.sort()).toEqual(['Agent', 'Pool', 'errors']);
    const used = new Set<string>();
    for (const file of await sources(join(root, 'src'))) {
      const text = await readFile(file, 'utf8');
      for (const m of text.matchAll(/^import \{([^}]*)\} from 'undici';/gm)) {
        for (const name of m[1]!.split(',')) if (!/^\s*type /.test(name) && name.trim()) used.add(name.trim().split(/\s+as\s+/)[0]!);
      }
      expect(text, file).not.toMatch(/^import \w+ from 'undici'|^import \* as \w+ from 'undici'/m);
    }
    expect([...used].every((name) => given.includes(name)), [...used].join(', ')).toBe(true);
  });
});

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}
