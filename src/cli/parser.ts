/**
 * The command line as yargs reads it: every invocation, help, completion, usage errors with what
 * was probably meant. The commands, options and examples come from src/cli-commands.ts; here is
 * only how yargs is told about them, and what the top-level help says.
 */
import yargs, { type Argv, type Options, type PositionalOptions } from 'yargs';
import { COMMAND_GROUPS, COMMAND_TABLE, GLOBAL_OPTIONS, type Command, type OptionSpec } from './table.js';
import { CommandLineError, emptyValue, explainFailure, needsValue, wordsBeforeDashes } from './usage.js';
import { packageVersion } from '../io/paths.js';

const EPILOGUE = `Connection:
  base URL   --base-url · SITESYNC_BASE_URL · api.base_url in the file
  API key    --api-key-file · SITESYNC_API_KEY (never in the file, never an argument)

Exit codes:
  0  success (plan --detailed-exitcode: nothing to change)
  1  any error: invalid file, API or network failure, refused by a safety check, stale plan, partial apply, apply --require-approved: not the approved plan, fmt --check: a file not formatted
  2  plan --detailed-exitcode and ci drift only: there are changes to apply (drift)
  130  apply stopped by Ctrl-C: changes in flight finished, the rest not started (143: by SIGTERM)
  141  the output's reader closed it early (sitesync plan | head): the command finished, the rest of its output dropped

Docs (and beside them the file format, schemas/sitesync.schema.json):
  installed as a package   node_modules/sitesync/README.md
  in a clone of sitesync   README.md`;

/** `sitesync completion`, which yargs' own completion command would not explain in --help. */
const COMPLETION = {
  describe: 'Print a shell completion script (bash, zsh): sitesync completion >> ~/.bashrc',
  usage: `sitesync completion

Prints a script with which bash or zsh (as $SHELL says) completes sitesync's commands and options
on Tab. Add it to your shell's start-up file once, then open a new shell. The script calls sitesync
by its name: with a per-repository install, put the repository's node_modules/.bin on your PATH.`,
  examples: [
    ['$0 completion >> ~/.bashrc', 'Install it for bash'],
    ['$0 completion >> ~/.zshrc', 'Install it for zsh'],
  ],
} as const;

/** The sub-commands of each command that has some, for "did you mean". */
const SUBCOMMANDS: Record<string, readonly string[]> = {
  '': [...new Set(COMMAND_TABLE.map((c) => c.path[0]!)), 'completion'],
  ...Object.fromEntries(Object.keys(COMMAND_GROUPS).map((g) => [g, COMMAND_TABLE.filter((c) => c.path[0] === g).map((c) => c.path[1]!)])),
};

/** Called with the command yargs parsed and the arguments yargs gives it. */
export type OnCommand = (command: Command, args: Record<string, unknown>) => Promise<void>;

/** A command of the table, as yargs declares it under `word`. */
function declare(y: Argv, command: Command, word: string, argv: readonly string[], onCommand: OnCommand): Argv {
  const positionals = Object.entries(command.positionals ?? {});
  return y.command(
    [word, ...positionals.map(([name, p]) => (p.array ? `[${name}..]` : `[${name}]`))].join(' '),
    command.describe,
    (c) => {
      let built = c;
      for (const [name, spec] of positionals) built = built.positional(name, spec as PositionalOptions);
      // The command's own options under "Options:", before the global ones its help also lists.
      built = built.options(forYargs(command.options)).group(Object.keys(command.options), 'Options:');
      for (const [example, text] of command.examples ?? []) built = built.example(example, text);
      // Before yargs' own checks: `ci comment --pr=` is about --pr, whatever else is missing.
      return built.middleware((args) => given(command, argv, args), true);
    },
    (args) => onCommand(command, afterDashes(command, once(command, args, argv))),
  );
}

/**
 * Options as yargs is told about them: every option that takes a value requires one, so that a
 * flag left without its value is a mistake yargs reports, never its default or an empty value.
 */
function forYargs(options: Readonly<Record<string, OptionSpec>>): Record<string, Options> {
  return Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [name, spec.type === 'boolean' ? spec : { ...spec, requiresArg: true }]),
  ) as Record<string, Options>;
}

/** The options a command's help and messages know: its own and the global ones. */
function optionsOf(command: Command | undefined): Record<string, OptionSpec> {
  return { ...GLOBAL_OPTIONS, ...command?.options };
}

/**
 * Values yargs lets through that no option means: an empty one (`--out ''`, or `--port=`, which
 * yargs reads as 0) and a number that is none (`--port x`, NaN).
 */
function given(command: Command, argv: readonly string[], args: Record<string, unknown>): void {
  const options = optionsOf(command);
  const where = command.path.join(' ');
  const empty = emptyValue(argv, options);
  if (empty) throw new CommandLineError(needsValue(empty, options), where);
  for (const [name, spec] of Object.entries(options)) {
    if (spec.type === 'number' && Number.isNaN(args[name])) throw new CommandLineError(`--${name} must be a number`, where);
  }
}

/**
 * The words after `--` (yargs leaves them in `_`, after the command's own words): positionals
 * like any other, so that `fmt -- -x.yaml` formats -x.yaml. A word no positional takes is a
 * mistake, as it is before `--`.
 */
function afterDashes(command: Command, args: Record<string, unknown>): Record<string, unknown> {
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
 * yargs makes an option given twice an array: a mistake that says so, not a list the command
 * cannot read. A flag too: `--prune --no-prune` does not say which was meant, and one rule is
 * easier to keep than "the last word counts" for some (NO_COLOR, not a second flag, is how a
 * shell turns colour off for good).
 */
function once(command: Command, args: Record<string, unknown>, argv: readonly string[]): Record<string, unknown> {
  // yargs keeps a flag's last word only: flags are counted as typed (before `--`).
  const words = wordsBeforeDashes(argv);
  for (const [name, spec] of Object.entries(optionsOf(command))) {
    if (spec.array) continue;
    const value = args[name];
    const typed = spec.type === 'boolean' ? words.filter((w) => isFlagWord(w, name, spec.alias)) : [];
    const given = Array.isArray(value) ? value.map(String) : typed.length > 1 ? typed : undefined;
    if (given) throw new CommandLineError(`--${name} is given ${given.length} times (${given.join(', ')}); give it once`, command.path.join(' '));
  }
  return args;
}

/** `--name`, `--no-name`, either with `=…`, or `-a` alone or in a bundle (`-ya`). */
function isFlagWord(word: string, name: string, alias?: string): boolean {
  if (/^--(no-)?([^=]+)/.exec(word)?.[2] === name) return true;
  return alias !== undefined && /^-[^-]/.test(word) && word.slice(1).split('=', 1)[0]!.includes(alias);
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
    .options(Object.fromEntries(Object.entries(forYargs(GLOBAL_OPTIONS)).map(([name, spec]) => [name, { ...spec, global: true }])))
    .group([...Object.keys(GLOBAL_OPTIONS), 'help', 'version'], 'Global options:');
  const declared = new Set<string>();
  for (const command of COMMAND_TABLE) {
    const [first, second] = command.path;
    if (second === undefined) {
      top = declare(top, command, first!, argv, onCommand);
    } else if (!declared.has(first!)) {
      // A group is declared once, where its first sub-command is, with all of them.
      declared.add(first!);
      const group = COMMAND_GROUPS[first!]!;
      const members = COMMAND_TABLE.filter((c) => c.path[0] === first);
      top = top.command(first!, group.describe, (y) =>
        members.reduce((g, member) => declare(g, member, member.path[1]!, argv, onCommand), y).demandCommand(1, group.demand),
      );
    }
  }
  return top
    // A command of its own (not yargs' .completion(), which prints the script even for --help);
    // yargs answers the script's --get-yargs-completions either way.
    .command(
      'completion',
      COMPLETION.describe,
      (c) => COMPLETION.examples.reduce((y, [example, text]) => y.example(example, text), c.usage(COMPLETION.usage)),
      () => {
        parser.showCompletionScript();
      },
    )
    .demandCommand(1, 'Say which command to run: sitesync --help lists them.')
    .strict()
    .version(packageVersion())
    .alias('h', 'help')
    .alias('V', 'version')
    .epilogue(EPILOGUE)
    // yargs lays out the whole help before it runs any command's handler (it keeps it for a later
    // showHelp), about a tenth of a second of CPU: laid out to a width only when help is asked for.
    .wrap(asksForHelp(argv) ? Math.min(110, process.stdout.columns || 100) : null)
    .exitProcess(false)
    .fail((message, error) => {
      // A command's own error passes through; yargs' own (a YError: a flag without its value) is a usage error.
      if (error && error.name !== 'YError') throw error;
      throw commandLineError(message ?? error?.message ?? '', argv, parser);
    });
}

/** --help or -h (alone or in a bundle) before `--`: yargs shows help (and runs no command). */
function asksForHelp(argv: readonly string[]): boolean {
  return wordsBeforeDashes(argv).some((word) => isFlagWord(word, 'help', 'h'));
}

/** yargs' failure message, with what is unknown and what was probably meant. */
function commandLineError(message: string, argv: string[], parser: Argv): CommandLineError {
  // getOptions and getContext are yargs' own (untyped) accessors for the command being parsed.
  const internals = parser as unknown as {
    getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> };
    getInternalMethods(): { getContext(): { commands: string[] } };
  };
  const command = internals.getInternalMethods().getContext().commands;
  const known = internals.getOptions();
  const flags = [...Object.keys(known.key), ...Object.values(known.alias).flat()];
  const options = optionsOf(COMMAND_TABLE.find((c) => c.path.join(' ') === command.join(' ')));
  // The options of each command that can follow: one typed before its command is said to go after it.
  const commandFlags: Record<string, string[]> = {};
  for (const c of COMMAND_TABLE.filter((c) => c.path.length > command.length && command.every((w, i) => c.path[i] === w))) {
    const flags = Object.entries(c.options).flatMap(([name, spec]) => (spec.alias ? [name, spec.alias] : [name]));
    (commandFlags[c.path[command.length]!] ??= []).push(...flags);
  }
  const explained = explainFailure(message, { argv, command, commands: SUBCOMMANDS[command.join(' ')] ?? [], flags, options, commandFlags });
  const error = new CommandLineError(explained.message, command.join(' '));
  if (explained.details) error.details = explained.details;
  return error;
}
