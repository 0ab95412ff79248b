/**
 * The pipeline opened on a saved plan (`apply PLANFILE`): the run a saved plan was made for, checked by planning again before any
 * write. Every account of the plan is read (the websites it touches, one by one, or the whole
 * list where that costs fewer requests) and planned again from the unchanged config file; a
 * saved plan is applied whole or not at all, so one account that is stale, differs or cannot be
 * read refuses all of them.
 */
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import { ConfigError, SitesyncError, StalePlanError } from '../messages/errors.js';
import type { Account, LiveWebsite } from '../model/types.js';
import { holdShrunk } from '../planner/history-grows.js';
import { Scope } from '../planner/scope.js';
import type { ServiceClient } from '../service/client.js';
import type { ConnectionFlags } from '../service/connection.js';
import type { Context } from '../io/context.js';
import { eachAccount } from './per-installation.js';
import { accountsError } from './failures.js';
import { connectRun, failureOf, type PlannedAccount, type Run, type RunAccount } from './open.js';
import { markRunMoves, planAccount } from './plan.js';
import { assertDistinctAccounts, type Identified } from './read.js';
import { accountName } from './select.js';
import { checkTrust } from './trust.js';
import { compareSaved, type Numbered } from '../saved-plan/departures.js';
import { loadSavedConfig } from '../saved-plan/config.js';
import { assertConsents, savedReasons, type Consents } from '../saved-plan/consents.js';
import { readSavedPlan, type SavedPlan } from '../saved-plan/file.js';

export interface SavedRun {
  run: Run;
  saved: SavedPlan;
}

/**
 * Reads the plan file and the config it was made from, checks that the command consents to what
 * the plan asks beyond the config, and connects its accounts; nothing is read from a service yet.
 */
export async function openSavedRun(planfile: string, flags: ConnectionFlags & Consents & { trustedConfig?: string; config?: string }, ctx: Context): Promise<SavedRun> {
  const saved = await readSavedPlan(resolve(ctx.cwd, planfile), planfile);
  const config = flags.config ?? 'sitesync.yaml';
  const { workspace, shown } = await loadSavedConfig(saved.saved, resolve(ctx.cwd, config), config, planfile, ctx.env);
  const unnamed = saved.accounts.some((a) => a.name === null);
  if (unnamed !== !workspace.multi) {
    throw new SitesyncError(`${planfile} was made for ${unnamed ? 'one account' : 'a file with accounts'}, and ${shown} ${workspace.multi ? 'holds accounts' : 'holds one account'}`, { nothingWritten: true });
  }
  const configs = saved.accounts.map(({ name }) => {
    const config = workspace.configs.find((c) => accountName(c) === (name ?? ''));
    if (!config) throw new SitesyncError(`${planfile} plans the account ${name}, which ${shown} does not hold`, { nothingWritten: true });
    return config;
  });
  assertConsents(saved, configs, planfile, flags);
  if (flags.trustedConfig) {
    const { untrusted } = await checkTrust(workspace, configs, flags.trustedConfig, ctx.cwd, shown);
    if (untrusted.size) {
      throw new SitesyncError(`${planfile} plans ${[...untrusted].map((c) => `account ${accountName(c)}`).join(', ')}, whose connection the trusted config does not hold`, { nothingWritten: { before: 'a saved plan is applied whole, so ' } });
    }
  }
  const run = await connectRun(workspace, configs, flags, ctx, shown);
  for (const [i, a] of run.accounts.entries()) {
    const planned = saved.accounts[i]!.base_url;
    if (a.connection.baseUrl !== planned) {
      await run.close();
      throw new SitesyncError(`${planfile} was made for ${planned}${a.name ? ` for the account ${a.name}` : ''}, not ${a.connection.baseUrl}`, { nothingWritten: true });
    }
  }
  return { run, saved };
}

/**
 * Plans every account again and compares with the saved plan; on success returns each account
 * with the plan made now (what apply shows and runs). Throws, before any write, naming each
 * account and change that differs.
 */
export async function verifySavedRun({ run, saved }: SavedRun, shownPlan: string, ctx: Pick<Context, 'secrets'>): Promise<PlannedAccount[]> {
  const named = (a: RunAccount, line: string) => (a.name ? `account ${a.name}: ${line}` : line);
  // What each account read, whether or not its planning went through: one account of two entries is said first.
  const read = new Map<RunAccount, Identified>();
  const outcomes = await eachAccount(run.accounts, (a) => a.connection.installation, (a) => verifyAccount(a, saved, shownPlan, run.shown, (r) => read.set(a, r)));
  assertDistinctAccounts(run.accounts.map((a) => read.get(a) ?? a));
  const failed = outcomes.flatMap((o) => (o.ok ? [] : [{ name: o.item.name, failure: failureOf(o.error, ctx), error: o.error }]));
  const error = accountsError(failed, run.accounts.length, (n) => `${shownPlan} could not be checked in ${n}`, { nothingWritten: { before: 'a saved plan is applied whole, so ' } });
  if (error) throw error;
  const problems = outcomes.flatMap((o) => (o.ok ? o.value.problems.map((p) => named(o.item, p)) : []));
  if (problems.length) {
    throw new ConfigError(problems.map((message) => ({ file: shownPlan, line: 0, col: 0, message, severity: 'error' as const })));
  }
  const stale = outcomes.flatMap((o) => (o.ok ? o.value.stale.map((p) => named(o.item, p)) : []));
  if (stale.length) {
    const error = new StalePlanError(`${shownPlan} is stale: ${stale.length} of its ${saved.changes.length} changes no longer match the service`, { nothingWritten: true });
    error.details = [...stale, 'Make a new plan (sitesync plan --out FILE) and review it.'];
    throw error;
  }
  return markRunMoves(outcomes.flatMap((o) => (o.ok ? [o.value.planned] : [])));
}

/**
 * One account of the saved plan made again: the websites it touches read now (or the whole list),
 * planned by the one planning step with the saved plan's options and its websites alone, and
 * compared with what was saved; returns the comparison and the account planned now.
 */
async function verifyAccount(a: RunAccount, saved: SavedPlan, shownPlan: string, shownConfig: string, onRead: (read: Identified) => void) {
  const mine = (name: string | null) => (name ?? '') === a.name;
  const mineSaved = saved.accounts.find((s) => mine(s.name))!;
  const changes: Numbered[] = saved.changes.flatMap((change, index) => (mine(change.account) ? [{ index, change }] : []));
  const [account, total] = await Promise.all([a.client.getAccount(), a.client.countWebsites()]);
  assertSameAccount(mineSaved.account, account, a.name ? `${shownPlan} (account ${a.name})` : shownPlan);
  const { targets, excludes, prune } = saved.saved;
  const scope = new Scope(a.config, { targets, excludes });
  // The delete threshold counts the managed websites, which narrowing patterns make a part of the whole list.
  const needsList = scope.narrowed && changes.some((c) => c.change.action === 'delete');
  const { live, whole } = await readTouched(changes, a.client, total, needsList);
  onRead({ ...a, account, live });
  const plan = await planAccount(
    { config: a.config, live, account, baseUrl: a.connection.baseUrl, client: a.client },
    {
      prune,
      targets,
      excludes,
      checkPatterns: false,
      only: new Set(changes.map((c) => c.change.domain)),
      sendAgain: savedReasons(changes.map((c) => c.change)),
      // Only the websites the plan touches were read: the account's counts, and the unmanaged
      // websites of a narrowed plan as the plan counted them (bounded by the account), a number
      // it shows that decides nothing.
      ...(whole ? {} : { census: { total, managed: total, ...(scope.narrowed ? { unmanaged: savedUnmanaged(mineSaved, total) } : {}) } }),
    },
  );
  const comparison = compareSaved(changes, plan, live, { config: a.config, shownConfig, scope, prune });
  // What the saved plan recorded of a delete's traffic is a floor: a delete whose history shrank since is held, the rest goes on.
  const planned: PlannedAccount = { ...a, account, total, live, plan: holdShrunk(changes.map((c) => c.change), plan, 'the saved plan') };
  return { ...comparison, planned };
}

/** The unmanaged count a saved plan shows for an account, bounded by the account's size (the file is data). */
function savedUnmanaged(saved: SavedPlan['accounts'][number], total: number): number {
  const written = (saved as { summary?: { unmanaged?: unknown } }).summary?.unmanaged;
  return typeof written === 'number' && Number.isInteger(written) ? Math.min(Math.max(written, 0), total) : 0;
}

/**
 * Reads what the saved changes touch, whichever way costs fewer requests: each website on its
 * own (by id; a website to create by a search for its domain), or the whole list once.
 */
async function readTouched(changes: Numbered[], client: ServiceClient, total: number, wholeList: boolean): Promise<{ live: LiveWebsite[]; whole: boolean }> {
  const ids = changes.flatMap(({ change }) => (change.action === 'create' ? [] : [change.id]));
  const creates = changes.filter(({ change }) => change.action === 'create').map(({ change }) => change.domain);
  const now = { byId: new Map<number, LiveWebsite>(), byDomain: new Map<string, LiveWebsite>() };
  // One request per website touched, against the pages of the whole list (and the list's first page, already read for the count).
  if (wholeList || ids.length + creates.length > client.pagesFor(total)) {
    return { live: await client.listWebsites(), whole: true };
  }
  const limit = pLimit(8);
  await Promise.all([
    ...ids.map((id) =>
      limit(async () => {
        const found = await client.lookupWebsite(id);
        if (found) now.byId.set(id, found);
      }),
    ),
    ...creates.map((domain) =>
      limit(async () => {
        const found = await client.findWebsite(domain);
        if (found) now.byDomain.set(domain, found);
      }),
    ),
  ]);
  const live = [...new Map([...now.byId.values(), ...now.byDomain.values()].map((w) => [w.id, w])).values()];
  return { live, whole: false };
}

/** Refuses a key of another account than the one the plan was made for. */
function assertSameAccount(planned: SavedPlan['accounts'][number]['account'], live: Account, shownPlan: string): void {
  const same = planned !== null && (planned.id !== null && live.id !== null ? String(planned.id) === String(live.id) : planned.email === live.email);
  if (same) return;
  const error = new SitesyncError(`${shownPlan} was made for the account ${describe(planned)}, but the key belongs to ${describe(live)}`, { nothingWritten: true });
  error.details = ['Apply it with a key of the account it was made for, or make a new plan with this key.'];
  throw error;
}

function describe(account: { id: number | string | null; name: string; email: string } | null): string {
  if (!account) return '(unknown)';
  const who = account.email ? `${account.name} <${account.email}>` : account.name;
  return account.id === null ? who : `${who} (id ${account.id})`;
}
