/**
 * Command-line mistakes explained: yargs finds them (strict mode), this says what is unknown
 * and what was probably meant. Pure: the words come from yargs' message, the known flags and
 * commands from the parser. Values given to unknown flags are never repeated (one may be a key).
 */
import { orList, suggest } from '../messages/suggest.js';

export { CommandLineError } from '../messages/errors.js';

export interface CommandLineFacts {
  /** The arguments as typed. */
  argv: readonly string[];
  /** The command being parsed, e.g. `[]` or `['ci']` or `['plan']`. */
  command: readonly string[];
  /** The sub-commands that can follow `command`. */
  commands: readonly string[];
  /** Every option the command accepts, without dashes (aliases included). */
  flags: readonly string[];
  /** The command's options (the global ones included) by long name, for messages about their values. */
  options?: Readonly<Record<string, OptionFacts>>;
  /** Each sub-command of `command` with its own options (aliases included): a flag typed before its command. */
  commandFlags?: Readonly<Record<string, readonly string[]>>;
}

/** What a message about an option's value needs to know of it (an OptionSpec of src/cli-commands.ts). */
export interface OptionFacts {
  type?: 'string' | 'boolean' | 'number';
  choices?: readonly string[];
  alias?: string;
}

/** A failure of the command line as what to fix: one line, or a headline and a line per mistake. */
export interface Explained {
  message: string;
  details?: string[];
}

/** Flags people reach for to pass a key: there is none, and why. */
const KEY_FLAGS = new Set(['api-key', 'apikey', 'key', 'token', 'api-token', 'bearer']);

const KEY_REASON =
  'the API key is never a command-line argument, where shell history, CI logs and the process list would show it: set SITESYNC_API_KEY, or put it in a file and pass --api-key-file FILE';

/**
 * yargs' failure message in sitesync's words: unknown words with what was meant, and options
 * whose value is missing or not one they take, each named as typed in help (`--format`). Any
 * other message is yargs' own, on one line.
 */
export function explainFailure(message: string, facts: CommandLineFacts): Explained {
  const unknown = explainUnknown(message, facts);
  if (unknown) return headed(unknown, `${unknown.length} unknown arguments`);
  const values = explainValues(message, facts.options ?? {});
  if (values) return headed(values, `${values.length} options have wrong values`);
  const before = explainBeforeCommand(facts);
  if (before) return headed(before, `${before.length} unknown arguments`);
  const [first, ...rest] = message.split('\n').map((l) => l.trim()).filter(Boolean);
  return rest.length ? { message: first ?? message, details: rest } : { message: first ?? message };
}

function headed(lines: string[], headline: string): Explained {
  return lines.length === 1 ? { message: lines[0]! } : { message: headline, details: lines };
}

/**
 * The lines that explain a yargs failure about values (`Not enough arguments following: o`,
 * `Invalid values: …`, `Missing required argument: file`), or undefined for any other message.
 */
export function explainValues(message: string, options: Readonly<Record<string, OptionFacts>>): string[] | undefined {
  const following = /^Not enough arguments following: (.+)$/.exec(message);
  if (following) return [needsValue(following[1]!.trim(), options)];
  if (message.startsWith('Invalid values:')) {
    return message
      .split('\n')
      .slice(1)
      .map((line) => /^\s*Argument: (.+?), Given: (.*), Choices: .*$/.exec(line))
      .filter((m) => m !== null)
      .map(([, name, given]) => (given === '""' ? needsValue(name!, options) : notAChoice(name!, given!, options)));
  }
  const required = /^Missing required arguments?: (.+)$/.exec(message);
  if (required) return required[1]!.split(', ').map((name) => `${flagName(name.trim(), options)} is required`);
  return undefined;
}

/** `--config (-c) needs a value`, with what it takes when that is short to say. */
export function needsValue(name: string, options: Readonly<Record<string, OptionFacts>>): string {
  const spec = options[longName(name, options)];
  const takes = spec?.choices ? `: ${orList(spec.choices)}` : spec?.type === 'number' ? ': a number' : '';
  return `${flagName(name, options)} needs a value${takes}`;
}

function notAChoice(name: string, given: string, options: Readonly<Record<string, OptionFacts>>): string {
  const choices = options[longName(name, options)]?.choices;
  return `${flagName(name, options)} must be ${choices ? orList(choices) : 'one of its choices'}, not ${given}`;
}

/** An option as typed in help: `--config (-c)`, whichever of its names yargs used. */
function flagName(name: string, options: Readonly<Record<string, OptionFacts>>): string {
  const long = longName(name, options);
  const alias = options[long]?.alias;
  return alias ? `--${long} (-${alias})` : `--${long}`;
}

/** The long name of an option named by yargs: itself, its one-letter alias, or its camelCase key. */
function longName(name: string, options: Readonly<Record<string, OptionFacts>>): string {
  if (name in options) return name;
  const found = Object.entries(options).find(([long, spec]) => spec.alias === name || kebab(name) === long);
  return found ? found[0] : name;
}

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
  // yargs names `--no-colour` as `colour`: said as typed, and what was meant with its `no-`.
  const no = !isTypedFlag(name, facts.argv, false) && isTypedFlag(name, facts.argv) ? 'no-' : '';
  const typed = name.length === 1 ? `-${name}` : `--${no}${name}`;
  if (KEY_FLAGS.has(name.toLowerCase())) return `there is no ${typed} option: ${KEY_REASON}`;
  // A dry run of apply is a plan: said so, not just refused.
  if (name === 'dry-run' && facts.command[0] === 'apply') return `there is no --dry-run option for ${where}: \`sitesync plan\` (same options) shows what apply would do, and writes nothing`;
  const long = facts.flags.filter((f) => f.length > 1);
  const close = suggest(name, long) ?? long.find((f) => f.startsWith(name) && name.length >= 3);
  if (close) return `unknown option ${typed} for ${where}: did you mean --${no}${close}?`;
  return `unknown option ${typed} for ${where}`;
}

/**
 * Flags typed before the command that yargs did not name: an unknown one takes the command as
 * its value (`sitesync --verbos plan`), and yargs only says that no command was given. Each is
 * explained as it would be after the command; one that the next word's command takes is to go
 * after it. Undefined when there is none.
 */
function explainBeforeCommand(facts: CommandLineFacts): string[] | undefined {
  const where = facts.command.length ? `sitesync ${facts.command.join(' ')}` : 'sitesync';
  const lines: string[] = [];
  const argv = wordsBeforeDashes(facts.argv);
  argv.forEach((arg, i) => {
    const typed = /^--?([^-=][^=]*)/.exec(arg)?.[1];
    if (!typed) return;
    for (const name of arg.startsWith('--') ? [typed.replace(/^no-/, '')] : [...typed]) {
      if (facts.flags.includes(name)) continue;
      const next = argv[i + 1];
      const commands = facts.commandFlags ?? {};
      if (next !== undefined && commands[next]?.includes(name)) {
        lines.push(`${arg} is an option of ${where} ${next}: put it after the command (${where} ${next} ${arg})`);
      } else if (!Object.values(commands).some((flags) => flags.includes(name))) {
        lines.push(explainFlag(name, facts, where));
      }
    }
  });
  return lines.length ? lines : undefined;
}

function explainPositional(word: string, facts: CommandLineFacts, where: string): string {
  if (facts.commands.length) {
    const close = suggest(word, facts.commands);
    const list = facts.commands.join(', ');
    return close
      ? `unknown command "${word}" for ${where}: did you mean "${close}"?`
      : `unknown command "${word}" for ${where}; the commands are: ${list}`;
  }
  // A config file given as an argument, where the command takes it with -c.
  if (facts.flags.includes('c') && /\.ya?ml$/i.test(word)) return `${where} takes no argument "${word}": name the config file with -c (${where} -c ${word})`;
  return `${where} takes no argument "${word}"`;
}

/**
 * The first option typed with an empty value (`--port=`, `--out ''`, `-c=`), by long name: yargs
 * reads it as '' or, for a number, as 0, which no option means. Words after `--` are not options.
 */
export function emptyValue(argv: readonly string[], options: Readonly<Record<string, OptionFacts>>): string | undefined {
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const typed = /^--?([^=]+)(=?)(.*)$/s.exec(argv[i]!);
    if (!typed) continue;
    const name = longName(typed[1]!, options);
    if (!options[name] || options[name].type === 'boolean') continue;
    const value = typed[2] ? typed[3] : argv[i + 1];
    if (value?.trim() === '') return name;
  }
  return undefined;
}

/** Whether `name` was typed as a flag (`--name`, `--name=…`, `--no-name` unless not `negated`, `-n`), not as a word. */
function isTypedFlag(name: string, argv: readonly string[], negated = true): boolean {
  return argv.some((arg) => {
    if (!arg.startsWith('-')) return false;
    const bare = arg.replace(/^--?/, '').split('=', 1)[0]!;
    if (bare === name || (negated && bare === `no-${name}`)) return true;
    // -abc: a bundle of one-letter flags.
    return name.length === 1 && /^-[^-]/.test(arg) && bare.includes(name);
  });
}

function kebab(word: string): string {
  return word.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The command line's words before `--`: what is typed as flags (after it, every word is data). */
export function wordsBeforeDashes(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end < 0 ? argv : argv.slice(0, end);
}
