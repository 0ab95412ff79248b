/**
 * The first hour with sitesync (the issue "What an agency leans on"): a flag typed without its
 * value, an offline command's verdict, the help of each command and of `completion`, where the
 * docs are. The usage errors and offline verdicts run the CLI in this process (main() says them
 * and returns the exit code the bin sets); each command's help, completion and the top-level help
 * run the built CLI, as a person runs it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_TABLE, GLOBAL_OPTIONS } from '../../src/cli/table.js';
import { runCli, runCliHere } from '../helpers/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-first-hour-'));
  await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a..b.example.com\n');
  await writeFile(join(dir, 'broken.yaml'), 'version: 1\nwebsites: [\n');
  await writeFile(join(dir, 'plan.json'), '{"format_version": 1}\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a flag without its value', () => {
  it.each([
    [['plan', '-c'], 'Error: --config (-c) needs a value\nRun `sitesync plan --help` for usage.\n'],
    [['plan', '--out'], 'Error: --out needs a value\nRun `sitesync plan --help` for usage.\n'],
    [['export', '-o'], 'Error: --output (-o) needs a value\nRun `sitesync export --help` for usage.\n'],
    [['apply', '--parallelism'], 'Error: --parallelism needs a value: a number\nRun `sitesync apply --help` for usage.\n'],
    [['emulator', '--port'], 'Error: --port needs a value: a number\nRun `sitesync emulator --help` for usage.\n'],
    [['validate', '--format'], 'Error: --format needs a value: text, github or json\nRun `sitesync validate --help` for usage.\n'],
    [['plan', '--format', 'yaml'], 'Error: --format must be text, markdown or json, not "yaml"\nRun `sitesync plan --help` for usage.\n'],
  ])('sitesync %j is a usage error that names it', async (args, stderr) => {
    const r = await runCliHere(args, { cwd: dir });
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
  });
});

describe('offline commands say nothing about the service', () => {
  it.each([
    [['validate'], '1 problem found.\n'],
    [['fmt', 'broken.yaml'], '1 problem found.\n'],
    [['show', 'plan.json'], '1 problem found.\n'],
    [['plan'], '1 problem found; nothing was changed on the service.\n'],
  ])('sitesync %j ends its list of problems with %j', async (args, last) => {
    const r = await runCliHere(args, { cwd: dir, env: { SITESYNC_BASE_URL: 'http://127.0.0.1:9', SITESYNC_API_KEY: 'k-0123456789abcdef' } });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').at(-2)).toBe(last.trimEnd());
    if (args[0] !== 'plan') expect(r.stderr).not.toContain('service');
  });
});

describe('sitesync completion', () => {
  it('--help explains the command and how to install it, and prints no script', async () => {
    for (const args of [['completion', '--help'], ['completion', '-h']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^sitesync completion\n\nPrints a script with which bash or zsh/);
      expect(r.stdout).toContain('sitesync completion >> ~/.bashrc');
      expect(r.stdout).toContain("node_modules/.bin on your PATH");
      expect(r.stdout).not.toContain('completions-###');
    }
  });

  it('without --help prints the script, which still gets its completions', async () => {
    const script = await runCli(['completion']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('###-begin-sitesync-completions-###');
    expect(script.stdout).toContain('# Installation: sitesync completion >> ~/.bashrc');
    const words = await runCli(['--get-yargs-completions', 'sitesync', 'pl']);
    expect(words.stdout.split('\n')).toContain('plan');
  });
});

describe("each command's help", () => {
  it.each(COMMAND_TABLE.map((c) => [c.path.join(' '), c] as const))('sitesync %s --help lists its own options first, then the global ones', async (_, command) => {
    const r = await runCli([...command.path, '--help']);
    expect(r.code).toBe(0);
    const own = r.stdout.indexOf('\nOptions:\n');
    const global = r.stdout.indexOf('\nGlobal options:\n');
    expect(own).toBeGreaterThan(0);
    expect(global).toBeGreaterThan(own);
    const ownPart = r.stdout.slice(own, global);
    for (const name of Object.keys(command.options)) expect(ownPart).toContain(`--${name} `);
    for (const name of Object.keys(GLOBAL_OPTIONS)) expect(ownPart).not.toContain(`--${name} `);
    expect(r.stdout.slice(global)).toContain('--base-url');
  });
});

describe('the help says where the docs are', () => {
  it('in an installed package (node_modules/sitesync/README.md) as well as in a clone', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout).toContain('node_modules/sitesync/README.md');
    expect(r.stdout).toMatch(/in a clone of sitesync +README\.md/);
    expect(r.stdout).not.toContain('Docs: README.md ·');
  });
});
