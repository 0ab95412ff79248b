/**
 * The command line: yargs wiring, the global flags, and the one place where errors become
 * messages and exit codes. Command files do the work and return an exit code.
 */
import { setMaxListeners } from 'node:events';
import yargs, { type Argv } from 'yargs';
import {
  ConfigError,
  formatDiagnostic,
  InterruptedError,
  interruptedExitCode,
  SitesyncError,
  STOP_SIGNALS,
  UsageError,
  type StopSignal,
} from './errors.js';
import { explainUnknown } from './cli-usage.js';
import { packageVersion } from './paths.js';
import { printable } from './render/escape.js';
import { SecretValues } from './secrets.js';
import { colorsFor, type Context, type Io } from './terminal.js';

export const COMMANDS = ['validate', 'plan', 'apply', 'export', 'import', 'account', 'fmt', 'emulator', 'ci', 'completion'] as const;

const EPILOGUE = `Connection:
  base URL   --base-url · SITESYNC_BASE_URL · api.base_url in the file
  API key    --api-key-file · SITESYNC_API_KEY (never in the file, never an argument)

Exit codes:
  0  success (plan --detailed-exitcode: nothing to change)
  1  any error: invalid file, API or network failure, refused by a safety check, stale plan, partial apply, fmt --check: a file not formatted
  2  plan --detailed-exitcode only: there are changes to apply
  130  apply stopped by Ctrl-C: changes in flight finished, the rest not started (143: by SIGTERM)

Docs: README.md · the file format: schemas/sitesync.schema.json`;

type Args = Record<string, unknown>;
type Runner = (args: Args, ctx: Context) => Promise<number>;

/** Lazily imported so that `validate` and `--help` do not load the HTTP stack. */
const run = {
  validate: async (a: Args, c: Context) => (await import('./commands/validate.js')).runValidate(a as never, c),
  fmt: async (a: Args, c: Context) => (await import('./commands/fmt.js')).runFmt(a as never, c),
  plan: async (a: Args, c: Context) => (await import('./commands/plan.js')).runPlan(a as never, c),
  apply: async (a: Args, c: Context) => (await import('./commands/apply.js')).runApply(a as never, c),
  export: async (a: Args, c: Context) => (await import('./commands/export.js')).runExport(a as never, c),
  import: async (a: Args, c: Context) => (await import('./commands/import.js')).runImport(a as never, c),
  account: async (a: Args, c: Context) => (await import('./commands/account.js')).runAccount(a as never, c),
  emulator: async (a: Args, c: Context) => (await import('./commands/emulator.js')).runEmulator(a as never, c),
  ciComment: async (a: Args, c: Context) => (await import('./commands/ci.js')).runCiComment(a as never, c),
  ciSummary: async (a: Args, c: Context) => (await import('./commands/ci.js')).runCiSummary(a as never, c),
} satisfies Record<string, Runner>;

const configOption = {
  alias: 'c',
  type: 'string',
  default: 'sitesync.yaml',
  describe: 'The config file',
  requiresArg: true,
} as const;

const accountOption = {
  type: 'string',
  array: true,
  requiresArg: true,
  describe: 'In a file with accounts: only the account NAME (repeatable)',
} as const;

/** export and account read the config file only when asked to (for its accounts). */
const accountsFileOptions = (y: Argv) =>
  y
    .option('config', { ...configOption, default: undefined, describe: 'A config file with accounts: work on its accounts (default with --account: sitesync.yaml)' })
    .option('account', accountOption);

const planningOptions = (y: Argv) =>
  y
    .option('config', configOption)
    .option('prune', { type: 'boolean', describe: 'Delete live websites that the file does not list (as prune: true)' })
    .option('target', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe: 'Only plan websites whose domain matches GLOB (repeatable; * matches within a label)',
    })
    .option('exclude', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe: 'Leave out websites whose domain matches GLOB (repeatable; the inverse of --target)',
    })
    .option('account', accountOption)
    .option('baseline', {
      type: 'string',
      requiresArg: true,
      describe: 'An earlier version of the file: write-only fields that differ from it are sent',
    })
    .option('resend-write-only', {
      type: 'boolean',
      describe: 'Send write-only fields (password, unreadable ones) to every managed website that sets them',
    });

/** The sub-commands of each command that has some. */
const SUBCOMMANDS: Record<string, readonly string[]> = { '': COMMANDS, ci: ['comment', 'summary'] };

/** A mistake on the command line itself: the one kind of error that `--help` helps with. */
export class CommandLineError extends UsageError {
  override name = 'CommandLineError';
  constructor(
    message: string,
    /** The command whose help lists what it takes, e.g. `plan` or `ci comment`; empty for the top level. */
    readonly command: string,
  ) {
    super(message);
  }
}

export function buildParser(argv: string[], ctx: Context, setCode: (code: number) => void): Argv {
  const handle = (runner: Runner) => async (args: Args) => setCode(await runner(args, ctx));
  const parser = yargs(argv);
  // Messages in English whatever LANG says: sitesync speaks English, and explainUnknown reads them.
  parser.locale('en');
  return parser
    .scriptName('sitesync')
    .usage(
      'sitesync <command> [options]\n\nKeeps the tracked websites of a Website Tracking Service account equal to a YAML file kept in git:\n`plan` shows what would change, `apply` makes it so.',
    )
    .option('base-url', { type: 'string', requiresArg: true, describe: 'The service base URL', global: true })
    .option('api-key-file', { type: 'string', requiresArg: true, describe: 'Read the API key from this file', global: true })
    .option('insecure-http', { type: 'boolean', describe: 'Allow plain http:// to a non-loopback host', global: true })
    .option('color', { type: 'boolean', describe: 'Colour on a terminal (--no-color, or NO_COLOR, turns it off)', global: true })
    .option('verbose', { type: 'boolean', describe: 'Log every request to stderr (never the key)', global: true })
    .group(['base-url', 'api-key-file', 'insecure-http', 'color', 'verbose', 'help', 'version'], 'Global options:')
    .command(
      'validate',
      'Check the config file offline: every problem as FILE:LINE:COL: message',
      (y) =>
        y
          .option('config', configOption)
          .option('format', {
            choices: ['text', 'github', 'json'] as const,
            default: 'text',
            describe: 'text: FILE:LINE:COL lines; github: annotations on the pull request; json: the problems as data',
          })
          .option('strict-env', { type: 'boolean', describe: 'An unset ${NAME} is an error, as for plan and apply (default: a warning)' })
          .example('$0 validate -c sites/prod.yaml', 'Check a file without network or key')
          .example('$0 validate --format github', 'In a GitHub workflow: each problem on its line of the pull request'),
      handle(run.validate),
    )
    .command(
      'fmt [files..]',
      'Rewrite config files in the canonical layout (and the files they include); offline',
      (y) =>
        y
          .positional('files', { type: 'string', array: true, describe: 'The config files (default: sitesync.yaml)' })
          .option('check', { type: 'boolean', describe: 'Write nothing; show the changes as a diff and exit 1 when a file is not formatted' })
          .option('sort', { type: 'boolean', describe: 'Also sort the websites by domain' })
          .example('$0 fmt', 'Format sitesync.yaml and the files it includes')
          .example('$0 fmt --check', 'In CI: fail, with a diff, when a file is not formatted')
          .example('$0 fmt --sort sites/*.yaml', 'Format these files, websites in domain order'),
      handle(run.fmt),
    )
    .command(
      'plan',
      'Show what apply would change; never writes to the service',
      (y) =>
        planningOptions(y)
          .option('format', { choices: ['text', 'markdown', 'json'] as const, default: 'text', describe: 'Output format' })
          .option('out', { type: 'string', requiresArg: true, describe: 'Save the plan for `sitesync apply PLANFILE`' })
          .option('detailed-exitcode', { type: 'boolean', describe: 'Exit 0 when nothing changes, 2 when something would' })
          .option('fail-unsafe', {
            type: 'boolean',
            describe: 'Exit 1, after printing the plan, when apply would refuse it (delete threshold, website limit)',
          })
          .example('$0 plan', 'Compare sitesync.yaml with the live account')
          .example('$0 plan --format markdown > plan.md', 'A pull-request comment')
          .example('$0 plan --baseline <(git show origin/main:sitesync.yaml)', 'Also send write-only fields changed since main')
          .example('$0 plan --detailed-exitcode', 'Drift check: exit 2 when the account differs from the file')
          .example('$0 plan --out plan.json', 'Save the plan to apply it later, exactly')
          .example('$0 plan --account acme --exclude "*.test"', 'In a file with accounts: one account, without its test websites')
          .example('$0 plan --format markdown --fail-unsafe', 'In a pull request: fail the check when apply would refuse the plan'),
      handle(run.plan),
    )
    .command(
      'apply [planfile]',
      'Plan, show the plan, ask, then apply it (or apply a saved plan)',
      (y) =>
        planningOptions(y)
          .positional('planfile', { type: 'string', describe: 'A plan saved by `sitesync plan --out`' })
          .option('auto-approve', { type: 'boolean', describe: 'Do not ask (needed without a terminal)' })
          .option('force', { type: 'boolean', describe: 'Override the safety thresholds' })
          .option('parallelism', { type: 'number', default: 4, requiresArg: true, describe: 'Changes applied at once' })
          .example('$0 apply', 'Show the plan and ask before applying it')
          .example('$0 apply --auto-approve', 'In CI, after merge')
          .example('$0 apply plan.json', 'Apply a saved plan, if the service has not changed since'),
      handle(run.apply),
    )
    .command(
      'export',
      'Write the live account as a config file',
      (y) =>
        accountsFileOptions(y)
          .option('output', { alias: 'o', type: 'string', requiresArg: true, describe: 'Write here instead of stdout' })
          .option('include-favorite', { type: 'boolean', describe: 'Also export the favorite flags' })
          .option('force', { type: 'boolean', describe: 'Overwrite the --output file if it exists (without it, an existing file is refused)' })
          .example('$0 export -o sitesync.yaml', 'Start managing an existing account')
          .example('$0 export -o sitesync.yaml --force', 'Replace an earlier export')
          .example('$0 export -c sitesync.yaml --account acme', 'One account of a file with accounts, in the accounts: form'),
      handle(run.export),
    )
    .command(
      'import [domains..]',
      'Add live websites to the config file, in place, keeping everything else in it',
      (y) =>
        y
          .positional('domains', { type: 'string', array: true, describe: 'Live websites to add (as the service or the file would write them)' })
          .option('config', configOption)
          .option('unmanaged', { type: 'boolean', describe: 'Add every live website the file does not list and does not ignore' })
          .option('dry-run', { type: 'boolean', describe: 'Print the change to the file as a diff; write nothing' })
          .option('account', accountOption)
          .example('$0 import shop.example.com', 'Start managing a website that was added by hand')
          .example('$0 import --unmanaged --dry-run', 'Show what adding every unmanaged website would change')
          .example('$0 import --unmanaged --account acme', 'In a file with accounts: the unmanaged websites of acme'),
      handle(run.import),
    )
    .command(
      'account',
      'Show the account that owns the API key',
      (y) =>
        accountsFileOptions(y)
          .option('format', { choices: ['text', 'json'] as const, default: 'text', describe: 'Output format' })
          .example('$0 account', 'Check the key and see the website limit')
          .example('$0 account -c sitesync.yaml', 'Every account of a file with accounts: checks each key'),
      handle(run.account),
    )
    .command(
      'emulator',
      'Run the bundled local emulator of the service',
      (y) =>
        y
          .option('port', { type: 'number', default: 8080, requiresArg: true, describe: 'Port (0: any free port)' })
          .option('host', { type: 'string', default: '127.0.0.1', requiresArg: true, describe: 'Address to listen on' })
          .option('data', { type: 'string', requiresArg: true, describe: 'Keep the state in this file across restarts' })
          .option('key', { type: 'string', array: true, requiresArg: true, describe: 'An API key to accept, one account each (repeatable)' })
          .option('latency', { type: 'number', default: 0, requiresArg: true, describe: 'Added delay per request, in ms' })
          .option('rate-limit', { type: 'string', requiresArg: true, describe: 'Throttle, as N/SECONDS (the service: 60/60), or off' })
          .option('throttle-by', {
            choices: ['address', 'key'] as const,
            describe: 'What the throttle counts by (default: address on deployed, as the product does; key on full)',
          })
          .option('profile', {
            choices: ['deployed', 'full'] as const,
            default: 'deployed',
            describe: 'deployed: as live installs answer; full: every field',
          })
          .option('website-limit', { type: 'number', default: -1, requiresArg: true, describe: "The plan's website limit (-1: unlimited)" })
          .option('quiet', { type: 'boolean', describe: 'Do not log requests' })
          .example('$0 emulator --port 8080', 'Start it; it prints the key and an export line')
          .example('$0 emulator --data state.json --rate-limit 60/60', 'Persistent, throttled like production'),
      handle(run.emulator),
    )
    .command('ci', 'Helpers for the CI recipes: the plan as one pull-request comment, the job summary', (y) =>
      y
        .command(
          'comment',
          'Post FILE as the plan comment of this pull/merge request, updating the one found by its marker',
          (c) =>
            c
              .option('file', { type: 'string', demandOption: true, requiresArg: true, describe: 'The markdown plan (sitesync plan --format markdown)' })
              .option('provider', { choices: ['github', 'gitlab'] as const, describe: 'Default: detected from the CI environment' })
              .option('pr', {
                type: 'number',
                requiresArg: true,
                describe: 'The pull/merge request number (default: from the CI environment; after a merge, the pushed commit’s pull request)',
              })
              .option('new', { type: 'boolean', describe: 'Post FILE as a new comment (e.g. the result of apply) instead of updating the plan comment' })
              .option('id', {
                type: 'string',
                requiresArg: true,
                describe: "Which config's plan comment (default: the config path plan wrote into FILE's marker): one comment per config",
              })
              .example('$0 ci comment --file plan.md', 'In a pull-request job, with GITHUB_TOKEN set')
              .example('$0 ci comment --file plan.md --id sites/eu.yaml', 'The comment of a second config, even when its plan failed'),
          handle(run.ciComment),
        )
        .command(
          'summary',
          "Append FILE to the job summary (GitHub's $GITHUB_STEP_SUMMARY), or print it",
          (c) =>
            c
              .option('file', { type: 'string', demandOption: true, requiresArg: true, describe: 'The markdown to add' })
              .option('title', { type: 'string', requiresArg: true, describe: 'A heading above it' }),
          handle(run.ciSummary),
        )
        .demandCommand(1, 'Say which: sitesync ci comment or sitesync ci summary.'),
    )
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

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const abort = new AbortController();
  // Every request in flight listens on it (concurrent pages, the pacer's queue): not a leak.
  setMaxListeners(0, abort.signal);
  const ctx: Context = {
    ...io,
    secrets: new SecretValues(),
    out: colorsFor(io.stdout, io.env, flagValue(argv, 'color')),
    err: colorsFor(io.stderr, io.env, flagValue(argv, 'color')),
    verbose: argv.includes('--verbose'),
    signal: abort.signal,
  };
  // Ctrl-C and SIGTERM (CI cancelling a job, a container stopping) both stop gracefully: no new
  // change starts, those in flight finish, the summary says what was not started. A second one quits at once.
  let interrupts = 0;
  const stopOn = (name: StopSignal) => () => {
    interrupts++;
    if (interrupts > 1) process.exit(STOP_SIGNALS[name]);
    abort.abort(name);
  };
  const handlers = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((name) => [name, stopOn(name)] as const);
  for (const [name, handler] of handlers) process.on(name, handler);
  let code = 0;
  try {
    await buildParser(argv, ctx, (c) => (code = c)).parseAsync();
    return code;
  } catch (error) {
    return report(error, ctx);
  } finally {
    for (const [name, handler] of handlers) process.off(name, handler);
  }
}

/** The one catch: expected failures are a message and exit code; anything else is a bug. */
export function report(error: unknown, ctx: Context): number {
  const { stderr, err: c } = ctx;
  if (error instanceof ConfigError) {
    for (const d of error.diagnostics) {
      const line = printable(formatDiagnostic(d));
      stderr.write(`${d.severity === 'error' ? c.red(line) : c.yellow(line)}\n`);
    }
    const count = error.diagnostics.filter((d) => d.severity === 'error').length;
    stderr.write(`${c.red(`${count} ${count === 1 ? 'problem' : 'problems'} found`)}; nothing was changed on the service.\n`);
    return error.exitCode;
  }
  if (error instanceof SitesyncError) {
    // Messages may quote what the service said, or a live domain: shown as data.
    stderr.write(`${c.red(`Error: ${printable(error.message)}`)}\n`);
    for (const line of error.details) stderr.write(`  ${printable(line)}\n`);
    // Only usage errors point at the help (the command's own, when known); other messages say their fix.
    if (error instanceof UsageError) {
      const command = error instanceof CommandLineError && error.command ? `${error.command} ` : '';
      stderr.write(`Run \`sitesync ${command}--help\` for usage.\n`);
    }
    if (error instanceof InterruptedError) return interruptedExitCode(ctx.signal);
    return error.exitCode;
  }
  const e = error instanceof Error ? error : new Error(String(error));
  // An unexpected error's text may hold anything (a library quoting what it read from a
  // response): cleaned of the secrets and shown as data, like any text from outside.
  const shown = (text: string) => printable(ctx.secrets.clean(text));
  stderr.write(`${c.red(`Internal error: ${shown(e.message)}`)}\n`);
  const stack = (e.stack ?? e.message).split('\n').map(shown).join('\n');
  stderr.write(ctx.verbose ? `${stack}\n` : 'This is a bug in sitesync; run with --verbose for details and report it.\n');
  return 1;
}

function flagValue(argv: string[], name: string): boolean | undefined {
  if (argv.includes(`--no-${name}`)) return false;
  if (argv.includes(`--${name}`)) return true;
  return undefined;
}

function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}
