/**
 * A run over the accounts of a config file, the one pipeline of every online command:
 * load → connect (every account checked before anything is read) → read the live state (per
 * installation, side by side, one pacer each) → plan (pure) → apply. A single-account file is a
 * run of one account, unnamed. This module opens a run; read.ts, plan.ts and apply.ts are its
 * steps, each taking the accounts the step before returned and returning new ones: what it found,
 * or why it failed.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadWorkspace } from '../config/load.js';
import { emptyConfig } from '../config/parse.js';
import type { FileSource } from '../config/source.js';
import { ConfigError, SitesyncError, type Diagnostic } from '../messages/errors.js';
import { printable } from '../messages/escape.js';
import { type Account, type Config, type Failure, type LiveWebsite, type Plan, type Workspace } from '../model/types.js';
import { ServiceClient } from '../service/client.js';
import type { ConnectionFlags } from '../service/connection.js';
import { Pacer } from '../service/pacer.js';
import type { Context } from '../io/context.js';
import { connectionsOf, missingKeys, type Connection } from './connect.js';
import { checkTrust } from './trust.js';
import { accountName, selectAccounts } from './select.js';

export interface RunArgs extends ConnectionFlags {
  /** `-c`; default sitesync.yaml. */
  config?: string;
  account?: string[];
  /** `--trusted-config FILE`: the base branch's copy, whose connections the file must keep (trust.ts). */
  trustedConfig?: string;
  /** Where the config and the files it includes are read: the work tree (default), or a commit's objects (ci plan-open: a merge request's head). */
  source?: FileSource;
}

export interface RunOptions {
  /** Passwords are not sent (export, account, import): an unset ${NAME} does not stop the run. */
  lenientEnv?: boolean;
  /**
   * The command works without a config file (account, export): without -c, and with no
   * sitesync.yaml in the folder, its one account comes from the flags and SITESYNC_* alone.
   */
  optionalConfig?: boolean;
  /** The config file is not read (export's own output, emptied by the shell): the one account comes from the flags and SITESYNC_* alone. */
  noConfig?: boolean;
}

/** One account of a run as opened: connected, nothing read yet. Each step returns new accounts, built on this one. */
export interface RunAccount {
  /** '' for the one account of a single-account file. */
  readonly name: string;
  readonly config: Config;
  readonly connection: Connection;
  readonly client: ServiceClient;
}

/** An account the "read" step read: its identity and its websites. */
export interface ReadAccount extends RunAccount {
  readonly account: Account;
  readonly live: LiveWebsite[];
  /** The account's count of websites, when `live` holds only part of them. */
  readonly total?: number;
  readonly failure?: undefined;
}

/** An account the "plan" step planned. */
export interface PlannedAccount extends ReadAccount {
  readonly plan: Plan;
}

/** An account that failed at some step, with what the steps before gave it (a plan its gate refused), and why. */
export interface FailedRunAccount extends RunAccount {
  readonly account?: Account;
  readonly live?: LiveWebsite[];
  readonly total?: number;
  readonly plan?: Plan;
  /** Why the account has no plan, or is not applied; `error` is what was thrown. */
  readonly failure: Failure;
  readonly error?: unknown;
}

/** What the "read" step returns for an account: what was read, or why it could not be. */
export type AccountRead = ReadAccount | FailedRunAccount;
/** What the "plan" step returns for an account: its plan, or why it has none. */
export type AccountPlanned = PlannedAccount | FailedRunAccount;

/** An account of the file that the run does not connect to, and why (see trust.ts). */
export interface SkippedAccount {
  name: string;
  config: Config;
  failure: Failure;
}

export interface Run {
  workspace: Workspace;
  /** The config file as the user named it, for messages. */
  shown: string;
  /** The accounts worked on (all of the file's, or those --account names), in the file's order. */
  accounts: RunAccount[];
  /** Accounts selected but not connected: listed as failed in every output. */
  skipped: SkippedAccount[];
  /** The accounts have names (an `accounts:` file): outputs show a section for each. */
  named: boolean;
  close(): Promise<void>;
}

/** Loads the file, selects the accounts and connects each; throws, before any request, on any problem. */
export async function openRun(args: RunArgs, ctx: Context, options: RunOptions = {}): Promise<Run> {
  const shown = args.config ?? 'sitesync.yaml';
  const file = resolve(ctx.cwd, shown);
  const workspace =
    options.noConfig || (options.optionalConfig && args.config === undefined && !args.account?.length && !existsSync(file))
      ? flagsOnly(file)
      : await loadAll(file, args, ctx, options);
  const selected = selectAccounts(workspace, args.account, shown);
  const { untrusted } = args.trustedConfig ? await checkTrust(workspace, selected, args.trustedConfig, ctx.cwd, shown) : { untrusted: new Set<Config>() };
  const run = await connectRun(workspace, selected.filter((c) => !untrusted.has(c)), args, ctx, shown);
  run.skipped = [...untrusted].map((config) => ({
    name: accountName(config),
    config,
    failure: {
      message: 'not planned until its connection is on the base branch',
      details: [`The trusted config (${args.trustedConfig}) has no account ${accountName(config)}: merge its base_url and api_key_env first, then its websites.`],
    },
  }));
  return run;
}

/** A run of `configs` (accounts of `workspace`): each connected, with a client of its own. */
export async function connectRun(workspace: Workspace, configs: Config[], flags: ConnectionFlags, ctx: Context, shown: string): Promise<Run> {
  // Passwords go to the service; what it says back is cleaned of them before it is shown.
  for (const config of configs) ctx.secrets.addPasswordsOf(config);
  const note = (line: string) => ctx.stderr.write(`${ctx.err.dim(`Note: ${line}`)}\n`);
  const connections = await connectionsOf(workspace, configs, flags, ctx.env, shown, note);
  const pacers = new Map<string, Pacer>();
  const accounts = configs.map((config): RunAccount => {
    const connection = connections.get(config)!;
    const name = accountName(config);
    let pacer = pacers.get(connection.installation);
    if (!pacer) pacers.set(connection.installation, (pacer = new Pacer()));
    const prefix = workspace.multi ? `[${name}] ` : '';
    const client = new ServiceClient({
      baseUrl: connection.baseUrl,
      apiKey: connection.apiKey,
      keyFrom: connection.keyFrom,
      secrets: ctx.secrets, // the client registers its key here, so every message is cleaned of it
      signal: ctx.signal,
      // One pace per installation: a deployed one counts every key from this address in one budget.
      pacer,
      log: ctx.verbose ? (line) => ctx.stderr.write(`${ctx.err.dim(printable(`${prefix}${line}`))}\n`) : undefined,
    });
    return { name, config, connection, client };
  });
  return {
    workspace,
    shown,
    accounts,
    skipped: [],
    named: workspace.multi,
    close: async () => {
      for (const pacer of pacers.values()) pacer.close();
      await Promise.all(accounts.map((a) => a.client.close()));
    },
  };
}

/**
 * The workspace, and every variable the run misses at once, from one load: a file whose
 * \${NAME}s are not all set (and that has no other error) also says which keys' variables are
 * not, rather than in a second round once those are set.
 */
async function loadAll(file: string, args: RunArgs, ctx: Context, options: RunOptions): Promise<Workspace> {
  const workspace = await loadWorkspace(file, ctx.env, { lenientEnv: options.lenientEnv, source: args.source, keepErrors: true });
  const errors = workspace.warnings.filter((d) => d.severity === 'error');
  if (!errors.length) return workspace;
  const onlyMissing = errors.every((d) => d.missing !== undefined);
  const configs = onlyMissing ? selectAccounts(workspace, args.account, args.config ?? 'sitesync.yaml') : [];
  const keys = configs.length ? missingKeys(workspace, configs, args, ctx.env) : [];
  // The trusted copy's pins are checks of the file too: said with its other problems, not in a later run.
  const pins = args.trustedConfig ? await trustProblems(file, args, args.trustedConfig, ctx) : [];
  throw new ConfigError([...workspace.warnings, ...pins, ...keys]);
}

/** The problems `checkTrust` finds in a file that has others: none when it passes, or when the trusted copy itself cannot be read (said once the file is fixed). */
async function trustProblems(file: string, args: RunArgs, trustedFile: string, ctx: Context): Promise<Diagnostic[]> {
  const shown = args.config ?? 'sitesync.yaml';
  try {
    const workspace = await loadWorkspace(file, ctx.env, { lenientEnv: true, source: args.source, keepErrors: true });
    await checkTrust(workspace, selectAccounts(workspace, args.account, shown), trustedFile, ctx.cwd, shown);
    return [];
  } catch (error) {
    return error instanceof ConfigError ? error.diagnostics.filter((d) => d.severity === 'error') : [];
  }
}

/** The workspace of a command run without a config file: one unnamed account, from the flags. */
function flagsOnly(file: string): Workspace {
  return { file, multi: false, configs: [emptyConfig(file)], warnings: [], sha256: '', files: [] };
}

/** What a failure says: the message and its details (a service's words were cleaned of secrets where they entered). */
export function failureOf(error: unknown, ctx: Pick<Context, 'secrets'>): Failure {
  if (error instanceof SitesyncError) return { message: error.message, details: [...error.details] };
  const e = error instanceof Error ? error : new Error(String(error));
  return { message: `internal error: ${ctx.secrets.clean(e.message)} (a bug in sitesync; run with --verbose and report it)`, details: [] };
}

/**
 * The file's warnings a run says: those of the accounts it works on (`--account acme` is not told
 * of beta's), and those of no account.
 */
export function runWarnings(run: Run): Diagnostic[] {
  const names = new Set([...run.accounts.map((a) => a.name), ...run.skipped.map((a) => a.name)]);
  return run.workspace.warnings.filter((d) => d.account === undefined || names.has(d.account));
}

/** The account failed by `error`: a new account, with what it held and why it failed. */
export function failed<A extends RunAccount>(account: A, error: unknown, ctx: Pick<Context, 'secrets'>): FailedRunAccount {
  return { ...account, error, failure: failureOf(error, ctx) };
}
