/**
 * `sitesync ci drift`: plans every account as `plan --detailed-exitcode` does, prints the plan,
 * and keeps one issue per drifted account on GitHub or GitLab (ci/drift.ts). Exit 0 no drift,
 * 2 drift, 1 any failure (an account not checked, an issue not kept).
 */
import { relative, sep } from 'node:path';
import { failureOf, openRun, type AccountPlanned } from '../run/open.js';
import { planAccounts, plansOf } from '../run/plan.js';
import { reportRequests } from '../run/requests.js';
import { stateOf, type DriftCheck } from '../ci/drift-body.js';
import { outcomesText, problemsText, silentText } from '../ci/drift-report.js';
import { keepDriftIssues, type IssueOutcome } from '../ci/drift.js';
import { githubRepository } from '../ci/github.js';
import { githubIssues } from '../ci/github-issues.js';
import { gitlabProject } from '../ci/gitlab.js';
import { gitlabIssues } from '../ci/gitlab-issues.js';
import type { IssueTracker } from '../ci/issues.js';
import { readSilentWebsites } from '../ci/silent-websites.js';
import { UsageError } from '../messages/errors.js';
import { failureBlock, failureLines, renderRunText } from '../render/run.js';
import type { Context } from '../io/context.js';
import { ciHttp, detectProvider, type Provider } from './ci.js';
import { pageFetcher } from '../verify/fetch.js';
import { verifyAccounts } from '../verify/run.js';
import type { Finding } from '../verify/findings.js';
import { verifyOptions, verifySettings } from './verify.js';
import { account, config, defineCommand, planning, type CommandArgs } from './define.js';
import { MAX_QUIET_DAYS } from '../caps.js';

const options = {
  config,
  account,
  prune: planning.prune,
  target: planning.target,
  exclude: planning.exclude,
  provider: { choices: ['github', 'gitlab'], describe: 'Default: detected from the CI environment' },
  'quiet-days': {
    type: 'number',
    requiresArg: true,
    describe:
      "Also list the managed websites with no pageview in the last N days, and an account at 80 % or more of its plan's monthly pageviews (drift too). Costs one stats request per managed website, paced like the rest (at the service's 60 requests a minute, 300 websites add about 5 minutes); on a plan with a monthly limit, also one per website the file does not manage, and rarely one more for a website whose latest 100 days of traffic do not reach back to the month's first day",
  },
  verify: {
    type: 'boolean',
    describe:
      "Also check each managed website's page for the account's tracking code, as `sitesync verify` does (drift too). Fetches clients' pages, at most 8 at once: nothing more is asked of the service",
  },
  ...verifyOptions,
} as const;

export const ciDriftCommand = defineCommand({
  path: ['ci', 'drift'],
  describe:
    'Plan every account as `plan --detailed-exitcode` does, and keep one issue per drifted account (label sitesync-drift): opened, updated in place, closed once it converges. Exit 0 no drift, 2 drift, 1 any failure',
  options,
  online: true,
  examples: [
    ['$0 ci drift', 'On a schedule, with GITHUB_TOKEN (issues: write) and the keys set'],
    ['$0 ci drift --provider gitlab --quiet-days 14', 'Weekly on GitLab: also the websites silent for two weeks'],
    ['$0 ci drift --account acme', 'In a file with accounts: only acme (its issue alone is touched)'],
    ['$0 ci drift --quiet-days 7 --verify', 'Weekly: silent websites, the month of the plan, and every page checked for its tracking code'],
  ],
  run: runCiDrift,
});

async function runCiDrift(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  const days = args.quietDays;
  if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= MAX_QUIET_DAYS)) {
    throw new UsageError(`--quiet-days must be a whole number of days, 1 or more and at most ${MAX_QUIET_DAYS.toLocaleString('en-US')} (a hundred years), e.g. --quiet-days 14`);
  }
  const verifying = args.verify ? verifySettings(args) : undefined;
  // Before any request to the service: a job without its token fails at once.
  const tracker = trackerFor(args.provider ?? detectProvider(ctx.env), ctx);
  const run = await openRun(args, ctx);
  try {
    // The one account of a single-account file that could not be planned is not the command's error: its issue says so, as any account's would.
    const planned = await planAccounts(run, { prune: args.prune, targets: args.target, excludes: args.exclude }, ctx);
    const silent = days ? await readSilentWebsites(planned, days, { targets: args.target, excludes: args.exclude }, ctx) : undefined;
    const accounts = silent?.accounts ?? planned;
    const pages = verifying ? await verifyPlanned(accounts, args, verifying, ctx) : undefined;
    const config = relative(ctx.cwd, run.workspace.file).split(sep).join('/');
    const checks = accounts.map((a): DriftCheck => {
      const found = silent?.found.get(a);
      return {
        ...(pages ? { verify: pages.filter((f) => f.account === a.name) } : {}), account: a.name, config, plan: a.plan, failure: a.failure, quiet: found && days ? { days, silent: found.silent, extra: found.extra, ...(found.quota ? { quota: found.quota } : {}) } : undefined };
    });
    ctx.stdout.write(renderRunText(plansOf(run, accounts), ctx.out));
    let outcomes: IssueOutcome[];
    try {
      outcomes = await keepDriftIssues(tracker, checks, (error) => failureOf(error, ctx));
    } catch (error) {
      // The issues could not be listed: none was touched.
      ctx.stdout.write(silentText(checks, ctx.out));
      ctx.stderr.write(problemsText(checks, [], tracker.service, ctx.err));
      ctx.stderr.write(failureBlock('the drift issues could not be listed, so none was opened, updated or closed', failureLines(failureOf(error, ctx)), ctx.err));
      return 1;
    }
    // As kept: with the silent websites an issue carried over from an earlier --quiet-days run.
    const kept = outcomes.map((o) => o.check);
    ctx.stdout.write(silentText(kept, ctx.out));
    ctx.stdout.write(outcomesText(outcomes, tracker.service, ctx.out));
    ctx.stderr.write(problemsText(kept, outcomes, tracker.service, ctx.err));
    if (outcomes.some((o) => o.action === 'failed') || kept.some((c) => stateOf(c) === 'failed')) return 1;
    return kept.some((c) => stateOf(c) === 'drift') ? 2 : 0;
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}

/** The findings of `--verify` for the accounts that were planned (a failed one is failed already). */
async function verifyPlanned(
  accounts: readonly AccountPlanned[],
  args: { target?: string[]; exclude?: string[] },
  settings: ReturnType<typeof verifySettings>,
  ctx: Context,
): Promise<Finding[]> {
  const fetcher = pageFetcher(ctx.env, settings.connectTo);
  try {
    const planned = accounts.filter((a) => a.plan && !a.failure).map((a) => ({ name: a.name, config: a.config, baseUrl: a.connection.baseUrl }));
    return await verifyAccounts(planned, fetcher, { targets: args.target, excludes: args.exclude, deadlineMs: settings.deadlineMs });
  } finally {
    await fetcher.close();
  }
}

function trackerFor(provider: Provider, ctx: Context): IssueTracker {
  const http = ciHttp(ctx);
  if (provider === 'github') {
    const repository = githubRepository(ctx.env, 'issues: write');
    ctx.secrets.add(repository.token);
    return githubIssues(repository, http);
  }
  const project = gitlabProject(ctx.env, 'issues');
  ctx.secrets.add(project.token);
  return gitlabIssues(project, http);
}
