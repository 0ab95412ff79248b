/**
 * The "plan" step of a run, and the one way an account is planned: fresh plans, saved plans made
 * again and the library all go through planAccount (the planner, then what the deletes destroy).
 */
import { resolve } from 'node:path';
import { loadWorkspace, loadWorkspaceAt } from '../config/load.js';
import { UsageError } from '../messages/errors.js';
import type { Account, AccountPlan, Config, LiveWebsite, Plan, Workspace } from '../model/types.js';
import { deletesOf } from '../planner/retire.js';
import { markMoves } from '../planner/moves.js';
import { assertPatternsMatch, planChanges, type Census, type PlanOptions } from '../planner/plan.js';
import { renderWarnings } from '../render/diagnostics.js';
import { readingProgress } from '../render/progress.js';
import type { ServiceClient } from '../service/client.js';
import type { Context } from '../io/context.js';
import { eachAccount } from './per-installation.js';
import { planWithHistory } from './delete-traffic.js';
import { failed, runWarnings, type AccountPlanned, type Run } from './open.js';
import { readAccounts, type ReadProgress } from './read.js';

/** What planning one account needs: its file, what was read of it, and its client (for the deletes' traffic). */
export interface Planned {
  config: Config;
  live: LiveWebsite[];
  account: Account;
  baseUrl: string;
  client: ServiceClient;
}

export interface AccountPlanOptions extends PlanOptions {
  /** The account's counts, where `live` holds only part of it (searches for --target, a saved plan's websites). */
  census?: Census;
}

/**
 * The one way an account is planned: the planner's changes, then what each delete destroys,
 * read from the stats API (none when nothing is deleted), so that a delete of recent history is
 * flagged for every caller alike and refused by apply unless the file retires it.
 */
export async function planAccount(a: Planned, options: AccountPlanOptions = {}): Promise<Plan> {
  const { census, ...planner } = options;
  const plan = planChanges({ config: a.config, live: a.live, account: a.account, baseUrl: a.baseUrl, options: planner, ...(census ? { census } : {}) });
  return deletesOf(plan).length ? planWithHistory(plan, a.config, a.client) : plan;
}

export interface RunPlanOptions {
  /** `--prune`. */
  prune?: boolean;
  /** `--target GLOB`…. */
  targets?: string[];
  /** `--exclude GLOB`…. */
  excludes?: string[];
  /** `--baseline OLDFILE` or `--baseline-ref REF`, loaded (see loadBaseline). */
  baseline?: Workspace;
  /** `--resend-write-only`. */
  resendWriteOnly?: boolean;
}

/**
 * Reads and plans every account of the run. An account that cannot be read or planned is
 * failed, the others are planned all the same. A --target or --exclude that matches no website
 * of any account is an error of the whole run (a typo would otherwise plan nothing). Returns each
 * account of the run, in its order: planned, or failed and why.
 */
export async function planRun(run: Run, options: RunPlanOptions, ctx: Pick<Context, 'secrets'>, onProgress?: ReadProgress): Promise<AccountPlanned[]> {
  const read = await readAccounts(run, ctx, onProgress, options.targets);
  // A pattern need only match in one account; checked when every account could be read.
  if (read.every((a) => a.live)) {
    assertPatternsMatch(
      { targets: options.targets, excludes: options.excludes },
      read.flatMap((a) => [a.config.websites.map((w) => w.domain), a.live!.map((w) => w.domain)]),
      run.named ? 'in any account, in the file or on the service' : 'in the file or the account',
    );
  }
  const readable = read.flatMap((a) => (a.failure ? [] : [a]));
  const outcomes = await eachAccount(readable, (a) => a.connection.installation, (a) =>
    planAccount(
      { config: a.config, live: a.live, account: a.account, baseUrl: a.connection.baseUrl, client: a.client },
      {
        prune: options.prune,
        targets: options.targets,
        excludes: options.excludes,
        resendWriteOnly: options.resendWriteOnly,
        checkPatterns: false,
        baseline: baselineOf(a.config, options.baseline, run.named),
        // Read through searches for the targets: the live websites are the targeted ones, the count the whole account's.
        ...(a.total === undefined ? {} : { census: { total: a.total } }),
      },
    ),
  );
  const planned = new Map(outcomes.map((o) => [o.item, o.ok ? { ...o.item, plan: o.value } : failed(o.item, o.error, ctx)]));
  return markRunMoves(read.map((a) => (a.failure ? a : planned.get(a)!)));
}

/** The accounts with the domains that leave one account of the run for another of the same installation marked on their plans (planner/moves.ts). */
export function markRunMoves<A extends AccountPlanned>(accounts: readonly A[]): A[] {
  const plans = markMoves(accounts.map((a) => ({ name: a.name, installation: a.connection.installation, plan: a.plan })));
  return accounts.map((a, i) => (plans[i] ? { ...a, plan: plans[i] } : a));
}

/**
 * Loads the baseline, reads and plans every account with a progress line, and prints the file's
 * warnings: what plan, apply and ci drift share. Returns each account, planned or failed (the
 * caller decides what a lone account's failure means: throwIfLoneFailed).
 */
export async function planAccounts(run: Run, options: Omit<RunPlanOptions, 'baseline'> & { baseline?: Baseline }, ctx: Context): Promise<AccountPlanned[]> {
  const baseline = await loadBaseline(options.baseline ?? {}, run, ctx);
  ctx.stderr.write(renderWarnings(runWarnings(run), ctx.err, ctx.cwd));
  const progress = readingProgress(ctx);
  try {
    return await planRun(run, { ...options, baseline }, ctx, progress.update);
  } finally {
    progress.done();
  }
}

/** The plans (or failures) of `accounts`, the run's as a step returned them, as the renderers show them, in the file's order. */
export function plansOf(run: Run, accounts: readonly AccountPlanned[]): AccountPlan[] {
  const order = (config: Config) => run.workspace.configs.indexOf(config);
  return [
    ...accounts.map((a) => ({ order: order(a.config), plan: { name: a.name, baseUrl: a.connection.baseUrl, plan: a.plan, failure: a.failure } })),
    ...run.skipped.map((a) => ({ order: order(a.config), plan: { name: a.name, baseUrl: a.config.baseUrl ?? '', failure: a.failure } })),
  ]
    .sort((a, b) => a.order - b.order)
    .map((a) => a.plan);
}

/** Where the baseline comes from: `--baseline FILE`, or `--baseline-ref REF` (the config file and its includes at a git revision). */
export interface Baseline {
  file?: string;
  ref?: string;
}

/** The baseline the flags give, checked before anything is read: one of the two flags at most. */
export function baselineFlags(args: { baseline?: string; baselineRef?: string }): Baseline {
  if (args.baseline !== undefined && args.baselineRef !== undefined) {
    throw new UsageError('--baseline and --baseline-ref both give the baseline: give one (--baseline-ref REF reads the config file and its includes as they were at REF)');
  }
  return { file: args.baseline, ref: args.baselineRef };
}

/**
 * The baseline: an earlier version of the same file, of the same form (one account, or accounts
 * matched by name), from a file or from a git revision of the config file's repository. A config
 * file the revision does not hold (added since) had nothing: everything in it is new.
 */
export async function loadBaseline({ file, ref }: Baseline, run: Run, ctx: Context): Promise<Workspace | undefined> {
  let baseline: Workspace;
  let given: string;
  if (ref !== undefined) {
    given = `--baseline-ref ${ref}`;
    const at = await loadWorkspaceAt(run.workspace.file, ref, ctx.env);
    if (!at) {
      ctx.stderr.write(`${ctx.err.dim(`Note: ${run.shown} is not in ${ref}: everything in it is new since, so every write-only field it sets is sent.`)}\n`);
      return { ...run.workspace, configs: [], warnings: [], sha256: '', files: [] };
    }
    baseline = at;
  } else if (file !== undefined) {
    given = `--baseline ${file}`;
    baseline = await loadWorkspace(resolve(ctx.cwd, file), ctx.env, { lenientEnv: true, what: 'baseline file' });
  } else {
    return undefined;
  }
  if (baseline.multi !== run.workspace.multi) {
    throw new UsageError(
      `${given} ${baseline.multi ? 'holds accounts' : 'holds one account'}, and ${run.shown} ${run.workspace.multi ? 'holds accounts' : 'one'}: give an earlier version of the same file`,
    );
  }
  return baseline;
}

/** An account's config as the baseline had it; an account new since then (or a file new since) had no websites. */
function baselineOf(config: Config, baseline: Workspace | undefined, named: boolean): Config | undefined {
  if (!baseline) return undefined;
  const was = named ? baseline.configs.find((c) => c.account?.name === config.account?.name) : baseline.configs[0];
  return was ?? { ...config, websites: [] };
}
