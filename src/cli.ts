/**
 * The command line: read it (yargs), run the command, and the one place where errors become
 * messages and exit codes. Command files do the work and return an exit code.
 */
import { setMaxListeners } from 'node:events';
import { buildParser } from './cli/parser.js';
import type { Command } from './commands/define.js';
import { CommandLineError } from './cli/usage.js';
import {
  ConfigError,
  formatDiagnostic,
  InterruptedError,
  interruptedExitCode,
  SitesyncError,
  STOP_SIGNALS,
  UsageError,
  type StopSignal,
} from './messages/errors.js';
import { printable } from './messages/escape.js';
import { formatWarning } from './render/diagnostics.js';
import { SecretValues } from './secrets/values.js';
import { colorsFor, type Context, type Io } from './io/context.js';

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const abort = new AbortController();
  // Every request in flight listens on it (concurrent pages, the pacer's queue): not a leak.
  setMaxListeners(0, abort.signal);
  const color = flagValue(argv, 'color');
  // Each of process's streams takes a while to set up, and most runs use one or two: the
  // streams (see processIo) and their colours are made on first use.
  const ctx: Context = Object.defineProperties({ secrets: new SecretValues(), verbose: argv.includes('--verbose'), signal: abort.signal } as Context, {
    ...Object.getOwnPropertyDescriptors(io),
    out: onFirstUse(() => colorsFor(ctx.stdout, io.env, color)),
    err: onFirstUse(() => colorsFor(ctx.stderr, io.env, color)),
  });
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
  let running: Command | undefined;
  try {
    await buildParser(argv, async (command, args) => {
      running = command;
      code = await command.run(args, ctx);
    }).parseAsync();
    return code;
  } catch (error) {
    return report(error, ctx, running);
  } finally {
    for (const [name, handler] of handlers) process.off(name, handler);
  }
}

/**
 * The one catch: expected failures are a message and exit code; anything else is a bug.
 * `command` is the command that was running, if one was.
 */
export function report(error: unknown, ctx: Context, command?: Pick<Command, 'online'>): number {
  const { stderr, err: c } = ctx;
  if (error instanceof ConfigError) {
    for (const d of error.diagnostics) {
      const line = printable(d.severity === 'error' ? formatDiagnostic(d) : formatWarning(d, ctx.cwd));
      stderr.write(`${d.severity === 'error' ? c.red(line) : c.yellow(line)}\n`);
    }
    const count = error.diagnostics.filter((d) => d.severity === 'error').length;
    // Offline commands (validate, fmt, show) never touch the service: saying so would only puzzle.
    const unchanged = command?.online ? '; nothing was changed on the service' : '';
    stderr.write(`${c.red(`${count} ${count === 1 ? 'problem' : 'problems'} found`)}${unchanged}.\n`);
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
  return Object.defineProperties({ env: process.env, cwd: process.cwd() } as Io, {
    stdout: onFirstUse(() => quietWhenClosed(process.stdout)),
    stderr: onFirstUse(() => quietWhenClosed(process.stderr)),
    stdin: onFirstUse(() => process.stdin),
  });
}

/** 128 + SIGPIPE: what a shell shows for git or terraform when the reader of their output goes away. */
export const CLOSED_OUTPUT_EXIT_CODE = 141;

let outputClosed = false;

/**
 * A reader that closes early (`sitesync plan | head -1`) ends the output, not the run, and no
 * trace is printed: what is still written there goes nowhere, the command finishes its work (an
 * apply stopped half way would help nobody), and the process exits 141, as git and terraform
 * do — unless the run failed otherwise, whose code (1, 130, 143) says more.
 */
function quietWhenClosed(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (outputClosed) return;
    outputClosed = true;
    process.once('exit', () => {
      if (!process.exitCode || process.exitCode === 2) process.exitCode = CLOSED_OUTPUT_EXIT_CODE;
    });
  });
  return stream;
}

/** A property whose value is made when first read. */
function onFirstUse<T>(make: () => T): PropertyDescriptor {
  let value: T | undefined;
  let made = false;
  return {
    enumerable: true,
    get: () => {
      if (!made) {
        value = make();
        made = true;
      }
      return value;
    },
  };
}
