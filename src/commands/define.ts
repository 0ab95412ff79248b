/**
 * How a command declares itself: its words, options, positionals, examples, whether it talks to
 * the service, and what runs it. The options are declared once, as data that cli/parser.ts hands
 * to yargs, and the runner receives them typed from that same declaration: rename an option and
 * the command that reads it no longer compiles. Option entries are yargs option declarations:
 * `type`, `choices`, `alias` (one letter), `array`, `default`, `requiresArg`, `demandOption`.
 */
import type { Context } from '../io/context.js';

export interface OptionSpec {
  type?: 'string' | 'boolean' | 'number';
  /** The values a string option allows. */
  choices?: readonly string[];
  /** A one-letter short form: `c` for `-c`. */
  alias?: string;
  /** Repeatable: `--target a --target b`. */
  array?: boolean;
  default?: string | number | boolean;
  requiresArg?: boolean;
  demandOption?: boolean;
  describe: string;
}

export interface PositionalSpec {
  type: 'string';
  /** Takes every remaining word: `fmt [files..]`. */
  array?: boolean;
  describe: string;
}

export type Options = Readonly<Record<string, OptionSpec>>;
export type Positionals = Readonly<Record<string, PositionalSpec>>;

/** `detailed-exitcode` → `detailedExitcode`: the key a command reads. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

export function camelCase(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

type ValueOf<O extends OptionSpec> = O extends { choices: readonly (infer C)[] }
  ? C
  : O extends { type: 'boolean' }
    ? boolean
    : O extends { type: 'number' }
      ? number
      : string;

type ArgOf<O extends OptionSpec> = O extends { array: true } ? ValueOf<O>[] : ValueOf<O>;

/** Always there: a default (not undefined), or demanded. */
type Given<O extends OptionSpec> = O extends { demandOption: true } ? true : O extends { default: infer D } ? (D extends undefined ? false : true) : false;

/** The arguments a command receives for its options, keyed as it reads them (camelCase). */
export type ArgsOf<T extends Options> = {
  [K in keyof T as Given<T[K]> extends true ? CamelCase<K & string> : never]: ArgOf<T[K]>;
} & {
  [K in keyof T as Given<T[K]> extends true ? never : CamelCase<K & string>]?: ArgOf<T[K]>;
};

/** The arguments a command receives for its positionals: each optional (a command says what is missing in its own words). */
export type PositionalArgsOf<T extends Positionals> = {
  [K in keyof T]?: T[K] extends { array: true } ? string[] : string;
};

/** Options every command takes. */
export const GLOBAL_OPTIONS = {
  'base-url': { type: 'string', requiresArg: true, describe: 'The service base URL' },
  'api-key-file': { type: 'string', requiresArg: true, describe: 'Read the API key from this file' },
  'insecure-http': { type: 'boolean', describe: 'Allow plain http:// to a non-loopback host' },
  color: { type: 'boolean', describe: 'Colour on a terminal (--no-color, or NO_COLOR, turns it off)' },
  verbose: { type: 'boolean', describe: 'Log every request to stderr (never the key)' },
} as const satisfies Options;

export type GlobalArgs = ArgsOf<typeof GLOBAL_OPTIONS>;

/** What a command's runner receives: its options, its positionals and the global options. */
export type CommandArgs<O extends Options, P extends Positionals = Record<never, PositionalSpec>> = ArgsOf<O> & PositionalArgsOf<P> & GlobalArgs;

/** A command as the command line knows it, its runner's types erased: what cli/parser.ts declares to yargs. */
export interface Command {
  /** The words that name it: `['plan']`, `['ci', 'comment']`. */
  path: readonly string[];
  describe: string;
  /** Optional positional arguments, in order: `apply [planfile]`. */
  positionals?: Positionals;
  options: Options;
  /** Shown in the command's help: [command line, what it does]. */
  examples?: readonly (readonly [string, string])[];
  /** It talks to the service: only its failures say that nothing was changed on it. */
  online: boolean;
  run: (args: Record<string, unknown>, ctx: Context) => Promise<number>;
}

export interface CommandDefinition<O extends Options, P extends Positionals> extends Omit<Command, 'run' | 'options' | 'positionals'> {
  options: O;
  positionals?: P;
  run: (args: CommandArgs<O, P>, ctx: Context) => Promise<number>;
}

/**
 * A command whose runner reads the arguments its own declaration gives. yargs hands over an
 * untyped record parsed from exactly these options (cli/parser.ts checks values, repeats and
 * words after `--` before the runner is called): its shape is the one ArgsOf derives.
 */
export function defineCommand<const O extends Options, const P extends Positionals = Record<never, PositionalSpec>>(definition: CommandDefinition<O, P>): Command {
  return { ...definition, run: (args, ctx) => definition.run(args as CommandArgs<O, P>, ctx) };
}

// Options that several commands share.

export const config = {
  alias: 'c',
  type: 'string',
  default: 'sitesync.yaml',
  describe: 'The config file',
  requiresArg: true,
} as const satisfies OptionSpec;

export const account = {
  type: 'string',
  array: true,
  requiresArg: true,
  describe: 'In a file with accounts: only the account NAME (repeatable)',
} as const satisfies OptionSpec;

/** In a pull request: the base branch's copy of the config, whose connections, safety and password variables bind the file. */
export const trustedConfig = {
  type: 'string',
  requiresArg: true,
  describe: "The base branch's copy of the config: accounts, base URLs and key variables are taken from it, and the file must keep them; its safety is the loosest allowed, its password_env binds the passwords",
} as const satisfies OptionSpec;

/** export and account read the config file only when asked to (for its accounts). */
export const accountsFile = {
  config: { ...config, default: undefined, describe: 'The config file whose accounts to read (default: sitesync.yaml when there is one)' },
  account,
  'trusted-config': trustedConfig,
} as const satisfies Options;

/** What plan and apply share. */
export const planning = {
  config,
  prune: { type: 'boolean', describe: 'Delete live websites that the file does not list (as prune: true)' },
  target: {
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'Only plan websites whose domain matches GLOB (repeatable; * matches within a label)',
  },
  exclude: {
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'Leave out websites whose domain matches GLOB (repeatable; the inverse of --target)',
  },
  account,
  'trusted-config': trustedConfig,
  baseline: {
    type: 'string',
    requiresArg: true,
    describe: 'An earlier version of the file: write-only fields that differ from it are sent',
  },
  'baseline-ref': {
    type: 'string',
    requiresArg: true,
    describe: 'The baseline is the file and its includes at this git revision (e.g. HEAD~1, origin/main), read from git, no checkout',
  },
  'resend-write-only': {
    type: 'boolean',
    describe: 'Send write-only fields (password, unreadable ones) to every managed website that sets them',
  },
} as const satisfies Options;

export type PlanningArgs = CommandArgs<typeof planning>;
