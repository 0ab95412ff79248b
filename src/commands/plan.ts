/** `sitesync plan`: read the live accounts, print the plan; never writes to the service. */
import { relative, resolve, sep } from 'node:path';
import { assertOutputFile, writeFailure } from '../io/files.js';
import { inCi, type Context } from '../io/context.js';
import { accountsCount, howMany } from '../render/counts.js';
import { failureBlock } from '../render/run.js';
import { PLAN_FORMAT_NAMES, renderPlanAs } from '../render/formats.js';
import { refusedAccounts } from '../run/apply.js';
import { failedAccounts, throwIfLoneFailed } from '../run/failures.js';
import { openRun } from '../run/open.js';
import { baselineFlags, planAccounts, plansOf } from '../run/plan.js';
import { reportRequests } from '../run/requests.js';
import { savePlan } from '../saved-plan/file.js';
import { defineCommand, planning, type CommandArgs } from './define.js';

const options = {
  ...planning,
  format: { choices: PLAN_FORMAT_NAMES, default: 'text', describe: 'Output format' },
  out: { type: 'string', requiresArg: true, describe: 'Save the plan for `sitesync apply PLANFILE`' },
  'detailed-exitcode': { type: 'boolean', describe: 'Exit 0 when nothing changes, 2 when something would' },
  'fail-unsafe': {
    type: 'boolean',
    describe: 'Exit 1, after printing the plan, when apply would refuse it (delete threshold, recent history not retired, website limit)',
  },
} as const;

export const planCommand = defineCommand({
  path: ['plan'],
  describe: 'Show what apply would change; never writes to the service',
  options,
  online: true,
  examples: [
    ['$0 plan', 'Compare sitesync.yaml with the live account'],
    ['$0 plan --format markdown > plan.md', 'A pull-request comment'],
    ['$0 plan --baseline-ref origin/main', 'Also send write-only fields changed since main (the file and its includes as main has them)'],
    ['$0 plan --baseline <(git show origin/main:sitesync.yaml)', 'The same from a file (here a pipe; a file without include:)'],
    ['$0 plan --detailed-exitcode', 'Drift check: exit 2 when the account differs from the file'],
    ['$0 plan --out plan.json', 'Save the plan to apply it later, exactly'],
    ['$0 plan --account acme --exclude "*.test"', 'In a file with accounts: one account, without its test websites'],
    ['$0 plan --format markdown --fail-unsafe', 'In a pull request: fail the check when apply would refuse the plan'],
  ],
  run: runPlan,
});

async function runPlan(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  // Before reading the accounts: a plan that cannot be saved should fail at once. A saved plan
  // is made again and again, so an existing one is replaced.
  const out = args.out === undefined ? undefined : resolve(ctx.cwd, args.out);
  if (out) await assertOutputFile(out, args.out!, '--out', true, '--format json prints the plan itself');
  const baseline = baselineFlags(args);
  const run = await openRun(args, ctx);
  const scope = { prune: args.prune, targets: args.target, excludes: args.exclude, resendWriteOnly: args.resendWriteOnly };
  try {
    const planned = await planAccounts(run, { ...scope, baseline }, ctx);
    throwIfLoneFailed(run, planned);
    const accounts = plansOf(run, planned);
    const commentId = relative(ctx.cwd, run.workspace.file).split(sep).join('/');
    // The markdown plan (the pull request's comment) ends with what it approves, for apply --approved.
    ctx.stdout.write(renderPlanAs(args.format, accounts, { colors: ctx.out, commentId, configSha256: run.workspace.sha256 }));
    // The accounts apply would refuse, and why.
    const refused = refusedAccounts(run, planned, ctx);
    if (out) {
      const configs = accounts.map((p) => run.workspace.configs.find((c) => (c.account?.name ?? '') === p.name)!);
      await savePlan(out, { ...scope, accounts, workspace: run.workspace, configs, cwd: ctx.cwd }).catch((error: unknown) => {
        throw writeFailure(error, '--out', args.out!);
      });
      // How to apply it, where someone would type it: not in CI, and not a plan apply would refuse (its warnings say why).
      const config = args.config === 'sitesync.yaml' ? '' : ` -c ${args.config}`;
      const hint = inCi(ctx.env) || refused.length ? '.' : `; apply it with: sitesync apply${config} ${args.out}`;
      ctx.stderr.write(`Saved the plan${run.named ? ` of ${accountsCount(accounts.length)}` : ''} to ${args.out}${hint}\n`);
    }
    // After the output, so that the plan (whose warnings give the reason) is still shown.
    const failed = failedAccounts(run, planned);
    const unsafe = args.failUnsafe ? refused : [];
    if (failed.length || unsafe.length) {
      throwIfLoneFailed(run, planned, unsafe);
      // Each account's failure is in the plan above: what failed, and why apply would refuse.
      const lines = [
        ...(failed.length ? [`${howMany(failed.length, accounts.length)} could not be planned: ${failed.map((a) => a.name).join(', ')}`] : []),
        ...(unsafe.length ? [`apply would refuse ${howMany(unsafe.length, accounts.length)}:`, ...unsafe.map((u) => `  ${u.name}: ${u.failure.message}`)] : []),
      ];
      ctx.stderr.write(failureBlock('', [`Error: ${lines[0]}`, ...lines.slice(1)], ctx.err));
      return 1;
    }
    const changes = planned.some((a) => a.plan!.changes.length > 0);
    return args.detailedExitcode && changes ? 2 : 0;
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}
