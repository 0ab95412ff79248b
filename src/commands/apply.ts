/** `sitesync apply [PLANFILE]`: plan (or load a saved plan), check, ask, apply, summarize. */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { executePlan, type ChangeResult, type ExecuteResult } from '../apply/execute.js';
import { loadSavedPlan, resolveSecrets } from '../apply/saved-plan.js';
import { assertFresh } from '../apply/staleness.js';
import { NotApprovedError, UsageError } from '../errors.js';
import type { Plan } from '../model.js';
import { assertSafe } from '../planner/safety.js';
import { printable } from '../render/escape.js';
import { ProgressLine } from '../render/progress.js';
import { renderText } from '../render/text.js';
import { changeTitle } from '../render/values.js';
import type { Context } from '../terminal.js';
import { makePlan, type PlanningArgs } from './planning.js';
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
  const { plan, session } = await makePlan(args, ctx);
  try {
    if (!showAndCheck(plan, args, ctx)) return 0;
    const secrets = resolveSecrets(plan, ctx.env, args.config);
    if (!args.autoApprove) await confirm(ctx);
    return await execute(plan, session, secrets, args, ctx);
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
  const plan = await loadSavedPlan(resolve(ctx.cwd, file));
  const secrets = resolveSecrets(plan, ctx.env, file);
  for (const { password } of secrets.values()) if (password) ctx.secrets.add(password);
  const session = await openSession(args, ctx, plan.base_url);
  try {
    if (session.baseUrl !== plan.base_url) {
      throw new UsageError(`${file} was made for ${plan.base_url}, not ${session.baseUrl}; nothing was written`);
    }
    if (!showAndCheck(plan, args, ctx)) return 0;
    ctx.stderr.write(`Checking that ${file} (made ${plan.saved.created_at}) still matches the service…\n`);
    await assertFresh(plan, session.client, plan.saved.live_total, file);
    return await execute(plan, session, secrets, args, ctx);
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
  secrets: Map<Plan['changes'][number], { password?: string }>,
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
      secrets,
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
  const c = ctx.out;
  if (failed.length) {
    ctx.stdout.write(`\n${c.red(`Failed (${failed.length}):`)}\n`);
    for (const r of failed) ctx.stdout.write(c.red(`  ✗ ${changeTitle(r.change)}: ${withoutPrefix(r.error ?? 'failed', r.change)}\n`));
  }
  const line = `Applied: ${done('create')} created, ${done('update')} updated, ${done('delete')} deleted, ${failed.length} failed${skipped ? `, ${skipped} not started (interrupted)` : ''}.`;
  ctx.stdout.write(`\n${failed.length || skipped ? c.bold(c.red(line)) : c.bold(c.green(line))}\n`);
  if (failed.length || skipped) ctx.stdout.write('Run sitesync apply again to finish: it picks up where this run stopped.\n');
  if (interrupted) return 130;
  return failed.length ? 1 : 0;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}
