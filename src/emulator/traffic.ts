/**
 * Website traffic, for the stats endpoint: per website a map day → pageviews and visitors, the
 * hours derived from it by a fixed daily curve, the rules that give matching websites traffic,
 * and `spreadTraffic` for tests that want "N pageviews over the last D days". No randomness
 * anywhere: the same input always gives the same numbers, and every split sums exactly.
 */
import { labelGlob, type DomainGlob } from '../model/domain.js';
import type { State, WebsiteRow } from './store.js';
import type { DayTraffic, TrafficInput, TrafficRule } from './types.js';

/** The `name` values the product's stats endpoint accepts. */
export const STAT_NAMES = [
  'browser',
  'campaign',
  'city',
  'continent',
  'country',
  'device',
  'event',
  'landing_page',
  'language',
  'os',
  'page',
  'pageviews',
  'pageviews_hour',
  'referrer',
  'resolution',
  'visitors',
  'visitors_hour',
] as const;

export type StatName = (typeof STAT_NAMES)[number];

/** One row of a stats answer: `SUM(count)` of one `value`. */
export interface StatRow {
  value: string;
  count: number;
}

/** How far back a rule or `spreadTraffic` may reach: ten years of days. */
export const MAX_TRAFFIC_DAYS = 3660;

const DAY_MS = 86_400_000;

/**
 * A real calendar day written `YYYY-MM-DD`: what PHP's `date_format:Y-m-d` accepts, since
 * Laravel formats the parsed date again and wants the same text back (no `2025-1-2`, no
 * `2025-02-30`).
 */
export function isDay(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** The UTC day of a date, `YYYY-MM-DD`. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Splits `total` into parts in proportion to `weights`, exactly: each part is the step of the
 * rounded running share, so small totals are spread out evenly instead of bunched at one end.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map(() => 0);
  // round(total * c / sum), in integers; through BigInt once the products outgrow a double.
  const exact = 2 * total * sum + sum <= Number.MAX_SAFE_INTEGER;
  const share = exact
    ? (c: number) => Math.floor((2 * total * c + sum) / (2 * sum))
    : (c: number) => Number((2n * BigInt(total) * BigInt(c) + BigInt(sum)) / (2n * BigInt(sum)));
  let running = 0;
  let before = 0;
  return weights.map((w) => {
    running += w;
    const upTo = share(running);
    const part = upTo - before;
    before = upTo;
    return part;
  });
}

/** A day's pageviews by hour (UTC): quiet at night, highest from 10:00 to 16:00. */
const HOUR_WEIGHTS = [3, 2, 1, 1, 1, 2, 3, 5, 7, 9, 10, 10, 10, 10, 10, 10, 9, 9, 8, 8, 7, 6, 5, 4] as const;

/** Traffic by weekday, Sunday first: weekends are quieter. */
const WEEKDAY_WEIGHTS = [6, 10, 10, 10, 10, 9, 6] as const;

/** The day's counts by hour, each summing to the day's count. */
export function hourly(day: DayTraffic): { pageviews: number[]; visitors: number[] } {
  const pageviews = apportion(day.pageviews, HOUR_WEIGHTS);
  // Visitors follow the pageviews, so an hour never has visitors without pageviews (unless
  // the day itself has visitors and no pageviews).
  const visitors = apportion(day.visitors, day.pageviews > 0 ? pageviews : HOUR_WEIGHTS);
  return { pageviews, visitors };
}

/** Visitors of a day given only its pageviews: a third, rounded up. */
export const defaultVisitors = (pageviews: number) => Math.ceil(pageviews / 3);

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/**
 * `pageviews` over the `days` days up to `today` (UTC, today included), weekdays busier than
 * weekends; visitors a third of the pageviews (rounded up) in total, spread like them. Days
 * that get nothing are left out. The pageviews sum to exactly `pageviews`.
 */
export function spreadTraffic(pageviews: number, days: number, today: Date = new Date()): Record<string, DayTraffic> {
  if (!isCount(pageviews)) throw new RangeError(`pageviews must be a count, not ${pageviews}`);
  if (!Number.isInteger(days) || days < 1 || days > MAX_TRAFFIC_DAYS) {
    throw new RangeError(`days must be 1 to ${MAX_TRAFFIC_DAYS}, not ${days}`);
  }
  if (Number.isNaN(today.getTime())) throw new RangeError('today is not a valid date');
  const last = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const dates = Array.from({ length: days }, (_, i) => new Date(last - (days - 1 - i) * DAY_MS));
  const views = apportion(
    pageviews,
    dates.map((d) => WEEKDAY_WEIGHTS[d.getUTCDay()]!),
  );
  const visitors = apportion(defaultVisitors(pageviews), views);
  const traffic: Record<string, DayTraffic> = {};
  dates.forEach((date, i) => {
    const day = { pageviews: views[i]!, visitors: visitors[i]! };
    if (day.pageviews > 0 || day.visitors > 0) traffic[dayOf(date)] = day;
  });
  return traffic;
}

/** Checked traffic, day ascending, without empty days; throws on a bad day or count. */
export function readTraffic(input: TrafficInput): [string, DayTraffic][] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TypeError('traffic must be an object of YYYY-MM-DD days');
  }
  const days: [string, DayTraffic][] = [];
  for (const [day, value] of Object.entries(input)) {
    if (!isDay(day)) throw new RangeError(`traffic: "${day}" is not a day written YYYY-MM-DD`);
    const counts = typeof value === 'number' ? { pageviews: value } : value;
    if (typeof counts !== 'object' || counts === null || !isCount(counts.pageviews)) {
      throw new RangeError(`traffic of ${day}: pageviews must be a count`);
    }
    const visitors = counts.visitors ?? defaultVisitors(counts.pageviews);
    if (!isCount(visitors)) throw new RangeError(`traffic of ${day}: visitors must be a count`);
    if (counts.pageviews > 0 || visitors > 0) days.push([day, { pageviews: counts.pageviews, visitors }]);
  }
  return days.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Why a rule is unusable, or undefined when it is fine. */
export function trafficRuleProblem(rule: TrafficRule): string | undefined {
  const pattern = typeof rule.pattern === 'string' ? rule.pattern.trim() : '';
  if (pattern === '') return 'a traffic rule needs a domain pattern';
  // The service refuses a domain with a port or a path: such a pattern would match nothing.
  if (/[:/]/.test(pattern)) return `"${rule.pattern}" is not a domain pattern (no scheme, port or path)`;
  if (!isCount(rule.pageviews)) return `the pageviews of a traffic rule must be a count, not ${rule.pageviews}`;
  if (!Number.isInteger(rule.days) || rule.days < 1 || rule.days > MAX_TRAFFIC_DAYS) {
    return `the days of a traffic rule must be 1 to ${MAX_TRAFFIC_DAYS}, not ${rule.days}`;
  }
  return undefined;
}

/**
 * The command line's `PATTERN=PAGEVIEWS[/DAYS]` (DAYS 365 when left out):
 * `old.example.com=12340/400`, `*.shop.example=500/30`. Undefined when the text is not that.
 */
export function parseTrafficRule(text: string): TrafficRule | undefined {
  const m = /^(.+?)\s*=\s*(\d+)(?:\s*\/\s*(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const rule: TrafficRule = { pattern: m[1]!.trim(), pageviews: Number(m[2]), days: m[3] === undefined ? 365 : Number(m[3]) };
  return trafficRuleProblem(rule) === undefined ? rule : undefined;
}

/** The rules of a run, checked beforehand (`trafficRuleProblem`); the first match wins. */
export class TrafficRules {
  private readonly compiled: { rule: TrafficRule; glob: DomainGlob }[];

  constructor(rules: readonly TrafficRule[] = []) {
    // `*` is any run of characters within one label, the rest literal.
    this.compiled = rules.map((rule) => ({ rule, glob: labelGlob(rule.pattern.trim().toLowerCase()) }));
  }

  match(domain: string): TrafficRule | undefined {
    const d = domain.toLowerCase();
    return this.compiled.find((c) => c.glob.test(d))?.rule;
  }

  /** Gives the website its rule's traffic, up to `today`; whether a rule matched. */
  apply(state: State, row: WebsiteRow, today: Date = new Date()): boolean {
    const rule = this.match(row.domain);
    if (!rule) return false;
    state.addTraffic(row.id, Object.entries(spreadTraffic(rule.pageviews, rule.days, today)));
    return true;
  }
}

/**
 * The rows the product's `SUM(count) … GROUP BY value` gives for `name` between `from` and
 * `to` (inclusive), unsorted. Days for `pageviews`/`visitors`, hours `00`–`23` summed over the
 * range for the `_hour` names; a value with nothing counted has no row. The emulator keeps no
 * browsers, countries, pages or referrers: those names have no rows.
 */
export function statRows(name: StatName, days: ReadonlyMap<string, DayTraffic> | undefined, from: string, to: string): StatRow[] {
  if (!days) return [];
  const inRange = [...days].filter(([day]) => day >= from && day <= to);
  switch (name) {
    case 'pageviews':
    case 'visitors':
      return inRange.map(([day, t]) => ({ value: day, count: t[name] })).filter((r) => r.count > 0);
    case 'pageviews_hour':
    case 'visitors_hour': {
      const field = name === 'pageviews_hour' ? 'pageviews' : 'visitors';
      const sums = new Array<number>(24).fill(0);
      for (const [, t] of inRange) hourly(t)[field].forEach((n, h) => (sums[h]! += n));
      return sums.map((count, h) => ({ value: String(h).padStart(2, '0'), count })).filter((r) => r.count > 0);
    }
    default:
      return [];
  }
}
