/**
 * The month's pageviews against the plan's limit. The product sums an account's daily pageviews
 * from the month's first day (UTC days, as the stats API writes them); at or past the plan's
 * `pageviews` it stops tracking every website of the account until the next month. Pure.
 */

/** At this share of the month's limit, `ci drift --quiet-days` calls the account drifted. */
export const QUOTA_WARNING = 0.8;

/** The month's first day of `today` (UTC), `YYYY-MM-DD`. */
export function monthStart(today: Date): string {
  return `${today.toISOString().slice(0, 8)}01`;
}

/** The month's last day of `today` (UTC), `YYYY-MM-DD`. */
export function monthEnd(today: Date): string {
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
}

/** An account's month so far, against its plan. */
export interface MonthUsage {
  /** Pageviews since the month's first day, every website of the account. */
  used: number;
  /** The plan's pageviews a month; null: unlimited (or not said). */
  limit: number | null;
  /** used / limit, 0.853 for 85.3 %; null when unlimited. */
  share: number | null;
  /** The month's first day and today (UTC). */
  from: string;
  today: string;
  /**
   * At this month's pace (the pageviews so far over the days so far, today included), the day
   * the limit is reached; `reached` when it is already; null when unlimited, or not before the
   * month ends.
   */
  runsOut: string | 'reached' | null;
}

/** The usage of `used` pageviews this month against `limit`, and the day it runs out at this pace. */
export function monthUsage(used: number, limit: number | null, today: Date): MonthUsage {
  const from = monthStart(today);
  const day = today.toISOString().slice(0, 10);
  if (limit === null) return { used, limit, share: null, from, today: day, runsOut: null };
  const share = limit === 0 ? 1 : used / limit;
  if (used >= limit) return { used, limit, share, from, today: day, runsOut: 'reached' };
  const daysSoFar = today.getUTCDate();
  const perDay = used / daysSoFar;
  if (perDay <= 0) return { used, limit, share, from, today: day, runsOut: null };
  // The day on which the running total reaches the limit: today's total counts today.
  const more = Math.ceil((limit - used) / perDay);
  const at = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), daysSoFar + more)).toISOString().slice(0, 10);
  return { used, limit, share, from, today: day, runsOut: at <= monthEnd(today) ? at : null };
}

/** `85.3 %` (one decimal; never rounded up to 100 % while under it). */
export function percentOf(share: number): string {
  const tenths = Math.floor(share * 1000) / 10;
  return `${tenths.toFixed(1)} %`;
}

/** An account's month, and how many websites it sums (every one of the account, managed or not). */
export interface AccountUsage extends MonthUsage {
  websites: number;
}
