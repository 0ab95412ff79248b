/**
 * Command-line mistakes explained: yargs finds them (strict mode), this says what is unknown
 * and what was probably meant. Pure: the words come from yargs' message, the known flags and
 * commands from the parser. Values given to unknown flags are never repeated (one may be a key).
 */
import { suggest } from './config/suggest.js';
import { UsageError } from './errors.js';

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

export interface CommandLineFacts {
  /** The arguments as typed. */
  argv: readonly string[];
  /** The command being parsed, e.g. `[]` or `['ci']` or `['plan']`. */
  command: readonly string[];
  /** The sub-commands that can follow `command`. */
  commands: readonly string[];
  /** Every option the command accepts, without dashes (aliases included). */
  flags: readonly string[];
}

/** Flags people reach for to pass a key: there is none, and why. */
const KEY_FLAGS = new Set(['api-key', 'apikey', 'key', 'token', 'api-token', 'bearer']);

const KEY_REASON =
  'the API key is never a command-line argument, where shell history, CI logs and the process list would show it: set SITESYNC_API_KEY, or put it in a file and pass --api-key-file FILE';

/**
 * The lines that explain a yargs failure message, or undefined when the message is not about
 * unknown words (then yargs' own message is clear enough).
 */
export function explainUnknown(message: string, facts: CommandLineFacts): string[] | undefined {
  const m = /^Unknown arguments?: (.*)$/s.exec(message);
  if (!m) return undefined;
  const listed = m[1]!.split(', ').map((w) => w.trim()).filter(Boolean);
  // yargs names every dashed flag twice (`detailed-exit-code, detailedExitCode`): keep the typed form.
  const words = listed.filter((w) => !(/[A-Z]/.test(w) && listed.includes(kebab(w))));
  const where = facts.command.length ? `sitesync ${facts.command.join(' ')}` : 'sitesync';
  return words.map((word) => (isTypedFlag(word, facts.argv) ? explainFlag(word, facts, where) : explainPositional(word, facts, where)));
}

function explainFlag(name: string, facts: CommandLineFacts, where: string): string {
  const typed = name.length === 1 ? `-${name}` : `--${name}`;
  if (KEY_FLAGS.has(name.toLowerCase())) return `there is no ${typed} option: ${KEY_REASON}`;
  const long = facts.flags.filter((f) => f.length > 1);
  const close = suggest(name, long) ?? long.find((f) => f.startsWith(name) && name.length >= 3);
  if (close) return `unknown option ${typed} for ${where}: did you mean --${close}?`;
  return `unknown option ${typed} for ${where}`;
}

function explainPositional(word: string, facts: CommandLineFacts, where: string): string {
  if (facts.commands.length) {
    const close = suggest(word, facts.commands);
    const list = facts.commands.join(', ');
    return close
      ? `unknown command "${word}" for ${where}: did you mean "${close}"?`
      : `unknown command "${word}" for ${where}; the commands are: ${list}`;
  }
  return `${where} takes no argument "${word}"`;
}

/** Whether `name` was typed as a flag (`--name`, `--name=…`, `--no-name`, `-n`), not as a word. */
function isTypedFlag(name: string, argv: readonly string[]): boolean {
  return argv.some((arg) => {
    if (!arg.startsWith('-')) return false;
    const bare = arg.replace(/^--?/, '').split('=', 1)[0]!;
    if (bare === name || bare === `no-${name}`) return true;
    // -abc: a bundle of one-letter flags.
    return name.length === 1 && /^-[^-]/.test(arg) && bare.includes(name);
  });
}

function kebab(word: string): string {
  return word.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
