/** `sitesync apply [PLANFILE]`: plan (or load a saved plan), check, ask, apply, summarize. */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { assertNoKeyAsPassword, executePlan, type ChangeResult, type ExecuteResult } from '../apply/execute.js';
import { assertSameAccount, needsWholeList, recheckPlan } from '../apply/recheck.js';
import { loadPlanConfig, loadSavedPlan, passwordsFromConfig } from '../apply/saved-plan.js';
import { assertFresh } from '../apply/staleness.js';
import { interruptedExitCode, NotApprovedError, SitesyncError, UsageError } from '../errors.js';
import type { Plan } from '../model.js';
import { assertSafe } from '../planner/safety.js';
import { printable } from '../render/escape.js';
import { ProgressLine } from '../render/progress.js';
import { renderText } from '../render/text.js';
import { changeTitle } from '../render/values.js';
import type { Context } from '../terminal.js';
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
  const { plan, session, config } = await makePlan(args, ctx);
  try {
    if (!showAndCheck(plan, args, ctx)) return 0;
    const passwordFor = passwordsFromConfig(plan, config, args.config);
    assertNoKeyAsPassword(plan, session.client, passwordFor);
    if (!args.autoApprove) await confirm(ctx);
    return await execute(plan, session, passwordFor, args, ctx);
  } finally {
    await session.client.close();
  }
}

async function applySaved(args: ApplyArgs, ctx: Context): Promise<number> {
  const narrowing = ['target', 'prune', 'baseline', 'resendWriteOnly'].filter((k) => {
    const v = args[k as keyof ApplyArgs];
    return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== false;
  });
  if (narrowing.length) {
    throw new UsageError(`a saved plan is applied exactly as it was made: --${narrowing.map(kebab).join(', --')} cannot change it`);
  }
  const file = args.planfile!;
  const path = resolve(ctx.cwd, file);
  // Offline first: the whole file, then the config file it was made from and its passwords.
  const saved = await loadSavedPlan(path, file);
  const { config, shown } = await loadPlanConfig(saved, path, file, ctx.cwd, ctx.env);
  for (const site of config.websites) if (site.password) ctx.secrets.add(site.password.value);
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

async function confirm(ctx: Context): Promise<void> {
  if (!ctx.stdin.isTTY) {
    throw new NotApprovedError(
      'apply asks before it writes, and there is no terminal to ask on: pass --auto-approve (e.g. in CI), or run it in a terminal; nothing was written',
    );
  }
  const rl = createInterface({ input: ctx.stdin, output: ctx.stdout as NodeJS.WritableStream, terminal: false });
  let onAbort = () => undefined as void;
  try {
    const answer = await new Promise<string>((resolveAnswer, reject) => {
      onAbort = () => reject(new NotApprovedError('apply was cancelled; nothing was written'));
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      rl.question(`\n${ctx.out.bold('Apply?')} Only "yes" applies these changes. (yes/no) `).then(resolveAnswer, reject);
      // The input ended (Ctrl-D) without an answer.
      rl.once('close', () => resolveAnswer(''));
    });
    if (answer.trim() !== 'yes') throw new NotApprovedError('apply was cancelled; nothing was written');
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    rl.close();
  }
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
        if (!tty || result.status === 'failed') progress.log(resultLine(result, ctx));
        progress.update({ done: counts.done + counts.failed, total: counts.total, failed: counts.failed });
      },
    });
  } finally {
    progress.done();
  }
  return summarize(outcome, ctx);
}

function resultLine(r: ChangeResult, ctx: Context): string {
  const c = ctx.err;
  const title = changeTitle(r.change);
  if (r.status === 'failed') return c.red(`✗ ${title}: ${withoutPrefix(r.error ?? 'failed', r.change)}`);
  if (r.status === 'gone') return `${c.dim('·')} ${title}: ${r.note ?? 'already gone'} ${c.dim(`${r.ms}ms`)}`;
  return `${c.green('✓')} ${title}${r.note ? c.dim(` (${r.note})`) : ''} ${c.dim(`${r.ms}ms`)}`;
}

/** The failure's message without the "create x.com: " that the line already says, shown as data. */
function withoutPrefix(message: string, change: Plan['changes'][number]): string {
  const prefix = `${change.action} ${change.domain}: `;
  return printable(message.startsWith(prefix) ? message.slice(prefix.length) : message);
}

function summarize({ results, interrupted }: ExecuteResult, ctx: Context): number {
  const done = (action: string) => results.filter((r) => r.status === 'done' && r.change.action === action).length;
  const failed = results.filter((r) => r.status === 'failed');
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const gone = results.filter((r) => r.status === 'gone').length;
  const c = ctx.out;
  if (failed.length) {
    ctx.stdout.write(`\n${c.red(`Failed (${failed.length}):`)}\n`);
    for (const r of failed) ctx.stdout.write(c.red(`  ✗ ${changeTitle(r.change)}: ${withoutPrefix(r.error ?? 'failed', r.change)}\n`));
  }
  const line = `Applied: ${done('create')} created, ${done('update')} updated, ${done('delete')} deleted${gone ? `, ${gone} already gone` : ''}, ${failed.length} failed${skipped ? `, ${skipped} not started (interrupted)` : ''}.`;
  ctx.stdout.write(`\n${failed.length || skipped ? c.bold(c.red(line)) : c.bold(c.green(line))}\n`);
  // A re-run finishes what failed on the way (5xx, network, interrupted), never what was refused.
  const refused = failed.filter((r) => r.refused).length;
  if (failed.length > refused || skipped) ctx.stdout.write('Run sitesync apply again to finish: it picks up where this run stopped.\n');
  if (refused) {
    const what = refused === 1 ? 'the change' : `the ${refused} changes`;
    ctx.stdout.write(
      `The service refused ${what} marked above: applying again as is fails the same way. Change what its message names (the listed fields in the file, or the domain), then run sitesync plan.\n`,
    );
  }
  if (interrupted) return interruptedExitCode(ctx.signal);
  return failed.length ? 1 : 0;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}
