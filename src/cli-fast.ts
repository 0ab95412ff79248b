/**
 * The fast path of the command line: an ordinary invocation (`sitesync plan -c prod.yaml
 * --detailed-exitcode`) parsed by Node's own `parseArgs`, from the same table yargs reads
 * (src/cli-commands.ts), so that it does not pay for loading yargs (longer than Node's own
 * start). It only ACCEPTS what it is sure yargs reads the same way and declines everything else
 * (help, completion, anything unknown or unusual, every mistake), which then goes to yargs, the
 * reader that explains. test/unit/cli-fast.test.ts holds the two to the same answers. Pure.
 */
import { parseArgs } from 'node:util';
import { camelCase, COMMAND_TABLE, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './cli-commands.js';

export interface FastParse {
  command: CommandSpec;
  /** What the command reads: camelCase option keys and positionals, as yargs gives them. */
  args: Record<string, unknown>;
}

type Parsed = Record<string, string | boolean | string[] | undefined>;

/** The parsed command line, or undefined when yargs must read it. */
export function fastParse(argv: readonly string[]): FastParse | undefined {
  const command = COMMAND_TABLE.find((c) => c.path.every((word, i) => argv[i] === word));
  if (!command) return undefined;
  const rest = argv.slice(command.path.length);
  // Left to yargs: `--`, a lone `-`, and every short form but a lone `-c` (bundles, `-cx`, `-h`, `-V`).
  if (rest.some((arg) => arg === '--' || arg === '-' || (/^-[^-]/.test(arg) && arg.length !== 2))) return undefined;
  const options: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, ...command.options };
  const config = Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [
      name,
      {
        type: spec.type === 'boolean' ? ('boolean' as const) : ('string' as const),
        ...(spec.alias ? { short: spec.alias } : {}),
        ...(spec.array ? { multiple: true } : {}),
      },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: [...rest], options: config, strict: true, allowPositionals: true, allowNegative: true, tokens: true });
  } catch {
    return undefined; // an unknown flag, a missing value: yargs says what is wrong
  }
  const positionals = Object.entries(command.positionals ?? {});
  const takesRest = positionals.at(-1)?.[1].array === true;
  if (parsed.positionals.length > positionals.length && !takesRest) return undefined;
  const seen = new Set<string>();
  let afterArray = false;
  for (const token of parsed.tokens) {
    // yargs gives an array option the words after it too (`--target a b`): left to yargs.
    if (token.kind === 'positional' && afterArray) return undefined;
    if (token.kind !== 'option') continue;
    // A value that looks like a flag (`-c --verbose`), and `--no-` of an option with a value: yargs decides.
    if (token.value?.startsWith('-') || (token.rawName.startsWith('--no-') && options[token.name]!.type !== 'boolean')) return undefined;
    // yargs makes a repeated single-value option an array: not an ordinary invocation.
    if (seen.has(token.name) && !options[token.name]!.array) return undefined;
    seen.add(token.name);
    afterArray ||= options[token.name]!.array === true;
  }
  const args: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(options)) {
    const raw = (parsed.values as Parsed)[name];
    const value = raw === undefined ? spec.default : typed(raw, spec);
    if (value === DECLINE) return undefined;
    if (value === undefined) {
      if (spec.demandOption) return undefined;
      continue;
    }
    args[camelCase(name)] = value;
  }
  for (const [i, [name, spec]] of positionals.entries()) {
    if (spec.array) args[name] = parsed.positionals.slice(i);
    else if (parsed.positionals[i] !== undefined) args[name] = parsed.positionals[i];
  }
  return { command, args };
}

const DECLINE = Symbol('decline');

/** A value as yargs types it, or DECLINE where yargs might read it otherwise or reject it. */
function typed(raw: string | boolean | string[], spec: OptionSpec): unknown {
  if (typeof raw === 'boolean') return raw;
  if (Array.isArray(raw)) return raw.some((v) => v === '') ? DECLINE : raw;
  if (raw === '') return DECLINE;
  if (spec.choices && !spec.choices.includes(raw)) return DECLINE;
  if (spec.type === 'number') return /^(0|[1-9][0-9]{0,14})$/.test(raw) ? Number(raw) : DECLINE;
  return raw;
}
