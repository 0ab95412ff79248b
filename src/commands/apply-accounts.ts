/**
 * `apply` of a many-account file: every account planned (or its saved plan checked), one
 * question, then the accounts applied side by side. An account that fails — cannot be read,
 * refused by its own safety check, a change the service refuses — does not stop the others.
 * A saved plan is different: it was reviewed whole, so it is applied whole or not at all.
 */
import { assertNoKeyAsPassword, executePlan, type ExecuteResult } from '../apply/execute.js';
import { assertSameAccount, needsWholeList, recheckPlan } from '../apply/recheck.js';
import { assertPlanMatchesConfig, loadPlanWorkspace, passwordsFromConfig, type SavedAccountsPlan } from '../apply/saved-plan.js';
import { assertFresh } from '../apply/staleness.js';
import { interruptedExitCode, SitesyncError } from '../errors.js';
import type { Config, Plan } from '../model.js';
import { assertSafe } from '../planner/safety.js';
import { failureBlock, renderAccountsText } from '../render/accounts.js';
import { renderApplySummary, resultLine } from '../render/apply-result.js';
import { printable } from '../render/escape.js';
import { ProgressLine } from '../render/progress.js';
import { confirmApply, type Context } from '../terminal.js';
import { accountConnections, accountName, eachAccount, failureLines, Installations } from './accounts.js';
import type { ApplyArgs } from './apply.js';
import { closeAll, type PlannedAccounts } from './make-plan.js';
import { sectionsOf } from './plan.js';
import type { Session } from './session.js';

/** An account whose plan is checked and may be applied. */
interface Ready {
  name: string;
  config: Config;
  plan: Plan;
  session: Session;
  passwordFor: (domain: string) => string | undefined;
}

interface Failure {
  name: string;
  lines: string[];
}

export async function applyAccounts(planned: PlannedAccounts, args: ApplyArgs, ctx: Context): Promise<number> {
  try {
    const sections = sectionsOf(planned, ctx);
    ctx.stdout.write(renderAccountsText(sections, ctx.out));
    const failures: Failure[] = sections.filter((s) => !s.plan).map((s) => ({ name: s.name, lines: s.failure ?? [] }));
    const ready: Ready[] = [];
    for (const a of planned.accounts) {
      if (!a.planned || a.planned.plan.changes.length === 0) continue;
      const { plan, session } = a.planned;
      try {
        // Each account's own thresholds and limit: a refusal there leaves the others to apply.
        assertSafe(plan.safety, plan.limit, args.force === true);
        const passwordFor = passwordsFromConfig(plan, a.config, args.config);
        assertNoKeyAsPassword(plan, session.client, passwordFor);
        ready.push({ name: a.name, config: a.config, plan, session, passwordFor });
      } catch (error) {
        failures.push({ name: a.name, lines: failureLines(error, ctx) });
        ctx.stderr.write(failureBlock(`account ${a.name} will not be applied`, failureLines(error, ctx), ctx.err));
      }
    }
    if (ready.length === 0) {
      ctx.stdout.write(failures.length ? `Nothing to apply in the other accounts.\n` : 'Nothing to apply.\n');
      return failures.length ? 1 : 0;
    }
    if (!args.autoApprove) await confirmApply(ctx);
    return await applyReady(ready, failures, planned.accounts.length, args, ctx);
  } finally {
    await closeAll(planned.accounts);
  }
}

/** A saved plan of several accounts: every account checked (identity, limits, freshness) before any write. */
export async function applySavedAccounts(saved: SavedAccountsPlan, path: string, file: string, args: ApplyArgs, ctx: Context): Promise<number> {
  const { workspace, shown } = await loadPlanWorkspace(saved.saved, path, file, ctx.cwd, ctx.env);
  const entries = saved.accounts.map(({ name, plan }) => {
    const config = workspace.configs.find((c) => accountName(c) === name);
    if (!config || !workspace.multi) throw new SitesyncError(`${file} plans the account ${name}, which ${shown} does not hold; nothing was written`);
    assertPlanMatchesConfig(plan, config, shown, file, `account ${name}: `);
    ctx.secrets.addPasswordsOf(config);
    return { name, plan, config, passwordFor: passwordsFromConfig(plan, config, shown) };
  });
  const byConfig = new Map(entries.map((e) => [e.config, e]));
  const connections = accountConnections(
    entries.map((e) => e.config),
    args,
    ctx,
    shown,
  );
  for (const e of entries) {
    const baseUrl = connections.get(e.config)!.baseUrl;
    if (baseUrl !== e.plan.base_url) {
      throw new SitesyncError(`${file} was made for ${e.plan.base_url} for the account ${e.name}, not ${baseUrl}; nothing was written`);
    }
  }
  const installations = new Installations();
  const sessions: Session[] = [];
  try {
    // The account, its limit and its count now, for every account: the file's figures are never used.
    const checked = await eachAccount(
      entries.map((e) => e.config),
      (c) => connections.get(c)!.baseUrl,
      async (config) => {
        const e = byConfig.get(config)!;
        const session = installations.open(connections.get(config)!, ctx, config);
        sessions.push(session);
        const [account, total] = await Promise.all([session.client.getAccount(), session.client.countWebsites()]);
        assertSameAccount(e.plan, account, `${file} (account ${e.name})`);
        const websites = needsWholeList(e.plan, config) ? await session.client.listWebsites() : undefined;
        const plan = recheckPlan(e.plan, config, { account, total: websites?.length ?? total, websites });
        return { ...e, plan, session, total: websites?.length ?? total, websites };
      },
    );
    refuseWhole(checked, file, 'could not be checked');
    const ready = checked.flatMap((o) => (o.ok ? [o.value] : []));
    ctx.stdout.write(renderAccountsText(ready.map((r) => ({ name: r.name, baseUrl: r.session.baseUrl, plan: r.plan })), ctx.out));
    const unsafe = await eachAccount(
      ready.map((r) => r.config),
      (c) => connections.get(c)!.baseUrl,
      async (config) => {
        const r = ready.find((x) => x.config === config)!;
        assertSafe(r.plan.safety, r.plan.limit, args.force === true);
        assertNoKeyAsPassword(r.plan, r.session.client, r.passwordFor);
      },
    );
    refuseWhole(unsafe, file, 'would be refused');
    const toApply = ready.filter((r) => r.plan.changes.length > 0);
    if (toApply.length === 0) {
      ctx.stdout.write('Nothing to apply.\n');
      return 0;
    }
    ctx.stderr.write(`Checking that ${file} (made ${saved.saved.created_at}) still matches the service in every account…\n`);
    const fresh = await eachAccount(
      toApply.map((r) => r.config),
      (c) => connections.get(c)!.baseUrl,
      async (config) => {
        const r = ready.find((x) => x.config === config)!;
        await assertFresh(r.plan, r.session.client, r.total, `${file} (account ${r.name})`, r.websites);
      },
    );
    refuseWhole(fresh, file, 'is stale');
    return await applyReady(toApply, [], entries.length, args, ctx);
  } finally {
    await Promise.all(sessions.map((s) => s.client.close()));
  }
}

/** Any account's failure refuses the whole saved plan, before any write, naming each account. */
function refuseWhole(outcomes: { config: Config; ok: boolean; error?: unknown }[], file: string, what: string): void {
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length === 0) return;
  const lines = failed.flatMap((o) => {
    const [message = '', ...details] = o.error instanceof Error ? [o.error.message, ...((o.error as SitesyncError).details ?? [])] : [String(o.error)];
    return [`account ${accountName(o.config)}: ${message}`, ...details.map((d) => `  ${d}`)];
  });
  const error = new SitesyncError(
    `${file} ${what} in ${failed.length === 1 ? 'one account' : `${failed.length} accounts`}; a saved plan is applied whole, so nothing was written`,
  );
  error.details = [...lines, 'Make a new plan (sitesync plan --out FILE) and review it.'];
  throw error;
}

/** Applies each account's plan, installations side by side; one progress line for all of them. */
async function applyReady(ready: Ready[], failures: Failure[], accounts: number, args: ApplyArgs, ctx: Context): Promise<number> {
  const byConfig = new Map(ready.map((r) => [r.config, r]));
  const total = ready.reduce((n, r) => n + r.plan.changes.length, 0);
  const counts = { done: 0, failed: 0 };
  const progress = new ProgressLine(ctx.stderr, 'Applying');
  const tty = Boolean(ctx.stderr.isTTY);
  progress.update({ done: 0, total, failed: 0 }, true);
  let outcomes;
  try {
    outcomes = await eachAccount(
      ready.map((r) => r.config),
      (c) => byConfig.get(c)!.session.baseUrl,
      (config) => {
        const r = byConfig.get(config)!;
        return executePlan(r.plan, r.session.client, {
          parallelism: args.parallelism,
          passwordFor: r.passwordFor,
          signal: ctx.signal,
          onResult: (result) => {
            if (result.status === 'failed') counts.failed++;
            else counts.done++;
            if (!tty || result.status === 'failed') progress.log(`${ctx.err.dim(`[${printable(r.name)}]`)} ${resultLine(result, ctx.err)}`);
            progress.update({ done: counts.done + counts.failed, total, failed: counts.failed });
          },
        });
      },
    );
  } finally {
    progress.done();
  }
  const results: { name: string; outcome?: ExecuteResult; failure?: string[] }[] = [
    ...outcomes.map((o) => (o.ok ? { name: byConfig.get(o.config)!.name, outcome: o.value } : { name: byConfig.get(o.config)!.name, failure: failureLines(o.error, ctx) })),
    ...failures.map((f) => ({ name: f.name, failure: f.lines })),
  ];
  let failedAccounts = 0;
  let interrupted = false;
  for (const r of results) {
    ctx.stdout.write(`\n${ctx.out.bold(ctx.out.cyan(`━━ account ${printable(r.name)} ━━`))}\n`);
    if (r.outcome) {
      ctx.stdout.write(renderApplySummary(r.outcome, ctx.out));
      interrupted ||= r.outcome.interrupted;
      if (r.outcome.results.some((x) => x.status === 'failed') || r.outcome.interrupted) failedAccounts++;
    } else {
      failedAccounts++;
      ctx.stdout.write(failureBlock('not applied', r.failure ?? [], ctx.out));
    }
  }
  const n = accounts;
  const untouched = n - results.length;
  const line = `Total for ${n} account${n === 1 ? '' : 's'}: ${counts.done} changes applied, ${counts.failed} failed${untouched ? ` (${untouched} had nothing to apply)` : ''}${failedAccounts ? `; ${failedAccounts} of ${n} accounts did not finish` : ''}.`;
  ctx.stdout.write(`\n${failedAccounts ? ctx.out.bold(ctx.out.red(line)) : ctx.out.bold(ctx.out.green(line))}\n`);
  if (interrupted) return interruptedExitCode(ctx.signal);
  return failedAccounts ? 1 : 0;
}
