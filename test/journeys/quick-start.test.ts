/**
 * The README's quick start, run as a reader runs it: its shell block, taken from the README,
 * line by line, in a folder holding the starter file. Two things differ, both forced by the test
 * machine: each emulator listens on a free port (the README's 8080 and 8081 are replaced by them everywhere),
 * and `npx sitesync` is this checkout's CLI. The apply step runs on a real pseudo-terminal
 * (script(1)) and is answered "yes", as a person would.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, cleanEnv, root } from '../helpers/cli.js';
import { sectionBlock } from '../helpers/docs.js';

/** The quick start's shell block, as the README shows it. */
const quickStart = (): string => sectionBlock('README.md', 'Quick start (5 minutes, against the bundled emulator)', 'sh');

const emulators: ChildProcessWithoutNullStreams[] = [];
let dir = '';
afterAll(async () => {
  for (const emulator of emulators) emulator.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Starts `npx sitesync emulator …` as "another terminal" would, on a free port; resolves to that port. */
async function startEmulatorLine(line: string): Promise<string> {
  const args = line.replace(/^npx sitesync /, '').replace(/--port \d+/, '--port 0').split(/\s+/);
  const emulator = spawn(process.execPath, [bin, ...args], { cwd: dir, env: cleanEnv({ NO_COLOR: '1' }) });
  emulators.push(emulator);
  let banner = '';
  emulator.stdout.setEncoding('utf8').on('data', (d: string) => (banner += d));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator did not start: ${banner}`)), 10_000);
    emulator.stdout.on('data', () => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(banner);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
}

describe('the README quick start', () => {
  it('runs as written: account, validate, plan, apply answered "yes", a clean second plan, export, a delete with its traffic, its archive, many accounts', async () => {
    const all = quickStart()
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#'));
    expect(all[0]).toMatch(/^npx sitesync emulator --port 8080 --key demo-key\b/);

    dir = await mkdtemp(join(tmpdir(), 'sitesync-quick-start-'));
    await cp(join(root, 'examples'), join(dir, 'examples'), { recursive: true });

    // Each emulator, in "another terminal", on a free port instead of the README's.
    const ports = new Map<string, string>();
    const lines: string[] = [];
    for (const line of all.map((l) => l.trim())) {
      if (!line.startsWith('npx sitesync emulator')) {
        lines.push(line);
        continue;
      }
      const written = /--port (\d+)/.exec(line)![1]!;
      ports.set(written, await startEmulatorLine(line));
    }
    expect([...ports.keys()]).toEqual(['8080', '8081']);
    const withPorts = (l: string) => [...ports].reduce((text, [from, to]) => text.replaceAll(`127.0.0.1:${from}`, `127.0.0.1:${to}`), l);
    // The files the commands read name the README's ports too.
    for (const file of ['examples/sitesync.yaml', 'examples/accounts/sitesync.yaml']) {
      await writeFile(join(dir, file), withPorts(await readFile(join(dir, file), 'utf8')));
    }

    // Steps 2 to 5, in the reader's own shell, stopping at the first command that fails.
    const script = [
      'set -e',
      `npx() { if [ "$1" = sitesync ]; then shift; "${process.execPath}" "${bin}" "$@"; else command npx "$@"; fi; }`,
      ...lines.map(withPorts),
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
    expect(out).toMatch(/Total for 3 accounts: \d+ changes applied, 0 failed\./);
    // Step 4: the month's pageviews against the plan's limit (the emulator's --plan-pageviews).
    expect(out).toMatch(/Month\s+[\d,]+ of 10,000 pageviews \(/);
    // Step 6: a delete says what it destroys (the emulator's --traffic gave the website a history).
    expect(out).toMatch(/- delete blog\.example\.com \(id \d+\)\r?\n\s+! destroys 12,340 pageviews recorded, [\d,]+ in the last 30 days/);
    // Step 7: its archive, by hand and by apply before the delete.
    expect(out).toContain('Archived 1 website.');
    expect(out).toMatch(/✓ delete blog\.example\.com \(id \d+\) \(archived first: archives\/blog\.example\.com-\d+-\d{4}-\d{2}-\d{2}\.json\)/);
    for (const key of ['demo-key', 'beta-key', 'globex-key']) expect(out).not.toContain(key);
    expect(out).not.toContain('choose-one');
  }, 180_000); // two emulators and some twenty CLI runs: minutes on a loaded machine
});
