/**
 * Every option that takes a value, of every command, left without one (or given an empty one,
 * or a number that is none) is a usage error that names it: never an internal error, never the
 * option's default. The table is the command table itself, so a new option is checked too.
 * In-process (main() with a fake Io): the parser is the CLI's, without a process per case.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_TABLE, GLOBAL_OPTIONS, type OptionSpec } from '../../src/cli/table.js';
import { main } from '../../src/cli.js';
import type { Io } from '../../src/io/context.js';

let dir: string;
beforeAll(async () => {
  // An empty folder, no key, no base URL: a command that ran anyway would fail, but not as these tests expect.
  dir = await mkdtemp(join(tmpdir(), 'sitesync-values-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const io: Io = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: process.stdin,
    env: {},
    cwd: dir,
  };
  // Before the fix some of these ran the command (the emulator would never return): bounded.
  const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5000).unref());
  const code = await Promise.race([main(argv, io), timeout]);
  return { code, stderr };
}

/**
 * Every option that takes a value, the global ones with each command; `path` holds the command's
 * words and its other required options (`ci comment --file x`), so that only the one under test is wrong.
 */
const CASES = COMMAND_TABLE.flatMap((command) => {
  const options = Object.entries<OptionSpec>({ ...GLOBAL_OPTIONS, ...command.options });
  return options
    .filter(([, spec]) => spec.type !== 'boolean')
    .map(([name, spec]) => {
      const required = options.filter(([other, o]) => o.demandOption && other !== name).flatMap(([other]) => [`--${other}`, 'x']);
      return { path: [...command.path, ...required], words: command.path, label: `${command.path.join(' ')} --${name}`, name, spec };
    });
});

function expectUsageError(r: { code: number; stderr: string }, words: readonly string[], name: string): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`^Error: --${name}\\b`));
  expect(r.stderr).not.toContain('Internal error');
  expect(r.stderr.endsWith(`Run \`sitesync ${words.join(' ')} --help\` for usage.\n`)).toBe(true);
}

describe('an option without its value is a usage error that names it', () => {
  it('the table has the options the issue names, and more', () => {
    const names = CASES.map((c) => c.label);
    for (const n of ['plan --config', 'plan --out', 'plan --target', 'plan --account', 'plan --baseline', 'plan --format', 'validate --format', 'export --output', 'apply --parallelism', 'emulator --port']) {
      expect(names).toContain(n);
    }
    expect(CASES.length).toBeGreaterThan(50);
  });

  it.each(CASES)('sitesync $label (last, no value)', async ({ path, words, name }) => {
    const r = await run([...path, `--${name}`]);
    expectUsageError(r, words, name);
    expect(r.stderr).toContain(`--${name}`);
    expect(r.stderr).toContain('needs a value');
  });

  it.each(CASES.filter((c) => c.spec.alias))('sitesync $label as -$spec.alias (the short form, last, no value)', async ({ path, words, name, spec }) => {
    const r = await run([...path, `-${spec.alias}`]);
    expectUsageError(r, words, name);
    expect(r.stderr).toContain(`--${name} (-${spec.alias}) needs a value`);
  });

  it.each(CASES)('sitesync $label= (an empty value)', async ({ path, words, name }) => {
    const r = await run([...path, `--${name}=`]);
    expectUsageError(r, words, name);
    expect(r.stderr).toContain('needs a value');
  });

  it.each(CASES)('sitesync $label followed by another flag', async ({ path, words, name }) => {
    const r = await run([...path, `--${name}`, '--verbose']);
    expectUsageError(r, words, name);
  });

  it.each(CASES.filter((c) => c.spec.type === 'number'))('sitesync $label x (not a number)', async ({ path, words, name }) => {
    const r = await run([...path, `--${name}`, 'x']);
    expectUsageError(r, words, name);
    expect(r.stderr).toContain(`--${name} must be a number`);
  });

  it.each(CASES.filter((c) => c.spec.choices))('sitesync $label bogus names the choices, on one line', async ({ path, words, name, spec }) => {
    const r = await run([...path, `--${name}`, 'bogus']);
    expectUsageError(r, words, name);
    const choices = spec.choices!;
    expect(r.stderr).toContain(`--${name} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, not "bogus"`);
    expect(r.stderr).not.toContain('\\n');
  });

  it('the global options at the top level, before any command', async () => {
    for (const name of Object.keys(GLOBAL_OPTIONS).filter((n) => GLOBAL_OPTIONS[n as keyof typeof GLOBAL_OPTIONS].type !== 'boolean')) {
      const r = await run([`--${name}`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`Error: --${name} needs a value\nRun \`sitesync --help\` for usage.\n`);
    }
  });

  it('a value after -- is an argument, not an empty option', async () => {
    const r = await run(['fmt', '--', '--out=']);
    expect(r.stderr).not.toContain('needs a value');
    expect(r.stderr).toContain('--out=');
  });
});
