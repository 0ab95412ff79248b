/**
 * The small things that each cost a new user minutes (issue 39, item 11): Ctrl-C at apply's
 * question exits 130; a "y" is told that only "yes" applies; `fmt -c FILE` as every command takes
 * its file; `validate FILE` points at -c; `apply --dry-run` points at plan; `--color` colours a pipe.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { bin, cleanEnv } from '../helpers/cli.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const FILE = 'version: 1\nwebsites:\n  - domain: a.example.com\n';

describe("apply's question", () => {
  it('Ctrl-C at the question on a real terminal (script(1)) exits 130, nothing written', async () => {
    s = await scenario();
    await s.write(FILE);
    const env = cleanEnv({ SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY, TERM: 'dumb' });
    const child = spawn('script', ['-qefc', `${process.execPath} ${bin} apply`, '/dev/null'], { cwd: s.dir, env });
    let out = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // The terminal's interrupt character: the terminal sends SIGINT to the command.
      if (out.includes('(yes/no)') && !sent) {
        sent = true;
        child.stdin.write('\x03');
      }
    });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(out).toContain('nothing was written');
    expect(code).toBe(130);
    expect(writes(s.emu)).toEqual([]);
  });

  it('a "y" is cancelled with the reason: only "yes", in full, applies', async () => {
    s = await scenario();
    await s.write(FILE);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let out = '';
    const stdout = { write: (t: string) => ((out += t), true), isTTY: false };
    const running = main(['apply'], { stdin, stdout, stderr: stdout, env: { SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY }, cwd: s.dir });
    while (!out.includes('(yes/no)')) await new Promise((r) => setTimeout(r, 10));
    stdin.write('y\n');
    expect(await running).toBe(1);
    expect(out).toContain('apply was cancelled; nothing was written (only "yes", in full, applies: you typed "y")');
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('the file named as every command names it', () => {
  it('fmt -c FILE formats that file', async () => {
    s = await scenario();
    const file = await s.write('version: 1\nwebsites:\n  -   domain: a.example.com\n', 'other.yaml');
    const r = await s.cli(['fmt', '-c', 'other.yaml']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(FILE);
  });

  it('validate FILE says to name it with -c', async () => {
    s = await scenario();
    await s.write(FILE, 'other.yaml');
    const r = await s.cli(['validate', 'other.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync validate takes no argument "other.yaml": name the config file with -c (sitesync validate -c other.yaml)');
  });

  it('apply --dry-run points at plan', async () => {
    s = await scenario();
    await s.write(FILE);
    const r = await s.cli(['apply', '--dry-run']);
    expect(r.stderr).toContain('there is no --dry-run option for sitesync apply: `sitesync plan` (same options) shows what apply would do, and writes nothing');
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('--color', () => {
  it('colours output into a pipe, as asked', async () => {
    s = await scenario();
    await s.write(FILE);
    const run = (args: string[]) =>
      new Promise<string>((done) => {
        const child = spawn(process.execPath, [bin, ...args], { cwd: s!.dir, env: cleanEnv({ TERM: 'xterm' }) });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d));
        child.on('close', () => done(out));
      });
    expect(await run(['validate'])).not.toContain('\x1b[');
    expect(await run(['validate', '--color'])).toContain('\x1b[');
  });
});
