/** `sitesync plan`: read the live accounts, print the plan; never writes to the service. */
import { relative, resolve, sep } from 'node:path';
import { planRun, plansOf, loadBaseline, type RunPlanOptions } from '../run/plan.js';
import { openRun, type Run, type RunArgs } from '../run/open.js';
import { savePlan } from '../saved-plan/file.js';
import { SitesyncError } from '../messages/errors.js';
import { assertOutputFile, writeFailure } from '../io/files.js';
import { assertSafe } from '../planner/safety.js';
import { renderWarnings } from '../render/diagnostics.js';
import { readingProgress } from '../render/progress.js';
import { failureBlock, renderRunJson, renderRunMarkdown, renderRunText, requestsLine } from '../render/run.js';
import type { Context } from '../io/terminal.js';

export interface PlanningArgs extends RunArgs {
  config: string;
  prune?: boolean;
  target?: string[];
  exclude?: string[];
  baseline?: string;
  resendWriteOnly?: boolean;
}

export interface PlanArgs extends PlanningArgs {
  format: 'text' | 'markdown' | 'json';
  out?: string;
  detailedExitcode?: boolean;
  /** Exit 1 when apply (without --force) would refuse this plan. */
  failUnsafe?: boolean;
}

export async function runPlan(args: PlanArgs, ctx: Context): Promise<number> {
  // Before reading the accounts: a plan that cannot be saved should fail at once. A saved plan
  // is made again and again, so an existing one is replaced.
  const out = args.out === undefined ? undefined : resolve(ctx.cwd, args.out);
  if (out) await assertOutputFile(out, args.out!, '--out', true, '--format json prints the plan itself');
  const run = await openRun(args, ctx);
  try {
    await planAccounts(run, args, ctx);
    const accounts = plansOf(run);
    const commentId = relative(ctx.cwd, run.workspace.file).split(sep).join('/');
    ctx.stdout.write(
      args.format === 'json' ? renderRunJson(accounts) : args.format === 'markdown' ? `${renderRunMarkdown(accounts, { commentId })}\n` : renderRunText(accounts, ctx.out),
    );
    const failed = accounts.filter((a) => a.failure);
    if (out) {
      const configs = accounts.map((p) => run.workspace.configs.find((c) => (c.account?.name ?? '') === p.name)!);
      await savePlan(out, { ...planningOptions(args), accounts, workspace: run.workspace, configs, cwd: ctx.cwd }).catch(
        (error: unknown) => {
          throw writeFailure(error, '--out', args.out!);
        },
      );
      ctx.stderr.write(`Saved the plan${run.named ? ` of ${accounts.length} accounts` : ''} to ${args.out}; apply it with: sitesync apply ${args.out}\n`);
    }
    // After the output, so that the plan (whose warnings give the reason) is still shown.
    const unsafe = args.failUnsafe ? refusals(run) : [];
    if (failed.length || unsafe.length) {
      if (!run.named) throw unsafe[0]!.error;
      const lines = [
        ...(failed.length ? [`${failed.length} of ${accounts.length} accounts could not be planned: ${failed.map((a) => a.name).join(', ')}`] : []),
        ...(unsafe.length ? [`apply would refuse ${unsafe.length === 1 ? 'one account' : `${unsafe.length} accounts`}:`, ...unsafe.map((u) => `  ${u.name}: ${(u.error as Error).message}`)] : []),
      ];
      ctx.stderr.write(failureBlock('', [`Error: ${lines[0]}`, ...lines.slice(1)], ctx.err));
      return 1;
    }
    const changes = run.accounts.some((a) => a.plan!.changes.length > 0);
    return args.detailedExitcode && changes ? 2 : 0;
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}

/** `--verbose`: per account, how many requests the run made, and what for. */
export function reportRequests(run: Run, ctx: Context): void {
  if (!ctx.verbose) return;
  for (const a of run.accounts) ctx.stderr.write(`${ctx.err.dim(requestsLine(a.name, a.client.stats.requests, a.client.stats.byKind))}\n`);
}

/**
 * Loads the baseline, reads and plans every account with a progress line, and prints the file's
 * warnings: what plan and apply share. The one account of a single-account file that cannot be
 * planned is the run's error, as any command's.
 */
export async function planAccounts(run: Run, args: PlanningArgs, ctx: Context): Promise<void> {
  const baseline = await loadBaseline(args.baseline, run, ctx);
  ctx.stderr.write(renderWarnings(run.workspace.warnings, ctx.err));
  const progress = readingProgress(ctx);
  try {
    await planRun(run, { ...planningOptions(args), baseline }, ctx, progress.update);
  } finally {
    progress.done();
  }
  const lone = run.named ? undefined : run.accounts[0];
  if (lone?.failure) throw lone.error;
}

function planningOptions(args: PlanningArgs): RunPlanOptions {
  return { prune: args.prune, targets: args.target, excludes: args.exclude, resendWriteOnly: args.resendWriteOnly };
}

/** The accounts whose plan apply would refuse (thresholds, the website limit), with why. */
function refusals(run: Run): { name: string; error: unknown }[] {
  return run.accounts.flatMap((a) => {
    if (!a.plan) return [];
    try {
      assertSafe(a.plan, false);
      return [];
    } catch (error) {
      return [{ name: a.name, error }];
    }
  });
}

