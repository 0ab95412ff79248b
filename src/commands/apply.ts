/** `sitesync apply [PLANFILE]`: plan (or load a saved plan), check, ask, apply, summarize. */
import { resolve } from 'node:path';
import { assertNoKeyAsPassword, executePlan, type ExecuteResult } from '../apply/execute.js';
import { assertSameAccount, needsWholeList, recheckPlan } from '../apply/recheck.js';
import { loadAnySavedPlan, loadPlanConfig, passwordsFromConfig } from '../apply/saved-plan.js';
import { applyAccounts, applySavedAccounts } from './apply-accounts.js';
import { assertFresh } from '../apply/staleness.js';
import { interruptedExitCode, SitesyncError, UsageError } from '../errors.js';
import type { Plan } from '../model.js';
import { assertSafe } from '../planner/safety.js';
import { renderApplySummary, resultLine } from '../render/apply-result.js';
import { ProgressLine } from '../render/progress.js';
import { renderText } from '../render/text.js';
import { confirmApply, type Context } from '../terminal.js';
import { makePlan, type PlanningArgs } from './make-plan.js';
import { openSession, type Session } from './session.js';

export interface ApplyArgs extends PlanningArgs {
  planfile?: string;
  autoApprove?: boolean;
  force?: boolean;
  parallelism: number;
}

export async function runApply(args: ApplyArgs, ctx: Context): Promise<number> {
  if (!Number.isInteger(args.parallelism) || args.parallelism < 1 || args.parallelism > 64) {
    throw new UsageError('--parallelism must be a whole number from 1 to 64');
  }
  return args.planfile ? applySaved(args, ctx) : applyFresh(args, ctx);
}

async function applyFresh(args: ApplyArgs, ctx: Context): Promise<number> {
  const planned = await makePlan(args, ctx);
  if (planned.multi) return applyAccounts(planned, args, ctx);
  const { plan, session, config } = planned;
  try {
    if (!showAndCheck(plan, args, ctx)) return 0;
    const passwordFor = passwordsFromConfig(plan, config, args.config);
    assertNoKeyAsPassword(plan, session.client, passwordFor);
    if (!args.autoApprove) await confirmApply(ctx);
    return await execute(plan, session, passwordFor, args, ctx);
  } finally {
    await session.client.close();
  }
}

async function applySaved(args: ApplyArgs, ctx: Context): Promise<number> {
  const narrowing = ['target', 'exclude', 'account', 'prune', 'baseline', 'resendWriteOnly'].filter((k) => {
    const v = args[k as keyof ApplyArgs];
    return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== false;
  });
  if (narrowing.length) {
    throw new UsageError(`a saved plan is applied exactly as it was made: --${narrowing.map(kebab).join(', --')} cannot change it`);
  }
  const file = args.planfile!;
  const path = resolve(ctx.cwd, file);
  // Offline first: the whole file, then the config file it was made from and its passwords.
  const loaded = await loadAnySavedPlan(path, file);
  if (loaded.multi) return applySavedAccounts(loaded.plan, path, file, args, ctx);
  const saved = loaded.plan;
  const { config, shown } = await loadPlanConfig(saved, path, file, ctx.cwd, ctx.env);
  ctx.secrets.addPasswordsOf(config);
  const passwordFor = passwordsFromConfig(saved, config, shown);
  const session = await openSession(args, ctx, saved.base_url);
  try {
    if (session.baseUrl !== saved.base_url) {
      throw new SitesyncError(`${file} was made for ${saved.base_url}, not ${session.baseUrl}; nothing was written`);
    }
    // The account, its limit and its count now: the file's own figures are never used.
    const [account, total] = await Promise.all([session.client.getAccount(), session.client.countWebsites()]);
    assertSameAccount(saved, account, file);
    const websites = needsWholeList(saved, config) ? await session.client.listWebsites() : undefined;
    const plan = recheckPlan(saved, config, { account, total: websites?.length ?? total, websites });
    if (!showAndCheck(plan, args, ctx)) return 0;
    ctx.stderr.write(`Checking that ${file} (made ${saved.saved.created_at}) still matches the service…\n`);
    await assertFresh(plan, session.client, websites?.length ?? total, file, websites);
    return await execute(plan, session, passwordFor, args, ctx);
  } finally {
    await session.client.close();
  }
}

/**
 * Shows the plan and runs the safety gate, the same for a fresh and a saved plan. False when
 * there is nothing to apply; throws, before any write, when the plan is unsafe.
 */
function showAndCheck(plan: Plan, args: ApplyArgs, ctx: Context): boolean {
  ctx.stdout.write(renderText(plan, ctx.out));
  if (plan.changes.length === 0) {
    ctx.stdout.write('Nothing to apply.\n');
    return false;
  }
  assertSafe(plan.safety, plan.limit, args.force === true);
  return true;
}

async function execute(
  plan: Plan,
  session: Session,
  passwordFor: (domain: string) => string | undefined,
  args: ApplyArgs,
  ctx: Context,
): Promise<number> {
  const progress = new ProgressLine(ctx.stderr, 'Applying');
  const tty = Boolean(ctx.stderr.isTTY);
  progress.update({ done: 0, total: plan.changes.length, failed: 0 }, true);
  let outcome: ExecuteResult;
  try {
    outcome = await executePlan(plan, session.client, {
      parallelism: args.parallelism,
      passwordFor,
      signal: ctx.signal,
      onResult: (result, counts) => {
        if (!tty || result.status === 'failed') progress.log(resultLine(result, ctx.err));
        progress.update({ done: counts.done + counts.failed, total: counts.total, failed: counts.failed });
      },
    });
  } finally {
    progress.done();
  }
  ctx.stdout.write(renderApplySummary(outcome, ctx.out));
  if (outcome.interrupted) return interruptedExitCode(ctx.signal);
  return outcome.results.some((r) => r.status === 'failed') ? 1 : 0;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}
