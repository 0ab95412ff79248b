/** `sitesync apply [PLANFILE]`: plan (or check a saved plan), ask, apply, summarize. */
import { resolve } from 'node:path';
import { interruptedExitCode, UsageError } from '../messages/errors.js';
import { printable } from '../messages/escape.js';
import { assertOutputFile, writeAtomic, writeFailure } from '../io/files.js';
import { confirmApply, type Context } from '../io/context.js';
import type { AccountOutcome, ApprovalCheck } from '../model/types.js';
import { renderApplyMarkdown, renderApplyResults, resultLine } from '../render/apply-result.js';
import { renderApprovalMarkdown, renderApprovalText } from '../render/approval.js';
import { ProgressLine } from '../render/progress.js';
import { renderPlanAs } from '../render/formats.js';
import { failureBlock, failureLines } from '../render/run.js';
import { applyAccounts, gateAccounts, outcomesOf, type Gated } from '../run/apply.js';
import { archiveEveryAccountIn } from '../run/archive.js';
import { accountsError, failedAccounts, throwIfLoneFailed } from '../run/failures.js';
import { failureOf, openRun, type AccountPlanned, type Run } from '../run/open.js';
import { baselineFlags, planAccounts, plansOf } from '../run/plan.js';
import { reportRequests } from '../run/requests.js';
import { openSavedRun, verifySavedRun } from '../run/saved.js';
import { checkApproved } from '../saved-plan/approved-comment.js';
import { approvalRefusal } from '../planner/gate.js';
import { defineCommand, planning, type CommandArgs } from './define.js';

const options = {
  ...planning,
  'auto-approve': { type: 'boolean', describe: 'Do not ask (needed without a terminal)' },
  force: { type: 'boolean', describe: 'Override the safety thresholds' },
  parallelism: { type: 'number', default: 4, requiresArg: true, describe: 'Changes applied at once' },
  report: { type: 'string', requiresArg: true, describe: 'Also write what apply did as markdown to FILE (e.g. for a comment on the merged pull request)' },
  archive: { type: 'string', requiresArg: true, describe: "Before each delete of a website with history, write its whole history to DIR (over the file's archive:)" },
  approved: {
    type: 'string',
    requiresArg: true,
    describe: 'The plan comment a pull request approved (markdown, as posted): say whether this plan is that one, or which changes differ and why',
  },
  'require-approved': { type: 'boolean', describe: 'With --approved: write nothing (exit 1) unless the plan is the approved one' },
} as const;

const positionals = { planfile: { type: 'string', describe: 'A plan saved by `sitesync plan --out`' } } as const;

type ApplyArgs = CommandArgs<typeof options, typeof positionals>;

export const applyCommand = defineCommand({
  path: ['apply'],
  describe: 'Plan, show the plan, ask, then apply it (or apply a saved plan)',
  positionals,
  options,
  online: true,
  examples: [
    ['$0 apply', 'Show the plan and ask before applying it'],
    ['$0 apply --auto-approve', 'In CI, after merge'],
    ['$0 apply --auto-approve --baseline-ref HEAD~1', 'After a merge commit: also send write-only fields (passwords) the merge changed'],
    ['$0 apply plan.json', 'Apply a saved plan, if the service has not changed since'],
    ['$0 apply --archive archives', 'Archive the history of each website before deleting it'],
    ['$0 apply --auto-approve --baseline-ref HEAD~1 --approved plan.md --require-approved', 'After a merge: apply only the plan the pull request showed'],
  ],
  run: runApply,
});

async function runApply(args: ApplyArgs, ctx: Context): Promise<number> {
  if (!Number.isInteger(args.parallelism) || args.parallelism < 1 || args.parallelism > 64) {
    throw new UsageError('--parallelism must be a whole number from 1 to 64');
  }
  // Before reading anything: a report that cannot be written should fail at once.
  if (args.report !== undefined) await assertOutputFile(resolve(ctx.cwd, args.report), args.report, '--report', true);
  if (args.requireApproved && args.approved === undefined) throw new UsageError('--require-approved needs --approved FILE: the plan comment to compare with');
  // One pipeline for both inputs: open → read and plan → show → gate → ask → apply.
  const input = args.planfile ? await openSaved(args, args.planfile, ctx) : await openFresh(args, ctx);
  const { run } = input;
  try {
    if (args.archive !== undefined) await archiveEveryAccountIn(run.accounts.map((a) => a.config), args.archive, ctx.cwd);
    const planned = await input.plan();
    ctx.stdout.write(renderPlanAs('text', plansOf(run, planned), { colors: ctx.out }));
    const approval = await compareWithApproved(run, planned, args, ctx);
    const gated = gateAccounts(run, planned, args.force === true, ctx);
    const stop = await input.refused(gated, approval);
    if (stop !== undefined) return stop;
    if (input.ask && !args.autoApprove) await confirmApply(ctx);
    return await execute(run, gated, args, ctx, approval);
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}

/** An opened input of the pipeline: its run, how it is planned, what a refused account means for it. */
interface Input {
  run: Run;
  /** Reads and plans every account (a change not to be sent says why itself: `held`); returns each, planned or failed. */
  plan(): Promise<AccountPlanned[]>;
  /** After the gate: the command's exit code when nothing is to be applied (or throws); undefined to go on. */
  refused(gated: Gated, approval: ApprovalCheck | undefined): Promise<number | undefined>;
  /** Asked before writing (a saved plan was reviewed when it was made). */
  ask: boolean;
}

/** The config file, planned now: each account that passes its own checks is applied, the others are listed. */
async function openFresh(args: ApplyArgs, ctx: Context): Promise<Input> {
  const baseline = baselineFlags(args);
  const run = await openRun(args, ctx);
  return {
    run,
    ask: true,
    plan: async () => {
      const planned = await planAccounts(run, { prune: args.prune, targets: args.target, excludes: args.exclude, resendWriteOnly: args.resendWriteOnly, baseline }, ctx);
      throwIfLoneFailed(run, planned);
      return planned;
    },
    refused: async ({ accounts, ready }, approval) => {
      const refused = accounts.filter((a) => a.failure && a.plan);
      if (ready.length === 0 || refused.length) await writeReport(args, outcomesOf(run, accounts), ctx, approval);
      throwIfLoneFailed(run, accounts);
      for (const a of refused) ctx.stderr.write(failureBlock(`account ${a.name} will not be applied`, failureLines(a.failure!), ctx.err));
      if (ready.length) return undefined;
      const failed = failedAccounts(run, accounts).length;
      // "The other accounts" only where the run has some (not for `--account alpha` refused alone).
      if (!failed) ctx.stdout.write('Nothing to apply.\n');
      else if (run.accounts.length + run.skipped.length > failed) ctx.stdout.write('Nothing to apply in the other accounts.\n');
      return failed ? 1 : 0;
    },
  };
}

/** A saved plan: planned again and compared before any write, then applied whole or not at all. */
async function openSaved(args: ApplyArgs, file: string, ctx: Context): Promise<Input> {
  // --prune and --resend-write-only are not changes but consents: see saved-plan/consents.ts.
  const narrowing = [
    ['target', args.target?.length],
    ['exclude', args.exclude?.length],
    ['account', args.account?.length],
    ['baseline', args.baseline !== undefined],
    ['baseline-ref', args.baselineRef !== undefined],
  ].filter(([, given]) => given);
  if (narrowing.length) {
    throw new UsageError(`a saved plan is applied exactly as it was made: --${narrowing.map(([flag]) => flag).join(', --')} cannot change it`);
  }
  const saved = await openSavedRun(file, args, ctx);
  const { run } = saved;
  return {
    run,
    ask: false,
    plan: () => {
      ctx.stderr.write(`Checking that ${file} (made ${saved.saved.saved.created_at}) still matches the service and ${run.shown}…\n`);
      return verifySavedRun(saved, file, ctx);
    },
    refused: async ({ accounts, ready }) => {
      const refused = accountsError(failedAccounts(run, accounts), run.accounts.length, (n) => `${file} would be refused in ${n}`, { nothingWritten: { before: 'a saved plan is applied whole, so ' } });
      if (refused) throw refused;
      if (ready.length) return undefined;
      ctx.stdout.write('Nothing to apply.\n');
      return 0;
    },
  };
}

/**
 * `--approved FILE`: says whether the plan is the approved one, or what differs and why; with
 * `--require-approved`, a plan that is not refuses every account before any write (the report says so).
 */
async function compareWithApproved(run: Run, planned: readonly AccountPlanned[], args: ApplyArgs, ctx: Context): Promise<ApprovalCheck | undefined> {
  const approval = await checkApproved(args.approved, plansOf(run, planned), run.workspace.sha256, ctx);
  if (!approval) return undefined;
  ctx.stdout.write(renderApprovalText(approval, ctx.out));
  const refusal = args.requireApproved ? approvalRefusal(approval) : undefined;
  if (refusal) {
    // Every planned account is refused: said in the report.
    const refused = new Map(planned.filter((a) => a.plan && !a.failure).map((a) => [a, { name: a.name, failure: failureOf(refusal, ctx) }]));
    await writeReport(args, outcomesOf(run, planned, refused), ctx, approval);
    throw refusal;
  }
  return approval;
}

/** Applies the ready accounts with one progress line, a line per change that stays, and the summary. */
async function execute(run: Run, gated: Gated, args: ApplyArgs, ctx: Context, approval?: ApprovalCheck): Promise<number> {
  const progress = new ProgressLine(ctx.stderr, 'Applying');
  const total = gated.ready.reduce((n, a) => n + a.plan.changes.length, 0);
  let shown = { done: 0, total, failed: 0 };
  progress.update(shown, true);
  let outcomes;
  try {
    outcomes = await applyAccounts(
      run,
      gated,
      {
        parallelism: args.parallelism,
        signal: ctx.signal,
        cwd: ctx.cwd,
        onResult: (a, result, counts) => {
          // A line per change, on stdout: it stays in the scrollback and in `apply > apply.log`.
          progress.log(`${a.name ? `${ctx.out.dim(`[${printable(a.name)}]`)} ` : ''}${resultLine(result, ctx.out)}`, ctx.stdout);
          progress.update((shown = { done: counts.done + counts.failed, total, failed: counts.failed }));
        },
        onArchiveProgress: (_a, change, read, estimate) => progress.update({ ...shown, note: `archiving ${printable(change.domain)}: ${read} of ~${estimate} pages` }),
      },
      ctx,
    );
  } finally {
    progress.done();
  }
  ctx.stdout.write(renderApplyResults(outcomes, ctx.out));
  await writeReport(args, outcomes, ctx, approval);
  if (outcomes.some((o) => o.outcome?.interrupted)) return interruptedExitCode(ctx.signal);
  return outcomes.some((o) => o.failure || o.outcome?.results.some((r) => r.status === 'failed')) ? 1 : 0;
}

/** `--report FILE`: what apply did, as markdown, and whether it was the approved plan. */
async function writeReport(args: ApplyArgs, outcomes: AccountOutcome[], ctx: Context, approval?: ApprovalCheck): Promise<void> {
  if (args.report === undefined) return;
  const text = `${renderApplyMarkdown(outcomes)}${approval ? `\n${renderApprovalMarkdown(approval)}` : ''}`;
  await writeAtomic(resolve(ctx.cwd, args.report), text).catch((error: unknown) => {
    throw writeFailure(error, '--report', args.report!);
  });
}
