/**
 * The programmatic API (`import … from 'sitesync'`): the CLI's own steps as functions, so a team
 * can script sitesync from its Node code. The same sequence as the CLI: load the file, read the
 * live state, plan (the planner, then what each delete destroys), render or apply. Errors are the CLI's: a
 * `ConfigError` carries every problem of the file as `diagnostics`; a `SafetyError` means apply
 * refused before any write.
 *
 * Connection settings follow the CLI's rules: the base URL from `baseUrl`, else
 * SITESYNC_BASE_URL, else the file's `api.base_url`; the key from `apiKey`, else `apiKeyFile`,
 * else SITESYNC_API_KEY. Plain http:// only to loopback unless `insecureHttp`.
 */
import { resolve } from 'node:path';
import { archiverFor } from './run/archive.js';
import { executePlan } from './run/execute.js';
import { passwordsFrom, refusals } from './planner/gate.js';
import { planWithHistory } from './run/delete-traffic.js';
import { planAccount } from './run/plan.js';
import { deletesOf } from './planner/retire.js';
import { renderPlanAs, type PlanFormat } from './render/formats.js';
import type { Env } from './io/context.js';
import { loadWorkspace as loadWorkspaceFile, loadWorkspaceAt } from './config/load.js';
import { emptyConfig } from './config/parse.js';
import type { Account, ChangeResult, Config, LiveWebsite, Plan, Workspace } from './model/types.js';
import { SecretValues } from './secrets/values.js';
import { ServiceClient } from './service/client.js';
import { resolveApiKey, resolveBaseUrl } from './service/connection.js';

export type { Account, AccountSource, Change, ChangeResult, Config, Workspace, CreateChange, DeleteChange, FieldChange, LimitCheck, LiveWebsite, Plan, SafetyCheck, Settings, Summary, UpdateChange } from './model/types.js';
export type { Diagnostic } from './messages/errors.js';
export { ConfigError, NotApprovedError, SafetyError, SitesyncError } from './messages/errors.js';
import { NotApprovedError, SitesyncError } from './messages/errors.js';

export interface LoadOptions {
  /** Where `${NAME}` references are read from; default `process.env`. */
  env?: Env;
  /**
   * A git revision (`HEAD~1`, `origin/main`, a commit SHA): the file and every file it includes as
   * they were there, read from git's objects in the repository that holds the file (no checkout),
   * as `--baseline-ref` reads them: a baseline for `plan`, whose `${NAME}`s need not be set. A file
   * the revision does not hold (added since) lists nothing: everything in the current file is new.
   */
  ref?: string;
}

/**
 * Reads and checks a single-account config file and the files it includes; throws a
 * `ConfigError` listing every problem (a file with accounts: use `loadWorkspace`).
 */
export async function loadConfig(file: string, options: LoadOptions = {}): Promise<Config> {
  const workspace = await loadWorkspace(file, options);
  if (workspace.multi) throw new SitesyncError(`${file} holds accounts: read it with loadWorkspace, which gives one config per account`);
  return { ...(workspace.configs[0] ?? emptyConfig(workspace.file)), warnings: workspace.warnings };
}

/**
 * Reads and checks a config file of either form and every file it includes: one `Config` per
 * account, each with its `account` (name, and the NAME of its key's variable: pass
 * `apiKey: env[config.account.apiKeyEnv]` and the config to `readLiveState`). With `ref`, a file
 * the revision does not hold gives a workspace without accounts.
 */
export async function loadWorkspace(file: string, options: LoadOptions = {}): Promise<Workspace> {
  const env = options.env ?? process.env;
  if (options.ref === undefined) return loadWorkspaceFile(file, env);
  const path = resolve(file);
  return (await loadWorkspaceAt(path, options.ref, env)) ?? { file: path, multi: false, configs: [], warnings: [], sha256: '', files: [] };
}

export interface ConnectionOptions {
  baseUrl?: string;
  apiKey?: string;
  apiKeyFile?: string;
  insecureHttp?: boolean;
  /** Where SITESYNC_BASE_URL, SITESYNC_API_KEY and secrets' `${NAME}` are read from; default `process.env`. */
  env?: Env;
  /** Aborts reads in progress; an apply stops starting changes. */
  signal?: AbortSignal;
}

export interface LiveState {
  /** The service's address as used, normalized. */
  baseUrl: string;
  account: Account;
  websites: LiveWebsite[];
}

/** The account and every live website. `config` supplies `api.base_url` when nothing else does. */
export async function readLiveState(config: Config | undefined, options: ConnectionOptions = {}): Promise<LiveState> {
  return withClient(options, config?.baseUrl, new SecretValues(), async (client, baseUrl) => {
    const [account, websites] = await Promise.all([client.getAccount(), client.listWebsites()]);
    return { baseUrl, account, websites };
  });
}

export interface PlanOptions extends ConnectionOptions {
  /** As `--prune` (the file's `prune: true` counts too). */
  prune?: boolean;
  /** As `--target GLOB`…: only these domains. */
  targets?: string[];
  /** As `--baseline` / `--baseline-ref`: the config as it was (`loadConfig(file, { ref: 'HEAD~1' })`). */
  baseline?: Config;
  /** As `--resend-write-only`. */
  resendWriteOnly?: boolean;
}

/**
 * The changes that make the live state equal the file, planned as the CLI plans them: the
 * planner (pure), then what each delete destroys, read from the stats API (none when the plan
 * deletes nothing). A delete of a website with recent traffic that the file does not `retire:`
 * is flagged in `plan.safety.active` and a warning, and `applyPlan` refuses it.
 */
export async function plan(config: Config, live: LiveState, options: PlanOptions = {}): Promise<Plan> {
  const { prune, targets, baseline, resendWriteOnly, ...connection } = options;
  return withClient({ ...connection, baseUrl: connection.baseUrl ?? live.baseUrl }, config.baseUrl, new SecretValues(), (client) =>
    planAccount({ config, live: live.websites, account: live.account, baseUrl: live.baseUrl, client }, { prune, targets, baseline, resendWriteOnly }),
  );
}

/** The plan as `sitesync plan --format …` prints it for a single-account file (text without colour). */
export function renderPlan(plan: Plan, format: PlanFormat = 'text'): string {
  return renderPlanAs(format, [{ name: '', baseUrl: plan.base_url, plan }]);
}

export interface ApplyOptions extends ConnectionOptions {
  /** Changes applied at once; default 4. */
  parallelism?: number;
  /** Override the delete thresholds, as `--force` (never recent history: only `retire:` in the file lets it go). */
  force?: boolean;
  /**
   * The caller's word, one of the two required, as `sitesync apply` asks for it: `confirm` is
   * asked, once the plan passed the safety gate and before any write, the question in words
   * ("Apply to account … at …: 1 to create, 0 to update, 2 to delete? (yes/no)"), and applies
   * only on `true`; `autoApprove: true` applies without asking, as `--auto-approve` (a script
   * that showed the plan and decided itself). Without either, nothing is written.
   */
  confirm?: (question: string, plan: Plan) => boolean | Promise<boolean>;
  autoApprove?: boolean;
}

export interface ApplyResult {
  created: number;
  updated: number;
  deleted: number;
  /** Deletes that found the website already gone. */
  gone: number;
  failed: number;
  /** One per change, with the service's message for a failure. */
  results: ChangeResult[];
}

/**
 * Applies a plan made by `plan()` from `config` to the service it was made against, as the CLI's
 * apply does: what the deletes destroy is read again (a website may have had traffic since, and a
 * plan made elsewhere may not say), then the safety gate (throws a `SafetyError` before any write:
 * thresholds, the website limit, recent history that `retire:` does not list), then every change;
 * a failure does not stop the others, and applying a new plan afterwards converges. Passwords
 * come from `config`, the file the plan was made from, never from the plan.
 */
export async function applyPlan(plan: Plan, config: Config, options: ApplyOptions = {}): Promise<ApplyResult> {
  if (options.autoApprove !== true && typeof options.confirm !== 'function') {
    throw new NotApprovedError(
      'applyPlan writes only with the caller\'s word: pass { confirm: (question) => … } to ask (the question says what it will do, in words), or { autoApprove: true } as `sitesync apply --auto-approve`', { nothingWritten: true },
    );
  }
  // A refusal may echo the form it was sent: its message is cleaned of the passwords before it is a result.
  const secrets = new SecretValues();
  secrets.addPasswordsOf(config);
  return withClient({ ...options, baseUrl: options.baseUrl ?? plan.base_url }, plan.base_url, secrets, async (client) => {
    const checked = deletesOf(plan).length ? await planWithHistory(plan, config, client) : plan;
    const [refusal] = refusals(checked, config, { force: options.force === true, shownConfig: config.file, isKey: (value) => client.usesKey(value) });
    if (refusal) throw refusal;
    if (!options.autoApprove && !(await options.confirm!(applyQuestion(checked), checked))) throw new NotApprovedError('applyPlan: the confirm answered no', { nothingWritten: true });
    const passwordFor = passwordsFrom(checked, config, config.file);
    // A delete the plan archives first (the file's archive:) is sent once its archive is written, as in the CLI.
    const archive = archiverFor(client, { config, baseUrl: checked.base_url, account: checked.account, configAccount: config.account?.name ?? null, cwd: process.cwd() });
    const { results } = await executePlan(checked, client, { parallelism: options.parallelism ?? 4, passwordFor, signal: options.signal, archive });
    const done = (action: string) => results.filter((r) => r.status === 'done' && r.change.action === action).length;
    return {
      created: done('create'),
      updated: done('update'),
      deleted: done('delete'),
      gone: results.filter((r) => r.status === 'gone').length,
      failed: results.filter((r) => r.status === 'failed' || r.status === 'skipped').length,
      results,
    };
  });
}

/** What applyPlan asks its caller, in words: where, and what it will do. */
function applyQuestion(plan: Plan): string {
  const who = plan.account ? `account ${plan.account.name}${plan.account.email ? ` (${plan.account.email})` : ''}` : 'the account';
  const s = plan.summary;
  return `Apply to ${who} at ${plan.base_url}: ${s.create} to create, ${s.update} to update, ${s.delete} to delete? (yes/no)`;
}

async function withClient<T>(
  options: ConnectionOptions,
  fromFile: string | undefined,
  secrets: SecretValues,
  fn: (client: ServiceClient, baseUrl: string) => Promise<T>,
): Promise<T> {
  const env = { ...(options.env ?? process.env), ...(options.apiKey !== undefined ? { SITESYNC_API_KEY: options.apiKey } : {}) };
  const flags = { baseUrl: options.baseUrl, apiKeyFile: options.apiKey !== undefined ? undefined : options.apiKeyFile, insecureHttp: options.insecureHttp };
  const baseUrl = resolveBaseUrl(flags, env, fromFile);
  const client = new ServiceClient({ baseUrl, apiKey: await resolveApiKey(flags, env), secrets, signal: options.signal });
  try {
    return await fn(client, baseUrl);
  } finally {
    await client.close();
  }
}
