/**
 * The fast path and yargs read the command line alike: every argv the fast path accepts gives
 * the command exactly what yargs gives it, and everything else is left to yargs. The corpus is
 * generated from the one table of options, so a flag added there is covered here at once.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { camelCase, COMMAND_TABLE, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from '../../src/cli-commands.js';
import { fastParse } from '../../src/cli-fast.js';
import { buildParser } from '../../src/cli-yargs.js';

type Outcome = { command: string; args: Record<string, unknown> } | { error: string };

/** What yargs hands the command: the keys the command reads (camelCase options, positionals). */
async function viaYargs(argv: string[]): Promise<Outcome> {
  let outcome: Outcome = { error: 'no command ran' };
  try {
    await buildParser(argv, async (command, args) => {
      outcome = { command: command.path.join(' '), args: readKeys(command, args) };
    }).parseAsync();
  } catch (error) {
    return { error: (error as Error).message };
  }
  return outcome;
}

function readKeys(command: CommandSpec, args: Record<string, unknown>): Record<string, unknown> {
  const keys = [...Object.keys({ ...GLOBAL_OPTIONS, ...command.options }).map(camelCase), ...Object.keys(command.positionals ?? {})];
  return Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
}

const STRING_VALUES = ['x.yaml', 'dir/with space.yaml', 'a=b', '123', '', '-x'];
const NUMBER_VALUES = ['8', '007', '0x10', '1e3', '-1', ' 8', 'abc'];

function valuesFor(spec: OptionSpec): string[] {
  if (spec.choices) return [...spec.choices, 'nope', ''];
  return spec.type === 'number' ? NUMBER_VALUES : STRING_VALUES;
}

/** Every command with every flag in every spelling, and the usual mistakes. */
function corpus(): string[][] {
  const out: string[][] = [];
  for (const command of COMMAND_TABLE) {
    const base = [...command.path];
    const required = Object.entries(command.options)
      .filter(([, s]) => s.demandOption)
      .flatMap(([n]) => [`--${n}`, 'f.md']);
    const at = (...rest: string[]) => out.push([...base, ...required, ...rest]);
    at();
    out.push(base); // without its required options
    for (const [name, spec] of Object.entries<OptionSpec>({ ...GLOBAL_OPTIONS, ...command.options })) {
      if (spec.type === 'boolean') {
        at(`--${name}`);
        at(`--no-${name}`);
        at(`--${name}=true`);
        at(`--${name}=false`);
        at(`--${name}`, `--no-${name}`);
        at(`--${name}`, `--${name}`);
        at(`--${camelCase(name)}`);
      } else {
        for (const value of valuesFor(spec)) {
          at(`--${name}`, value);
          at(`--${name}=${value}`);
        }
        at(`--${name}`);
        at(`--no-${name}`);
        at(`--${name}`, 'a', `--${name}`, 'b');
        at(`--${name}`, 'a', 'b');
        at(`--${camelCase(name)}`, 'v');
        if (spec.alias) {
          at(`-${spec.alias}`, 'v.yaml');
          at(`-${spec.alias}v.yaml`);
          at(`-${spec.alias}=v.yaml`);
          at(`-${spec.alias}`);
        }
      }
      at(`--${name.slice(0, -1)}`); // a typo
    }
    for (const name of Object.keys(command.positionals ?? {})) {
      at(`${name}.json`);
      at(`${name}.json`, '--verbose');
      at(`${name}.json`, 'extra');
      at('--verbose', `${name}.json`, 'extra', 'third');
      at('123', '0x10');
      at('', 'x');
    }
    for (const [name, spec] of Object.entries<OptionSpec>(command.options)) {
      if (spec.array) at(`--${name}`, 'a', 'word');
      if (spec.type !== 'boolean') at(`--${name}`, '--verbose');
    }
    at('stray');
    at('--unknown');
    at('--api-key', 'sk-123');
    at('--', 'x');
    at('-');
    at('-h');
    at('--help');
    at('-V');
    at('--version');
    at('--verbose', '--color', '--base-url', 'http://127.0.0.1:1');
  }
  out.push([], ['plna'], ['ci'], ['ci', 'commment'], ['completion'], ['--verbose', 'validate'], ['-c', 'x.yaml', 'validate'], ['fmt', '--check', 'a.yaml', 'b.yaml'], ['import', '--account', 'acme', 'shop.example.com'], ['import', 'shop.example.com', '--account', 'acme']);
  return out;
}

describe('the fast command-line path', () => {
  it('reads every invocation it accepts exactly as yargs does, and leaves every mistake to yargs', async () => {
    let accepted = 0;
    const differences: unknown[] = [];
    for (const argv of corpus()) {
      const fast = fastParse(argv);
      if (!fast) continue;
      accepted++;
      const fastRead = { command: fast.command.path.join(' '), args: fast.args };
      const yargsRead = await viaYargs(argv);
      if (!isDeepStrictEqual(fastRead, yargsRead)) differences.push({ argv, fastRead, yargsRead });
    }
    expect(differences).toEqual([]);
    expect(accepted).toBeGreaterThan(100);
  });

  it('runs an ordinary plan invocation without yargs', () => {
    expect(fastParse(['plan', '-c', 'prod.yaml', '--detailed-exitcode', '--target', 'a.*', '--target=b.example'])?.args).toEqual({
      config: 'prod.yaml',
      detailedExitcode: true,
      target: ['a.*', 'b.example'],
      format: 'text',
    });
  });

  it('leaves help, completion, version and mistakes to yargs', () => {
    for (const argv of [['--help'], ['plan', '--help'], ['completion'], ['--version'], ['plan', '--detailed-exit-code'], ['plan', '--format', 'yaml'], ['apply', '--', 'x']]) {
      expect(fastParse(argv), argv.join(' ')).toBeUndefined();
    }
  });
});
