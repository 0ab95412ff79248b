/**
 * Runs over the accounts of a many-account file: which accounts (`--account`), where each one's
 * service and key are, one pacer per installation, and the accounts worked on side by side.
 */
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import { envValue } from '../config/interpolate.js';
import { unsetKeyVariable } from '../config/load.js';
import { suggest } from '../config/suggest.js';
import { SitesyncError, UsageError } from '../errors.js';
import type { Config, Workspace } from '../model.js';
import { printable } from '../render/escape.js';
import { ServiceClient } from '../service/client.js';
import { keyProblem, resolveBaseUrl, type ConnectionFlags } from '../service/connection.js';
import { Pacer } from '../service/pacer.js';
import type { Context } from '../terminal.js';
import type { Session } from './session.js';

/** Accounts of one installation worked on at once; installations run side by side. */
export const ACCOUNTS_PER_INSTALLATION = 8;

export interface AccountArgs extends ConnectionFlags {
  account?: string[];
}

/** The account's name as the file has it (a single-account file's one config has none). */
export function accountName(config: Config): string {
  return config.account?.name ?? '';
}

/** The configs `--account` names (all when it names none), in the file's order. */
export function selectAccounts(workspace: Workspace, names: string[] | undefined, shown: string): Config[] {
  if (!names?.length) return workspace.configs;
  if (!workspace.multi) {
    throw new UsageError(`--account: ${shown} holds one account (it has no accounts:); leave --account out`);
  }
  const known = workspace.configs.map(accountName);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length) {
    const lines = unknown.map((n) => {
      const near = suggest(n, known);
      return `--account ${printable(n)}: ${shown} has no such account${near ? ` (did you mean ${near}?)` : ''}`;
    });
    const error = new UsageError(lines.length === 1 ? lines[0]! : `${lines.length} --account names match no account of ${shown}`);
    if (lines.length > 1) error.details = lines;
    error.details.push(`Its accounts: ${known.join(', ')}.`);
    throw error;
  }
  return workspace.configs.filter((c) => names.includes(accountName(c)));
}

export interface AccountConnection {
  baseUrl: string;
  apiKey: string;
}

/**
 * Each account's base URL and key (from the variable its `api_key_env` names), checked for
 * every account before anything is read: a missing variable is the file's problem, not one
 * account's failure. The flags and variables of a single-account run do not apply.
 */
export function accountConnections(configs: Config[], flags: ConnectionFlags, ctx: Context, shown: string): Map<Config, AccountConnection> {
  const misplaced = [flags.baseUrl !== undefined && '--base-url', flags.apiKeyFile !== undefined && '--api-key-file'].filter(Boolean);
  if (misplaced.length) {
    throw new UsageError(
      `${misplaced.join(' and ')}: ${shown} holds accounts, each with its own base_url and api_key_env; ${misplaced.length > 1 ? 'these are' : 'this is'} for single-account files`,
    );
  }
  const ignored = ['SITESYNC_BASE_URL', 'SITESYNC_API_KEY'].filter((name) => ctx.env[name]);
  if (ignored.length) {
    ctx.stderr.write(`${ctx.err.dim(`Note: ${ignored.join(' and ')} ${ignored.length > 1 ? 'are' : 'is'} not used: each account of ${shown} has its own base_url and api_key_env.`)}\n`);
  }
  const problems: string[] = [];
  const out = new Map<Config, AccountConnection>();
  for (const config of configs) {
    const name = accountName(config);
    const variable = config.account!.apiKeyEnv;
    try {
      if (config.baseUrl === undefined) throw new SitesyncError(`account ${name} has no base_url`);
      const baseUrl = resolveBaseUrl({ insecureHttp: flags.insecureHttp }, {}, config.baseUrl);
      const unset = unsetKeyVariable(config, ctx.env);
      if (unset) throw new SitesyncError(unset);
      const raw = envValue(ctx.env, variable)!;
      const problem = keyProblem(raw.trim());
      if (problem) throw new SitesyncError(`account ${name}: ${variable} is not an API key: ${problem}`);
      out.set(config, { baseUrl, apiKey: raw.trim() });
    } catch (error) {
      problems.push((error as Error).message.replace(/^api\.base_url/, `account ${name}: base_url`));
    }
  }
  if (problems.length) {
    const error = new SitesyncError(problems.length === 1 ? `${problems[0]}; nothing was read or written` : `${problems.length} accounts cannot connect; nothing was read or written`);
    if (problems.length > 1) error.details = problems;
    throw error;
  }
  return out;
}

/** One pacer per installation (origin): its throttle may count every key from here together. */
export class Installations {
  private readonly pacers = new Map<string, Pacer>();

  pacerFor(baseUrl: string): Pacer {
    const origin = new URL(baseUrl).origin;
    let pacer = this.pacers.get(origin);
    if (!pacer) this.pacers.set(origin, (pacer = new Pacer()));
    return pacer;
  }

  /** A session for `config`'s account; with --verbose its requests are logged under its name. */
  open(connection: AccountConnection, ctx: Context, config: Config): Session {
    const client = new ServiceClient({
      baseUrl: connection.baseUrl,
      apiKey: connection.apiKey,
      secrets: ctx.secrets,
      signal: ctx.signal,
      pacer: this.pacerFor(connection.baseUrl),
      log: ctx.verbose ? (line) => ctx.stderr.write(`${ctx.err.dim(printable(`[${accountName(config)}] ${line}`))}\n`) : undefined,
    });
    return { client, baseUrl: connection.baseUrl };
  }
}

export type Outcome<T> = { config: Config; ok: true; value: T } | { config: Config; ok: false; error: unknown };

/**
 * `work` for every account: installations side by side, at most ACCOUNTS_PER_INSTALLATION
 * accounts of one at a time. One account's failure does not stop the others; the outcomes
 * come back in the configs' order.
 */
export async function eachAccount<T>(
  configs: Config[],
  baseUrlOf: (config: Config) => string,
  work: (config: Config) => Promise<T>,
): Promise<Outcome<T>[]> {
  const limits = new Map<string, ReturnType<typeof pLimit>>();
  const limitFor = (config: Config) => {
    const origin = new URL(baseUrlOf(config)).origin;
    let limit = limits.get(origin);
    if (!limit) limits.set(origin, (limit = pLimit(ACCOUNTS_PER_INSTALLATION)));
    return limit;
  };
  return Promise.all(
    configs.map((config) =>
      limitFor(config)(async (): Promise<Outcome<T>> => {
        try {
          return { config, ok: true, value: await work(config) };
        } catch (error) {
          return { config, ok: false, error };
        }
      }),
    ),
  );
}

/**
 * What an account's failure says, for the summary: the message and its details (a service's
 * words were cleaned of secrets where they entered; anything else is cleaned here).
 */
export function failureLines(error: unknown, ctx: Context): string[] {
  if (error instanceof SitesyncError) return [error.message, ...error.details];
  const e = error instanceof Error ? error : new Error(String(error));
  return [`internal error: ${ctx.secrets.clean(e.message)} (a bug in sitesync; run with --verbose and report it)`];
}

export interface FileAccountArgs extends AccountArgs {
  /** `export` and `account` read a config file only when given one (or --account). */
  config?: string;
}

/**
 * For `export` and `account`: the config file's workspace when the command was pointed at one
 * (`-c`, or `--account` with the default file); undefined when it works from the flags alone.
 */
export async function workspaceFor(args: FileAccountArgs, ctx: Context): Promise<{ workspace: Workspace; shown: string } | undefined> {
  if (args.config === undefined && !args.account?.length) return undefined;
  const shown = args.config ?? 'sitesync.yaml';
  const { loadWorkspace } = await import('../config/load.js');
  // Only the accounts and their services are needed: an unset ${NAME} of a password does not matter here.
  const workspace = await loadWorkspace(resolve(ctx.cwd, shown), ctx.env, { lenientEnv: true });
  selectAccounts(workspace, args.account, shown);
  return { workspace, shown };
}

/** `work` on every selected account of a file with accounts, each with its own session; closed after. */
export async function onEachAccount<T>(
  workspace: Workspace,
  shown: string,
  args: FileAccountArgs,
  ctx: Context,
  work: (session: Session, config: Config) => Promise<T>,
): Promise<Outcome<T>[]> {
  const configs = selectAccounts(workspace, args.account, shown);
  const connections = accountConnections(configs, args, ctx, shown);
  const installations = new Installations();
  return eachAccount(
    configs,
    (c) => connections.get(c)!.baseUrl,
    async (config) => {
      const session = installations.open(connections.get(config)!, ctx, config);
      try {
        return await work(session, config);
      } finally {
        await session.client.close();
      }
    },
  );
}

/**
 * `work` on every selected account, all or none: when any account cannot be read, one error
 * names each (and nothing is `done`, e.g. "exported"), so no partial file is ever written.
 */
export async function onEveryAccount<T>(
  workspace: Workspace,
  shown: string,
  args: FileAccountArgs,
  ctx: Context,
  done: string,
  work: (session: Session, config: Config) => Promise<T>,
): Promise<T[]> {
  const outcomes = await onEachAccount(workspace, shown, args, ctx, work);
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length) {
    const error = new SitesyncError(`nothing was ${done}: ${failed.length} of ${outcomes.length} accounts could not be read`);
    error.details = failed.flatMap((o) => failureLines((o as { error: unknown }).error, ctx).map((l, i) => (i ? `  ${l}` : `${accountName(o.config)}: ${l}`)));
    throw error;
  }
  return outcomes.flatMap((o) => (o.ok ? [o.value] : []));
}
