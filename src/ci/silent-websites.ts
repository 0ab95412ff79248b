/**
 * `ci drift --quiet-days N`: the managed websites that recorded no pageview in the last N days
 * (a tracking snippet removed by a rebuild of the site, a domain moved), with their last day of
 * traffic. One stats request per managed website, paced with every other request of its
 * installation; a few at once per account. A read that fails fails the account's check: a
 * silent website that could not be seen is not "no drift".
 */
import pLimit from 'p-limit';
import { SitesyncError } from '../messages/errors.js';
import { chooseTwin } from '../planner/plan.js';
import { Scope } from '../planner/scope.js';
import type { LiveWebsite } from '../model/types.js';
import { eachAccount } from '../run/per-installation.js';
import { failed, type AccountPlanned, type PlannedAccount } from '../run/open.js';
import type { Context } from '../io/context.js';
import { monthStart, monthUsage, QUOTA_WARNING, type AccountUsage } from '../model/quota.js';
import { monthPageviews } from '../run/usage.js';
import { dayBefore } from '../service/stats.js';
import type { SilentWebsite } from './drift-body.js';

/** Websites of one account read at once (the installation's pacer spaces them further). */
const READS_AT_ONCE = 4;

export interface QuietScope {
  targets?: readonly string[];
  excludes?: readonly string[];
}

/** What `--quiet-days` found of an account: its silent websites, and its month when at 80 % or more of the plan's pageviews. */
export interface QuietFindings {
  silent: SilentWebsite[];
  quota?: AccountUsage;
  /** Stats requests beyond one a managed website (the month's first day before the window, unmanaged websites). */
  extra: number;
}

/** What `--quiet-days` returns: every account (one whose reads failed, failed), and the findings of each one read. */
export interface QuietAccounts {
  accounts: AccountPlanned[];
  found: Map<AccountPlanned, QuietFindings>;
}

/** The silent websites of every planned account, and its month against the plan; an account whose reads fail is failed. */
export async function readSilentWebsites(accounts: readonly AccountPlanned[], days: number, scope: QuietScope, ctx: Pick<Context, 'secrets'>, now = new Date()): Promise<QuietAccounts> {
  const since = dayBefore(now, days - 1);
  const found = new Map<AccountPlanned, QuietFindings>();
  const planned = accounts.flatMap((a) => (a.failure ? [] : [a]));
  const outcomes = await eachAccount(planned, (a) => a.connection.installation, async (a) => {
    found.set(a, await silentOf(a, since, scope, now));
  });
  const failures = new Map(outcomes.flatMap((o) => (o.ok ? [] : [[o.item as AccountPlanned, failed(o.item, quietFailure(o.error, days), ctx)] as const])));
  return { accounts: accounts.map((a) => failures.get(a) ?? a), found };
}

/**
 * The live websites the file lists that the plan manages (the one scope rule: --target, --exclude,
 * ignore), each named as the file writes it: of a name the service holds twice, the one the plan
 * manages (the other is left alone, not watched).
 */
export function managedLive(a: Pick<AccountPlanned, 'config' | 'live'>, options: QuietScope): { id: number; domain: string }[] {
  const scope = new Scope(a.config, options);
  const written = new Map(a.config.websites.filter((w) => scope.includes(w.domain)).map((w) => [w.domain, w.written.trim()]));
  const byKey = new Map<string, LiveWebsite[]>();
  for (const w of a.live ?? []) if (written.has(w.domain)) byKey.set(w.domain, [...(byKey.get(w.domain) ?? []), w]);
  return [...byKey]
    .map(([key, group]) => ({ id: chooseTwin(group, written.get(key)).id, domain: written.get(key)! }))
    .sort((x, y) => (x.domain < y.domain ? -1 : x.domain > y.domain ? 1 : x.id - y.id));
}

async function silentOf(a: PlannedAccount, since: string, scope: QuietScope, now: Date): Promise<QuietFindings> {
  const limit = pLimit(READS_AT_ONCE);
  let failed = false;
  // The month is summed only against a limit: an unlimited plan costs nothing more.
  const cap = a.account?.pageviewLimit ?? null;
  const from = monthStart(now);
  const managed = managedLive(a, scope);
  const last = await Promise.all(
    managed.map((w) =>
      limit(async () => {
        // The first failure fails the account: the rest is not read.
        if (failed) return undefined;
        try {
          return { domain: w.domain, ...(await a.client.quietDays(w.id, w.domain, since, cap === null ? undefined : from)) };
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
    ),
  );
  const read = last.filter((s) => s !== undefined);
  const silent = read.filter((s) => s.lastDay === null || s.lastDay < since).map((s) => ({ domain: s.domain, lastDay: s.lastDay }));
  if (cap === null) return { silent, extra: 0 };
  // The product counts every website of the account against its plan: those the file does not manage too.
  const ids = new Set(managed.map((w) => w.id));
  const others = (a.live ?? []).filter((w) => !ids.has(w.id));
  const month = read.reduce((n, s) => n + s.month, 0) + (await monthPageviews(a.client, others, from));
  const usage = { ...monthUsage(month, cap, now), websites: managed.length + others.length };
  const extra = read.reduce((n, s) => n + s.extra, 0) + others.length;
  return { silent, extra, ...(usage.share !== null && usage.share >= QUOTA_WARNING ? { quota: usage } : {}) };
}

function quietFailure(error: unknown, days: number): unknown {
  if (!(error instanceof SitesyncError) || error.name === 'InterruptedError') return error;
  const wrapped = new SitesyncError(`--quiet-days ${days}: ${error.message}`);
  wrapped.details = [...error.details];
  return wrapped;
}
