/** `sitesync apply [PLANFILE]`: plan (or check a saved plan), ask, apply, summarize. */
import { applyAccounts, gateAccounts } from '../run/apply.js';
import { plansOf } from '../run/plan.js';
import { openRun, type Run, type RunAccount } from '../run/open.js';
import { openSavedRun, verifySavedRun, type SavedRun } from '../saved-plan/replan.js';
import { resolve } from 'node:path';
import { interruptedExitCode, SitesyncError, UsageError } from '../messages/errors.js';
import { assertOutputFile, writeAtomic, writeFailure } from '../io/files.js';
import type { AccountOutcome } from '../model/types.js';
import { printable } from '../messages/escape.js';
import { renderApplyMarkdown, renderApplyResults, resultLine } from '../render/apply-result.js';
import { ProgressLine } from '../render/progress.js';
import { failureBlock, failureLines, renderRunText } from '../render/run.js';
import { confirmApply, type Context } from '../io/terminal.js';
import { planAccounts, reportRequests, type PlanningArgs } from './plan.js';
import { sentAgain } from '../saved-plan/compare.js';

export interface ApplyArgs extends PlanningArgs {
  planfile?: string;
  autoApprove?: boolean;
  force?: boolean;
  parallelism: number;
  /** Also write what apply did as markdown here. */
  report?: string;
}

export async function runApply(args: ApplyArgs, ctx: Context): Promise<number> {
  if (!Number.isInteger(args.parallelism) || args.parallelism < 1 || args.parallelism > 64) {
    throw new UsageError('--parallelism must be a whole number from 1 to 64');
  }
  // Before reading anything: a report that cannot be written should fail at once.
  if (args.report !== undefined) await assertOutputFile(resolve(ctx.cwd, args.report), args.report, '--report', true);
  return args.planfile ? applySaved(args, ctx) : applyFresh(args, ctx);
}

/** Plans every account, shows the plan, asks once, then applies each account that passes its own checks. */
async function applyFresh(args: ApplyArgs, ctx: Context): Promise<number> {
  const run = await openRun(args, ctx);
  try {
    await planAccounts(run, args, ctx);
    ctx.stdout.write(renderRunText(plansOf(run), ctx.out));
    const ready = gateAccounts(run, args.force === true, ctx);
    const refused = run.accounts.filter((a) => a.failure && a.plan);
    if (ready.length === 0 || refused.length) await writeReport(args, notApplied(run), run, ctx);
    if (!run.named && refused.length) throw refused[0]!.error;
    for (const a of refused) ctx.stderr.write(failureBlock(`account ${a.name} will not be applied`, failureLines(a.failure), ctx.err));
    if (ready.length === 0) {
      const failed = run.skipped.length > 0 || run.accounts.some((a) => a.failure);
      ctx.stdout.write(failed ? 'Nothing to apply in the other accounts.\n' : 'Nothing to apply.\n');
      return failed ? 1 : 0;
    }
    if (!args.autoApprove) await confirmApply(ctx);
    return await execute(run, ready, args, ctx);
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}

/** A saved plan: planned again and compared before any write, then applied whole or not at all. */
async function applySaved(args: ApplyArgs, ctx: Context): Promise<number> {
  // --prune and --resend-write-only are not changes but consents: see assertConsents.
  const narrowing = ['target', 'exclude', 'account', 'baseline'].filter((k) => {
    const v = args[k as keyof ApplyArgs];
    return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== false;
  });
  if (narrowing.length) {
    throw new UsageError(`a saved plan is applied exactly as it was made: --${narrowing.map(kebab).join(', --')} cannot change it`);
  }
  const file = args.planfile!;
  const saved = await openSavedRun(file, args, ctx);
  const { run } = saved;
  try {
    assertConsents(saved, file, args);
    ctx.stderr.write(`Checking that ${file} (made ${saved.saved.saved.created_at}) still matches the service and ${run.shown}…\n`);
    await verifySavedRun(saved, file, ctx);
    ctx.stdout.write(renderRunText(plansOf(run), ctx.out));
    const ready = gateAccounts(run, args.force === true, ctx);
    const refused = run.accounts.filter((a) => a.failure);
    if (refused.length) {
      if (!run.named) throw refused[0]!.error;
      const error = new SitesyncError(
        `${file} would be refused in ${refused.length === 1 ? 'one account' : `${refused.length} accounts`}; a saved plan is applied whole, so nothing was written`,
      );
      error.details = refused.flatMap((a) => [`account ${a.name}: ${a.failure!.message}`, ...a.failure!.details.map((d) => `  ${d}`)]);
      throw error;
    }
    if (ready.length === 0) {
      ctx.stdout.write('Nothing to apply.\n');
      return 0;
    }
    return await execute(run, ready, args, ctx);
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}

/**
 * A plan file is data (an artifact another job made): what it asks beyond the config file needs
 * the same flag at apply that it needed at plan. Deletes of websites the file merely does not list
 * (`--prune` where the config does not prune) need `--prune`. A write-only value sent with no
 * change of its own (`--resend-write-only`, or "changed since --baseline", a claim about a file
 * apply does not have and cannot check) needs `--resend-write-only`.
 */
function assertConsents(saved: SavedRun, file: string, args: ApplyArgs): void {
  const meta = saved.saved.saved;
  const resent = new Set([...sentAgain(saved.saved.changes).keys()].map((key) => key.split('\0')[0]!));
  const prunes = meta.prune && saved.run.accounts.some((a) => !a.config.prune);
  const asks: string[] = [];
  const why: string[] = [];
  if (prunes && !args.prune) {
    asks.push('--prune');
    why.push(`${file} was made with --prune, which the config file does not ask for`);
  }
  if (resent.size && !args.resendWriteOnly) {
    asks.push('--resend-write-only');
    const sites = [...resent];
    why.push(`${file} sends write-only values (passwords, lists the service does not show) that the config file does not change, to ${sites.length === 1 ? sites[0] : `${sites.length} websites (${sites.slice(0, 3).join(', ')}${sites.length > 3 ? ', …' : ''})`}`);
  }
  if (asks.length) {
    const error = new SitesyncError(`${why.join('; and ')}; nothing was written`);
    error.details = [`Review the plan (sitesync show ${file}), then apply it with ${asks.join(' ')} to confirm: sitesync apply ${asks.join(' ')} ${file}`];
    throw error;
  }
  const extra = [args.prune && !meta.prune ? '--prune' : '', args.resendWriteOnly && !resent.size ? '--resend-write-only' : ''].filter(Boolean);
  if (extra.length) {
    throw new UsageError(`${file} was made without ${extra.join(' and ')}: a saved plan is applied exactly as it was made, so ${extra.join(' and ')} cannot change it`);
  }
}

/** Applies the ready accounts with one progress line, a line per change that stays, and the summary. */
async function execute(run: Run, ready: RunAccount[], args: ApplyArgs, ctx: Context): Promise<number> {
  const progress = new ProgressLine(ctx.stderr, 'Applying');
  const total = ready.reduce((n, a) => n + a.plan!.changes.length, 0);
  progress.update({ done: 0, total, failed: 0 }, true);
  let outcomes;
  try {
    outcomes = await applyAccounts(
      run,
      ready,
      {
        parallelism: args.parallelism,
        signal: ctx.signal,
        onResult: (a, result, counts) => {
          // A line per change, on stdout: it stays in the scrollback and in `apply > apply.log`.
          progress.log(`${run.named ? `${ctx.out.dim(`[${printable(a.name)}]`)} ` : ''}${resultLine(result, ctx.out)}`, ctx.stdout);
          progress.update({ done: counts.done + counts.failed, total, failed: counts.failed });
        },
      },
      ctx,
    );
  } finally {
    progress.done();
  }
  ctx.stdout.write(renderApplyResults(outcomes, run.accounts.length, run.named, ctx.out));
  await writeReport(args, outcomes, run, ctx);
  if (outcomes.some((o) => o.outcome?.interrupted)) return interruptedExitCode(ctx.signal);
  return outcomes.some((o) => o.failure || o.outcome?.results.some((r) => r.status === 'failed')) ? 1 : 0;
}

/** The accounts that were failed before anything ran, as outcomes. */
function notApplied(run: Run): AccountOutcome[] {
  return [...run.accounts.filter((a) => a.failure).map((a) => ({ name: a.name, failure: a.failure! })), ...run.skipped.map((a) => ({ name: a.name, failure: a.failure }))];
}

/** `--report FILE`: what apply did, as markdown. */
async function writeReport(args: ApplyArgs, outcomes: AccountOutcome[], run: Run, ctx: Context): Promise<void> {
  if (args.report === undefined) return;
  const text = renderApplyMarkdown(outcomes, run.accounts.length + run.skipped.length, run.named);
  await writeAtomic(resolve(ctx.cwd, args.report), text).catch((error: unknown) => {
    throw writeFailure(error, '--report', args.report!);
  });
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}
