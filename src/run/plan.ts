/** The "plan" step of a run: each account read and planned, with the run's options. */
import { resolve } from 'node:path';
import { loadWorkspace } from '../config/load.js';
import { UsageError } from '../messages/errors.js';
import type { AccountPlan, Config, Workspace } from '../model/types.js';
import { assertPatternsMatch, planChanges } from '../planner/plan.js';
import type { Context } from '../io/terminal.js';
import { readHistory } from './history.js';
import { readAccounts, type ReadProgress } from './read.js';
import { fail, type Run } from './open.js';

export interface RunPlanOptions {
  /** `--prune`. */
  prune?: boolean;
  /** `--target GLOB`…. */
  targets?: string[];
  /** `--exclude GLOB`…. */
  excludes?: string[];
  /** `--baseline OLDFILE`, loaded (see loadBaseline). */
  baseline?: Workspace;
  /** `--resend-write-only`. */
  resendWriteOnly?: boolean;
}

/**
 * Reads and plans every account of the run. An account that cannot be read or planned is
 * failed, the others are planned all the same. A --target or --exclude that matches no website
 * of any account is an error of the whole run (a typo would otherwise plan nothing).
 */
export async function planRun(run: Run, options: RunPlanOptions, ctx: Pick<Context, 'secrets'>, onProgress?: ReadProgress): Promise<void> {
  await readAccounts(run, ctx, onProgress, options.targets);
  for (const a of run.accounts) {
    if (a.failure) continue;
    try {
      a.plan = planChanges({
        config: a.config,
        live: a.live!,
        account: a.account!,
        baseUrl: a.connection.baseUrl,
        // Read through searches for the targets: the live websites are the targeted ones, the count the whole account's.
        ...(a.total === undefined ? {} : { census: { total: a.total } }),
        options: {
          prune: options.prune,
          targets: options.targets,
          excludes: options.excludes,
          resendWriteOnly: options.resendWriteOnly,
          checkPatterns: false,
          baseline: baselineOf(a.config, options.baseline, run.named),
        },
      });
    } catch (error) {
      fail(a, error, ctx);
    }
  }
  // A pattern need only match in one account; checked when every account could be read.
  if (run.accounts.every((a) => a.live)) {
    assertPatternsMatch(
      { targets: options.targets, excludes: options.excludes },
      run.accounts.flatMap((a) => [a.config.websites.map((w) => w.domain), a.live!.map((w) => w.domain)]),
      run.named ? 'in any account, in the file or on the service' : 'in the file or the account',
    );
  }
  // What each delete destroys: read for the deletes alone, once the plans stand.
  await readHistory(run, ctx);
}

/** The accounts' plans (or failures), as the renderers show them. */
export function plansOf(run: Run): AccountPlan[] {
  const order = (config: Config) => run.workspace.configs.indexOf(config);
  return [
    ...run.accounts.map((a) => ({ order: order(a.config), plan: { name: a.name, baseUrl: a.connection.baseUrl, plan: a.plan, failure: a.failure } })),
    ...run.skipped.map((a) => ({ order: order(a.config), plan: { name: a.name, baseUrl: a.config.baseUrl ?? '', failure: a.failure } })),
  ]
    .sort((a, b) => a.order - b.order)
    .map((a) => a.plan);
}

/** `--baseline FILE`: an earlier version of the same file, of the same form (one account, or accounts matched by name). */
export async function loadBaseline(file: string | undefined, run: Run, ctx: Context): Promise<Workspace | undefined> {
  if (!file) return undefined;
  const baseline = await loadWorkspace(resolve(ctx.cwd, file), ctx.env, { lenientEnv: true, what: 'baseline file' });
  if (baseline.multi !== run.workspace.multi) {
    throw new UsageError(
      `--baseline ${file} ${baseline.multi ? 'holds accounts' : 'holds one account'}, and ${run.shown} ${run.workspace.multi ? 'holds accounts' : 'one'}: give an earlier version of the same file`,
    );
  }
  return baseline;
}

/** An account's config as the baseline had it; an account new since then had no websites. */
function baselineOf(config: Config, baseline: Workspace | undefined, named: boolean): Config | undefined {
  if (!baseline) return undefined;
  if (!named) return baseline.configs[0];
  return baseline.configs.find((c) => c.account?.name === config.account?.name) ?? { ...config, websites: [] };
}
