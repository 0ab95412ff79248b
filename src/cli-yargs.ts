/**
 * The command line as yargs reads it: every invocation, help, completion, usage errors with what
 * was probably meant. The commands, options and examples come from src/cli-commands.ts; here is
 * only how yargs is told about them, and what the top-level help says.
 */
import yargs, { type Argv, type Options, type PositionalOptions } from 'yargs';
import { camelCase, COMMAND_GROUPS, COMMAND_TABLE, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './cli-commands.js';
import { CommandLineError, explainUnknown } from './cli-usage.js';
import { packageVersion } from './paths.js';

const EPILOGUE = `Connection:
  base URL   --base-url · SITESYNC_BASE_URL · api.base_url in the file
  API key    --api-key-file · SITESYNC_API_KEY (never in the file, never an argument)

Exit codes:
  0  success (plan --detailed-exitcode: nothing to change)
  1  any error: invalid file, API or network failure, refused by a safety check, stale plan, partial apply, fmt --check: a file not formatted
  2  plan --detailed-exitcode only: there are changes to apply
  130  apply stopped by Ctrl-C: changes in flight finished, the rest not started (143: by SIGTERM)

Docs: README.md · the file format: schemas/sitesync.schema.json`;

/** The sub-commands of each command that has some, for "did you mean". */
const SUBCOMMANDS: Record<string, readonly string[]> = {
  '': [...new Set(COMMAND_TABLE.map((c) => c.path[0]!)), 'completion'],
  ...Object.fromEntries(Object.keys(COMMAND_GROUPS).map((g) => [g, COMMAND_TABLE.filter((c) => c.path[0] === g).map((c) => c.path[1]!)])),
};

/** Called with the command yargs parsed and the arguments yargs gives it. */
export type OnCommand = (command: CommandSpec, args: Record<string, unknown>) => Promise<void>;

/** A command of the table, as yargs declares it under `word`. */
function declare(y: Argv, command: CommandSpec, word: string, onCommand: OnCommand): Argv {
  const positionals = Object.entries(command.positionals ?? {});
  return y.command(
    [word, ...positionals.map(([name, p]) => (p.array ? `[${name}..]` : `[${name}]`))].join(' '),
    command.describe,
    (c) => {
      let built = c;
      for (const [name, spec] of positionals) built = built.positional(name, spec as PositionalOptions);
      built = built.options(command.options as Record<string, Options>);
      for (const [example, text] of command.examples ?? []) built = built.example(example, text);
      return built;
    },
    (args) => onCommand(command, afterDashes(command, once(command, args))),
  );
}

/**
 * The words after `--` (yargs leaves them in `_`, after the command's own words): positionals
 * like any other, so that `fmt -- -x.yaml` formats -x.yaml. A word no positional takes is a
 * mistake, as it is before `--`.
 */
function afterDashes(command: CommandSpec, args: Record<string, unknown>): Record<string, unknown> {
  const words = ((args._ as unknown[] | undefined) ?? []).slice(command.path.length).map(String);
  if (words.length === 0) return args;
  const out = { ...args };
  for (const [name, spec] of Object.entries(command.positionals ?? {})) {
    if (spec.array) {
      out[name] = [...((out[name] as string[] | undefined) ?? []), ...words.splice(0)];
    } else if (out[name] === undefined && words.length) {
      out[name] = words.shift();
    }
  }
  if (words.length) throw new CommandLineError(`sitesync ${command.path.join(' ')} takes no argument "${words[0]}"`, command.path.join(' '));
  return out;
}

/**
 * yargs makes an option given twice an array. A flag's last word counts (`--no-color --color`);
 * a value given twice is a mistake that says so, not a list the command cannot read.
 */
function once(command: CommandSpec, args: Record<string, unknown>): Record<string, unknown> {
  const out = { ...args };
  const options: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, ...command.options };
  for (const [name, spec] of Object.entries(options)) {
    const value = args[name];
    if (spec.array || !Array.isArray(value)) continue;
    if (spec.type === 'boolean') {
      for (const key of [name, camelCase(name), ...(spec.alias ? [spec.alias] : [])]) if (key in out) out[key] = value.at(-1);
      continue;
    }
    throw new CommandLineError(`--${name} is given ${value.length} times (${value.map(String).join(', ')}); give it once`, command.path.join(' '));
  }
  return out;
}

export function buildParser(argv: string[], onCommand: OnCommand): Argv {
  const parser = yargs(argv);
  // Messages in English whatever LANG says: sitesync speaks English, and explainUnknown reads them.
  parser.locale('en');
  let top = parser
    .scriptName('sitesync')
    .usage(
      'sitesync <command> [options]\n\nKeeps the tracked websites of a Website Tracking Service account equal to a YAML file kept in git:\n`plan` shows what would change, `apply` makes it so.',
    )
    .options(Object.fromEntries(Object.entries(GLOBAL_OPTIONS).map(([name, spec]) => [name, { ...spec, global: true }])) as Record<string, Options>)
    .group([...Object.keys(GLOBAL_OPTIONS), 'help', 'version'], 'Global options:');
  const declared = new Set<string>();
  for (const command of COMMAND_TABLE) {
    const [first, second] = command.path;
    if (second === undefined) {
      top = declare(top, command, first!, onCommand);
    } else if (!declared.has(first!)) {
      // A group is declared once, where its first sub-command is, with all of them.
      declared.add(first!);
      const group = COMMAND_GROUPS[first!]!;
      const members = COMMAND_TABLE.filter((c) => c.path[0] === first);
      top = top.command(first!, group.describe, (y) =>
        members.reduce((g, member) => declare(g, member, member.path[1]!, onCommand), y).demandCommand(1, group.demand),
      );
    }
  }
  return top
    .completion('completion', 'Print a shell completion script (bash, zsh): sitesync completion >> ~/.bashrc')
    .demandCommand(1, 'Say which command to run: sitesync --help lists them.')
    .strict()
    .version(packageVersion())
    .alias('h', 'help')
    .alias('V', 'version')
    .epilogue(EPILOGUE)
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? commandLineError(message, argv, parser);
    });
}

/** yargs' failure message, with what is unknown and what was probably meant. */
function commandLineError(message: string, argv: string[], parser: Argv): CommandLineError {
  // getOptions and getContext are yargs' own (untyped) accessors for the command being parsed.
  const internals = parser as unknown as {
    getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> };
    getInternalMethods(): { getContext(): { commands: string[] } };
  };
  const command = internals.getInternalMethods().getContext().commands;
  const options = internals.getOptions();
  const flags = [...Object.keys(options.key), ...Object.values(options.alias).flat()];
  const facts = { argv, command, commands: SUBCOMMANDS[command.join(' ')] ?? [], flags };
  const lines = explainUnknown(message, facts);
  const error = new CommandLineError(lines?.length ? (lines.length === 1 ? lines[0]! : `${lines.length} unknown arguments`) : message, command.join(' '));
  if (lines && lines.length > 1) error.details = lines;
  return error;
}
