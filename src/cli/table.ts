/**
 * The command line as data: every command, its options, its examples and what runs it, which
 * src/cli-yargs.ts declares to yargs. Adding a flag is one entry here. Option entries are yargs
 * option declarations: `type`, `choices`, `alias` (one letter), `array`, `default`,
 * `requiresArg`, `demandOption`.
 */
import { runAccount } from '../commands/account.js';
import { runApply } from '../commands/apply.js';
import { runCiComment, runCiSummary } from '../commands/ci.js';
import { runEmulator } from '../commands/emulator.js';
import { runExport } from '../commands/export.js';
import { runFmt } from '../commands/fmt.js';
import { runImport } from '../commands/import.js';
import { runPlan } from '../commands/plan.js';
import { runShow } from '../commands/show.js';
import { runValidate } from '../commands/validate.js';
import type { Context } from '../io/terminal.js';

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

type Runner = (args: never, ctx: Context) => Promise<number>;

export interface CommandSpec {
  /** The words that name it: `['plan']`, `['ci', 'comment']`. */
  path: readonly string[];
  describe: string;
  /** Optional positional arguments, in order: `apply [planfile]`. */
  positionals?: Readonly<Record<string, PositionalSpec>>;
  options: Readonly<Record<string, OptionSpec>>;
  /** Shown in the command's help: [command line, what it does]. */
  examples?: readonly (readonly [string, string])[];
  run: (args: Record<string, unknown>, ctx: Context) => Promise<number>;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS = {
  'base-url': { type: 'string', requiresArg: true, describe: 'The service base URL' },
  'api-key-file': { type: 'string', requiresArg: true, describe: 'Read the API key from this file' },
  'insecure-http': { type: 'boolean', describe: 'Allow plain http:// to a non-loopback host' },
  color: { type: 'boolean', describe: 'Colour on a terminal (--no-color, or NO_COLOR, turns it off)' },
  verbose: { type: 'boolean', describe: 'Log every request to stderr (never the key)' },
} as const satisfies Record<string, OptionSpec>;

const config = {
  alias: 'c',
  type: 'string',
  default: 'sitesync.yaml',
  describe: 'The config file',
  requiresArg: true,
} as const satisfies OptionSpec;

const account = {
  type: 'string',
  array: true,
  requiresArg: true,
  describe: 'In a file with accounts: only the account NAME (repeatable)',
} as const satisfies OptionSpec;

/** In a pull request: the base branch's copy of the config, whose connections the file must keep. */
const trustedConfig = {
  type: 'string',
  requiresArg: true,
  describe: "The base branch's copy of the config: accounts, base URLs and key variables are taken from it, and the file must keep them",
} as const satisfies OptionSpec;

/** export and account read the config file only when asked to (for its accounts). */
const accountsFile = {
  config: { ...config, default: undefined, describe: 'The config file whose accounts to read (default: sitesync.yaml when there is one)' },
  account,
  'trusted-config': trustedConfig,
} as const satisfies Record<string, OptionSpec>;

/** What plan and apply share. */
const planning = {
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
  'resend-write-only': {
    type: 'boolean',
    describe: 'Send write-only fields (password, unreadable ones) to every managed website that sets them',
  },
} as const satisfies Record<string, OptionSpec>;

/** A command's runner, which reads the arguments yargs parsed as its own typed args. */
const command =
  (runner: Runner) =>
  (args: Record<string, unknown>, ctx: Context): Promise<number> =>
    runner(args as never, ctx);

export const COMMAND_TABLE: readonly CommandSpec[] = [
  {
    path: ['validate'],
    describe: 'Check the config file offline: every problem as FILE:LINE:COL: message',
    options: {
      config,
      format: {
        choices: ['text', 'github', 'json'],
        default: 'text',
        describe: 'text: FILE:LINE:COL lines; github: annotations on the pull request; json: the problems as data',
      },
      'strict-env': { type: 'boolean', describe: 'An unset ${NAME} is an error, as for plan and apply (default: a warning)' },
    },
    examples: [
      ['$0 validate -c sites/prod.yaml', 'Check a file without network or key'],
      ['$0 validate --format github', 'In a GitHub workflow: each problem on its line of the pull request'],
    ],
    run: command(runValidate),
  },
  {
    path: ['fmt'],
    describe: 'Rewrite config files in the canonical layout (and the files they include); offline',
    positionals: { files: { type: 'string', array: true, describe: 'The config files (default: sitesync.yaml)' } },
    options: {
      check: { type: 'boolean', describe: 'Write nothing; show the changes as a diff and exit 1 when a file is not formatted' },
      sort: { type: 'boolean', describe: 'Also sort the websites by domain' },
    },
    examples: [
      ['$0 fmt', 'Format sitesync.yaml and the files it includes'],
      ['$0 fmt --check', 'In CI: fail, with a diff, when a file is not formatted'],
      ['$0 fmt --sort sites/*.yaml', 'Format these files, websites in domain order'],
    ],
    run: command(runFmt),
  },
  {
    path: ['plan'],
    describe: 'Show what apply would change; never writes to the service',
    options: {
      ...planning,
      format: { choices: ['text', 'markdown', 'json'], default: 'text', describe: 'Output format' },
      out: { type: 'string', requiresArg: true, describe: 'Save the plan for `sitesync apply PLANFILE`' },
      'detailed-exitcode': { type: 'boolean', describe: 'Exit 0 when nothing changes, 2 when something would' },
      'fail-unsafe': {
        type: 'boolean',
        describe: 'Exit 1, after printing the plan, when apply would refuse it (delete threshold, website limit)',
      },
    },
    examples: [
      ['$0 plan', 'Compare sitesync.yaml with the live account'],
      ['$0 plan --format markdown > plan.md', 'A pull-request comment'],
      ['$0 plan --baseline <(git show origin/main:sitesync.yaml)', 'Also send write-only fields changed since main'],
      ['$0 plan --detailed-exitcode', 'Drift check: exit 2 when the account differs from the file'],
      ['$0 plan --out plan.json', 'Save the plan to apply it later, exactly'],
      ['$0 plan --account acme --exclude "*.test"', 'In a file with accounts: one account, without its test websites'],
      ['$0 plan --format markdown --fail-unsafe', 'In a pull request: fail the check when apply would refuse the plan'],
    ],
    run: command(runPlan),
  },
  {
    path: ['apply'],
    describe: 'Plan, show the plan, ask, then apply it (or apply a saved plan)',
    positionals: { planfile: { type: 'string', describe: 'A plan saved by `sitesync plan --out`' } },
    options: {
      ...planning,
      'auto-approve': { type: 'boolean', describe: 'Do not ask (needed without a terminal)' },
      force: { type: 'boolean', describe: 'Override the safety thresholds' },
      parallelism: { type: 'number', default: 4, requiresArg: true, describe: 'Changes applied at once' },
      report: { type: 'string', requiresArg: true, describe: 'Also write what apply did as markdown to FILE (e.g. for a comment on the merged pull request)' },
    },
    examples: [
      ['$0 apply', 'Show the plan and ask before applying it'],
      ['$0 apply --auto-approve', 'In CI, after merge'],
      ['$0 apply plan.json', 'Apply a saved plan, if the service has not changed since'],
    ],
    run: command(runApply),
  },
  {
    path: ['export'],
    describe: 'Write the live account as a config file',
    options: {
      ...accountsFile,
      output: { alias: 'o', type: 'string', requiresArg: true, describe: 'Write here instead of stdout' },
      'include-favorite': { type: 'boolean', describe: 'Also export the favorite flags' },
      force: { type: 'boolean', describe: 'Overwrite the --output file if it exists (without it, an existing file is refused)' },
    },
    examples: [
      ['$0 export -o sitesync.yaml', 'Start managing an existing account'],
      ['$0 export -o sitesync.yaml --force', 'Replace an earlier export'],
      ['$0 export -c sitesync.yaml --account acme', 'One account of a file with accounts, in the accounts: form'],
    ],
    run: command(runExport),
  },
  {
    path: ['import'],
    describe: 'Add live websites to the config file, in place, keeping everything else in it',
    positionals: {
      domains: { type: 'string', array: true, describe: 'Live websites to add (as the service or the file would write them)' },
    },
    options: {
      config,
      unmanaged: { type: 'boolean', describe: 'Add every live website the file does not list and does not ignore' },
      'dry-run': { type: 'boolean', describe: 'Print the change to the file as a diff; write nothing' },
      into: {
        type: 'string',
        requiresArg: true,
        describe: "The file the entries go into: the config file or one its account includes (default: where the account's websites are)",
      },
      account,
    },
    examples: [
      ['$0 import shop.example.com', 'Start managing a website that was added by hand'],
      ['$0 import shop.globex.example --into clients/globex/websites.yaml', "Into one of the files an account includes"],
      ['$0 import --unmanaged --dry-run', 'Show what adding every unmanaged website would change'],
      ['$0 import --unmanaged --account acme', 'In a file with accounts: the unmanaged websites of acme'],
    ],
    run: command(runImport),
  },
  {
    path: ['account'],
    describe: 'Show the account that owns the API key',
    options: {
      ...accountsFile,
      format: { choices: ['text', 'json'], default: 'text', describe: 'Output format' },
    },
    examples: [
      ['$0 account', 'Check the key and see the website limit'],
      ['$0 account -c sitesync.yaml', 'Every account of a file with accounts: checks each key'],
    ],
    run: command(runAccount),
  },
  {
    path: ['show'],
    describe: 'Show a plan saved by `sitesync plan --out`, offline (no key, nothing read from the service)',
    positionals: { planfile: { type: 'string', describe: 'A plan saved by `sitesync plan --out`' } },
    options: {
      format: { choices: ['text', 'markdown', 'json'], default: 'text', describe: 'Output format (markdown: the whole plan, up to a job summary\'s size)' },
    },
    examples: [
      ['$0 show plan.json', "A pull request's plan artifact, read without a key"],
      ['$0 show plan.json --format markdown >> "$GITHUB_STEP_SUMMARY"', 'The whole plan in the job summary'],
    ],
    run: command(runShow),
  },
  {
    path: ['emulator'],
    describe: 'Run the bundled local emulator of the service',
    options: {
      port: { type: 'number', default: 8080, requiresArg: true, describe: 'Port (0: any free port)' },
      host: { type: 'string', default: '127.0.0.1', requiresArg: true, describe: 'Address to listen on' },
      data: { type: 'string', requiresArg: true, describe: 'Keep the state in this file across restarts' },
      key: { type: 'string', array: true, requiresArg: true, describe: 'An API key to accept, one account each (repeatable)' },
      latency: { type: 'number', default: 0, requiresArg: true, describe: 'Added delay per request, in ms' },
      'rate-limit': { type: 'string', requiresArg: true, describe: 'Throttle, as N/SECONDS (the service: 60/60), or off' },
      'throttle-by': {
        choices: ['address', 'key'],
        describe: 'What the throttle counts by (default: address on deployed, as the product does; key on full)',
      },
      profile: { choices: ['deployed', 'full'], default: 'deployed', describe: 'deployed: as live installs answer; full: every field' },
      'website-limit': { type: 'number', default: -1, requiresArg: true, describe: "The plan's website limit (-1: unlimited)" },
      traffic: {
        type: 'string',
        array: true,
        requiresArg: true,
        describe: 'Pageviews for websites whose domain matches PATTERN, spread over the last DAYS days (default 365): PATTERN=PAGEVIEWS[/DAYS] (repeatable)',
      },
      quiet: { type: 'boolean', describe: 'Do not log requests' },
    },
    examples: [
      ['$0 emulator --port 8080', 'Start it; it prints the key and an export line'],
      ['$0 emulator --data state.json --rate-limit 60/60', 'Persistent, throttled like production'],
      ['$0 emulator --traffic "old.example.com=12340/400"', 'A website with history: its delete says what it destroys'],
    ],
    run: command(runEmulator),
  },
  {
    path: ['ci', 'comment'],
    describe: 'Post FILE as the plan comment of this pull/merge request, updating the one found by its marker',
    options: {
      file: { type: 'string', demandOption: true, requiresArg: true, describe: 'The markdown plan (sitesync plan --format markdown)' },
      provider: { choices: ['github', 'gitlab'], describe: 'Default: detected from the CI environment' },
      pr: {
        type: 'number',
        requiresArg: true,
        describe: 'The pull/merge request number (default: from the CI environment; after a merge, the pushed commit’s pull request)',
      },
      new: { type: 'boolean', describe: 'Post FILE as a new comment (e.g. the result of apply) instead of updating the plan comment' },
      id: {
        type: 'string',
        requiresArg: true,
        describe: "Which config's plan comment (default: the config path plan wrote into FILE's marker): one comment per config",
      },
    },
    examples: [
      ['$0 ci comment --file plan.md', 'In a pull-request job, with GITHUB_TOKEN set'],
      ['$0 ci comment --file plan.md --id sites/eu.yaml', 'The comment of a second config, even when its plan failed'],
    ],
    run: command(runCiComment),
  },
  {
    path: ['ci', 'summary'],
    describe: "Append FILE to the job summary (GitHub's $GITHUB_STEP_SUMMARY), or print it",
    options: {
      file: { type: 'string', demandOption: true, requiresArg: true, describe: 'The markdown to add' },
      title: { type: 'string', requiresArg: true, describe: 'A heading above it' },
    },
    run: command(runCiSummary),
  },
];

/** Commands that only group others (`sitesync ci …`): what each says in the help, and without a sub-command. */
export const COMMAND_GROUPS: Readonly<Record<string, { describe: string; demand: string }>> = {
  ci: {
    describe: 'Helpers for the CI recipes: the plan as one pull-request comment, the job summary',
    demand: 'Say which: sitesync ci comment or sitesync ci summary.',
  },
};

/** `detailed-exitcode` → `detailedExitcode`: the key a command reads. */
export function camelCase(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
