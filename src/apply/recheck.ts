/**
 * What a saved plan says about itself is not taken on trust: the account, the summary, the
 * safety checks and the website limit are worked out again from its changes, the config file
 * it was made from and the live account, before anything is written. Pure.
 */
import { GlobSet } from '../domain.js';
import { SitesyncError } from '../errors.js';
import type { Account, Config, LiveWebsite, Plan } from '../model.js';
import { checkLimit, checkSafety, safetyWarnings } from '../planner/safety.js';
import type { SavedPlan } from './saved-plan.js';

/** Refuses a key of another account than the one the plan was made for. */
export function assertSameAccount(plan: Plan, live: Account, shownPlan: string): void {
  const planned = plan.account;
  const same =
    planned !== null &&
    (planned.id !== null && live.id !== null ? String(planned.id) === String(live.id) : planned.email === live.email);
  if (same) return;
  const error = new SitesyncError(
    `${shownPlan} was made for the account ${describe(planned)}, but the key belongs to ${describe(live)}; nothing was written`,
  );
  error.details = ['Apply it with a key of the account it was made for, or make a new plan with this key.'];
  throw error;
}

function describe(account: { id: number | string | null; name: string; email: string } | null): string {
  if (!account) return '(unknown)';
  const who = account.email ? `${account.name} <${account.email}>` : account.name;
  return account.id === null ? who : `${who} (id ${account.id})`;
}

export interface LiveNow {
  account: Account;
  /** How many websites the account holds now. */
  total: number;
  /** Every live website, when it was read (needed when `ignore` or targets narrow what is managed). */
  websites?: LiveWebsite[];
}

/** Whether the managed websites can only be counted from the whole list. */
export function needsWholeList(plan: SavedPlan, config: Config): boolean {
  return config.ignore.length > 0 || plan.saved.targets.length > 0 || (plan.saved.excludes?.length ?? 0) > 0;
}

/**
 * The plan with its summary, safety, limit and warnings computed again, the way the planner
 * computes them, from the changes, the config and the live account now.
 */
export function recheckPlan(plan: SavedPlan, config: Config, now: LiveNow): Plan {
  const ignore = new GlobSet(config.ignore.map((p) => p.glob));
  const targets = plan.saved.targets.length ? new GlobSet(plan.saved.targets) : undefined;
  const excludes = new GlobSet(plan.saved.excludes ?? []);
  const inScope = (domain: string) => !ignore.matches(domain) && (!targets || targets.matches(domain)) && !excludes.matches(domain);

  const count = { create: 0, update: 0, delete: 0 };
  for (const change of plan.changes) count[change.action]++;
  const listed = config.websites.filter((w) => inScope(w.domain)).length;
  const unchanged = Math.max(0, listed - count.create - count.update);
  let managed: number;
  let unmanaged: number;
  if (now.websites) {
    const names = new Set(config.websites.map((w) => w.domain));
    managed = now.websites.filter((s) => inScope(s.domain)).length;
    unmanaged = Math.max(0, now.websites.filter((s) => !names.has(s.domain)).length - count.delete);
  } else {
    managed = now.total;
    unmanaged = Math.max(0, now.total - unchanged - count.update - count.delete);
  }
  const safety = checkSafety(count.delete, managed, config.websites.length === 0, config.safety);
  const limit = checkLimit(now.account.websiteLimit, now.total, count.create, count.delete);
  return {
    ...plan,
    summary: { ...count, unchanged, unmanaged },
    warnings: safetyWarnings(safety, limit),
    // Informational, and optional in the file's schema: a plan saved without it notes nothing.
    unverified: plan.unverified ?? [],
    safety,
    limit,
  };
}
