/**
 * The few error classes that cross module boundaries. `cli.ts` is the one place that catches
 * them and turns them into a message and an exit code; everything else just throws.
 */

export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  message: string;
  severity: 'error' | 'warning';
  /** The account of an `accounts:` file the problem belongs to, when the file itself does not say (an included file). */
  account?: string;
  /** The environment variable that is not set, when that is the problem (a password's `${NAME}`). */
  missing?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line > 0 ? `${d.file}:${d.line}:${d.col}` : d.file;
  return `${where}: ${d.severity === 'warning' ? 'warning: ' : ''}${d.message}`;
}

/**
 * That an error stopped everything before any write (to the service, or to a file): `true`, or
 * the words just before and after "nothing was written" where the message says more around them
 * (`{ before: 'a saved plan is applied whole, so ' }`).
 */
export type NothingWritten = true | { before?: string; after?: string };

export interface SitesyncErrorOptions extends ErrorOptions {
  nothingWritten?: NothingWritten;
}

/** An expected failure: the message is for the user, no stack trace. Exit code 1. */
export class SitesyncError extends Error {
  override name = 'SitesyncError';
  /** Extra lines printed under the message (hints, lists). */
  details: string[] = [];
  exitCode = 1;
  /**
   * Nothing was written before it stopped. The message ends so, worded here once (the message,
   * not its printer: the CLI, the library and the accounts' list of failures all show it).
   */
  readonly nothingWritten: boolean;

  constructor(message: string, options: SitesyncErrorOptions = {}) {
    const { nothingWritten, ...rest } = options;
    super(nothingWritten ? `${message}${nothingWrittenEnding(nothingWritten)}` : message, rest);
    this.nothingWritten = nothingWritten !== undefined;
  }
}

function nothingWrittenEnding(said: NothingWritten): string {
  const { before = '', after = '' } = said === true ? {} : said;
  return `; ${before}nothing was written${after}`;
}

/** Wrong command-line usage (bad flag value, conflicting flags). */
export class UsageError extends SitesyncError {
  override name = 'UsageError';
}

/** The config file (or a baseline, or a saved plan) is unreadable or invalid: every problem at once. */
export class ConfigError extends SitesyncError {
  override name = 'ConfigError';
  constructor(readonly diagnostics: Diagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    super(
      errors.length === 1
        ? formatDiagnostic(errors[0]!)
        : `${errors.length} problems in ${errors[0]?.file ?? 'the file'}`,
    );
  }
}

/** Throws `message` as the one problem of `file`, at `pos` (line 0: of the file as a whole). */
export function refuseFile(file: string, message: string, pos = { line: 0, col: 0 }): never {
  throw new ConfigError([{ file, ...pos, message, severity: 'error' }]);
}

/** A safety check refused the change before anything was written. */
export class SafetyError extends SitesyncError {
  override name = 'SafetyError';
}

/** A website's history read again found less than an earlier read (history only grows): the service's error, and its delete is not sent. */
export class HistoryShrunkError extends SitesyncError {
  override name = 'HistoryShrunkError';
}

/** A saved plan no longer matches the service. */
export class StalePlanError extends SitesyncError {
  override name = 'StalePlanError';
}

/** The user said no, or there was nobody to ask. */
export class NotApprovedError extends SitesyncError {
  override name = 'NotApprovedError';
}

/** The run was interrupted (Ctrl-C or SIGTERM). */
export class InterruptedError extends SitesyncError {
  override name = 'InterruptedError';
  override exitCode = 130;
}

/** The signals sitesync stops gracefully on, and the exit code of each (128 + its number, as shells do). */
export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof STOP_SIGNALS;

/** The exit code for a run stopped through `signal`, whose abort reason is the signal's name. */
export function interruptedExitCode(signal: AbortSignal): number {
  return signal.reason === 'SIGTERM' ? STOP_SIGNALS.SIGTERM : STOP_SIGNALS.SIGINT;
}

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
