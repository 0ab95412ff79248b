/**
 * History only grows: a website's statistics gain hits and never lose one (the product has no way
 * to remove a hit but deleting the website). So every read of one website's history in a run —
 * the plan's traffic, a saved plan's recorded traffic, the archive written before the delete —
 * must find at least what an earlier one found. Less is the service's error for that website, and
 * its delete is not sent: what it destroys is no longer known. Pure: two readings in, what shrank
 * out.
 */
import type { Change, Plan, Traffic } from '../model/types.js';

/** What one read of a website's history found; a measure left out was not read. */
export interface HistoryReading {
  /** Who read it, as the message names it: "the plan", "the saved plan", "the archive". */
  by: string;
  /** Pageviews in the website's lifetime. */
  pageviews: number;
  /** Visitors in its lifetime (summed by day). */
  visitors?: number;
  /** Events in its lifetime. */
  events?: number;
  /** Pageviews by day (`YYYY-MM-DD`), for the days from `from` on (every day of its history when `from` is undefined). */
  days?: { from?: string; pageviews: ReadonlyMap<string, number> };
}

/** One measure found smaller by the later reading. */
export interface Shrunk {
  /** "pageviews", "events", "visitors", or "pageviews on 2026-11-20". */
  measure: string;
  earlier: number;
  later: number;
}

/** Every measure both readings hold that the later one found smaller; empty when the history grew or stayed. */
export function historyShrunk(earlier: HistoryReading, later: HistoryReading): Shrunk[] {
  const out: Shrunk[] = [];
  const compare = (measure: string, a: number | undefined, b: number | undefined) => {
    if (a !== undefined && b !== undefined && b < a) out.push({ measure, earlier: a, later: b });
  };
  compare('pageviews', earlier.pageviews, later.pageviews);
  compare('visitors', earlier.visitors, later.visitors);
  compare('events', earlier.events, later.events);
  if (earlier.days && later.days) {
    // A day the later reading covers and has no row for is a day of none.
    const from = later.days.from;
    for (const [day, count] of [...earlier.days.pageviews].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (from !== undefined && day < from) continue;
      compare(`pageviews on ${day}`, count, later.days.pageviews.get(day) ?? 0);
    }
  }
  return out;
}

/**
 * Why a website's delete is not sent: its history shrank between two reads. Names the website and
 * each figure, both readings' ("the plan read 5,000 pageviews, the archive 0").
 */
export function shrunkMessage(domain: string, earlier: HistoryReading, later: HistoryReading, shrunk: readonly Shrunk[]): string {
  const shown = shrunk.slice(0, 3).map((s) => `${earlier.by} read ${figure(s.earlier)} ${s.measure}, ${later.by} ${figure(s.later)}`);
  const more = shrunk.length > 3 ? ` (and ${shrunk.length - 3} more)` : '';
  return `not deleted: the history of ${domain} shrank between two reads: ${shown.join('; ')}${more}. History only grows, so the service answered wrongly, and what the delete would destroy is not known`;
}

/** A plan's traffic of a website as a reading (its days are dated only when the day it was read is known). */
export function readingOfTraffic(traffic: Traffic, by: string): HistoryReading {
  return { by, pageviews: traffic.pageviews, ...(traffic.events === undefined ? {} : { events: traffic.events }) };
}

/**
 * The deletes of a plan made again (a saved plan applied) whose traffic, read now, holds less than
 * the earlier plan recorded, each with why in words: apply sends no such delete, and the rest goes
 * on. A recorded traffic that holds no numbers (the plan file is data) is not compared.
 */
export function shrunkSince(earlier: readonly Change[], plan: Plan, by: string): { domain: string; reason: string }[] {
  const recorded = new Map(earlier.flatMap((c) => (c.action === 'delete' && c.traffic && isReading(c.traffic) ? [[c.id, c.traffic] as const] : [])));
  return plan.changes.flatMap((change) => {
    const then = change.action === 'delete' ? recorded.get(change.id) : undefined;
    if (change.action !== 'delete' || !change.traffic || !then) return [];
    const [before, now] = [readingOfTraffic(then, by), readingOfTraffic(change.traffic, 'the service now')];
    const shrunk = historyShrunk(before, now);
    return shrunk.length ? [{ domain: change.domain, reason: shrunkMessage(change.domain, before, now, shrunk) }] : [];
  });
}

/** The plan made again with each delete whose history shrank since `earlier` held, and why (shrunkSince): apply fails it unsent, and the rest goes on. */
export function holdShrunk(earlier: readonly Change[], plan: Plan, by: string): Plan {
  const held = new Map(shrunkSince(earlier, plan, by).map((h) => [h.domain, h.reason]));
  if (!held.size) return plan;
  return { ...plan, changes: plan.changes.map((c) => (c.action === 'delete' && held.has(c.domain) ? { ...c, held: held.get(c.domain)! } : c)) };
}

function isReading(traffic: Traffic): boolean {
  const count = (n: unknown) => typeof n === 'number' && Number.isFinite(n);
  return count(traffic.pageviews) && (traffic.events === undefined || count(traffic.events));
}

function figure(n: number): string {
  return n.toLocaleString('en-US');
}
