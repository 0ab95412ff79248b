/**
 * The README's quick start, run as a reader runs it: its shell block, taken from the README,
 * line by line, in a folder holding the starter file. Two things differ, both forced by the test
 * machine: the emulator listens on a free port (the README's 8080 is replaced by it everywhere),
 * and `npx sitesync` is this checkout's CLI. The apply step runs on a real pseudo-terminal
 * (script(1)) and is answered "yes", as a person would.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, cleanEnv, root } from '../helpers/cli.js';

const readme = await readFile(join(root, 'README.md'), 'utf8');

function quickStart(): string {
  const at = readme.indexOf('\n## Quick start');
  const section = readme.slice(at + 1).split(/\n## /)[0]!;
  return /```sh\n([\s\S]*?)\n```/.exec(section)![1]!;
}

let emulator: ChildProcessWithoutNullStreams | undefined;
let dir = '';
afterAll(async () => {
  emulator?.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the README quick start', () => {
  it('runs as written: account, validate, plan, apply answered "yes", a clean second plan, export', async () => {
    const lines = quickStart()
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#'));
    const start = lines.shift()!;
    expect(start).toMatch(/^npx sitesync emulator --port 8080 --key demo-key\b/);

    dir = await mkdtemp(join(tmpdir(), 'sitesync-quick-start-'));
    await mkdir(join(dir, 'examples'));
    await copyFile(join(root, 'examples/sitesync.yaml'), join(dir, 'examples/sitesync.yaml'));

    // Step 1, in "a second terminal": the emulator, on a free port instead of 8080.
    const args = start.replace(/^npx sitesync /, '').replace('--port 8080', '--port 0').split(/\s+/);
    emulator = spawn(process.execPath, [bin, ...args], { cwd: dir, env: cleanEnv({ NO_COLOR: '1' }) });
    let banner = '';
    emulator.stdout.setEncoding('utf8').on('data', (d: string) => (banner += d));
    const port = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the emulator did not start: ${banner}`)), 10_000);
      emulator!.stdout.on('data', () => {
        const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(banner);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });

    // Steps 2 to 5, in the reader's own shell, stopping at the first command that fails.
    const script = [
      'set -e',
      `npx() { if [ "$1" = sitesync ]; then shift; "${process.execPath}" "${bin}" "$@"; else command npx "$@"; fi; }`,
      ...lines.map((l) => l.replaceAll('8080', port)),
      'echo "quick start: done"',
    ].join('\n');
    await writeFile(join(dir, 'quick-start.sh'), `${script}\n`);
    const shell = spawn('script', ['-qefc', 'bash quick-start.sh', '/dev/null'], { cwd: dir, env: cleanEnv({ TERM: 'dumb' }) });
    let out = '';
    shell.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('(yes/no)') && !shell.stdin.writableEnded) shell.stdin.end('yes\n');
    });
    const code = await new Promise<number | null>((resolve) => shell.on('close', resolve));

    expect(out, out).toContain('quick start: done');
    expect(code).toBe(0);
    expect(out).toContain('is valid');
    expect(out).toMatch(/Applied: \d+ created, \d+ updated, \d+ deleted, 0 failed\./);
    expect(out).toContain('exit 0');
    const exported = await readFile(join(dir, 'sitesync.yaml'), 'utf8');
    expect(exported).toContain('version: 1');
    expect(out).not.toContain('demo-key');
    expect(out).not.toContain('choose-one');
  }, 60_000);
});
