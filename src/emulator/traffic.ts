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
 * range for the `_hour` names; every other name from the range's totals spread over the
 * website's audience (see `audienceRows`). A value with nothing counted has no row.
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
    default: {
      const total = (field: keyof DayTraffic) => inRange.reduce((n, [, t]) => n + t[field], 0);
      const lifetime = [...days.values()].reduce((n, t) => n + t.pageviews, 0);
      return audienceRows(name, { pageviews: total('pageviews'), visitors: total('visitors') }, lifetime).filter((r) => r.count > 0);
    }
  }
}

/** The names that hold who the visitors were and what they did, rather than when. */
type AudienceName = Exclude<StatName, 'pageviews' | 'visitors' | 'pageviews_hour' | 'visitors_hour'>;

/**
 * A website's audience: the values of each name, with their weights, and which of the range's
 * totals they share (pages share the pageviews; landing pages, referrers, browsers, places … the
 * visitors, who are entrances; a few campaigns and events a small part of them). A website with
 * more pageviews in its lifetime has more pages (about their square root, up to 10,000), so one
 * with a long history has several pages of rows. Fixed tables and Zipf-like weights: no
 * randomness, the same range always answers the same, and each name's counts add up to its share.
 */
export function audienceRows(name: AudienceName, totals: { pageviews: number; visitors: number }, lifetime: number): StatRow[] {
  const { visitors, pageviews } = totals;
  const spread = (total: number, values: readonly string[], weight: (i: number) => number = zipf) =>
    apportion(total, values.map((_, i) => weight(i))).map((count, i) => ({ value: values[i]!, count }));
  const pages = pagesOf(lifetime);
  switch (name) {
    case 'page':
      return spread(pageviews, pages);
    case 'landing_page':
      return spread(visitors, pages.slice(0, Math.ceil(pages.length / 2)), (i) => zipf(i) * (i < 3 ? 4 : 1));
    case 'referrer':
      return spread(Math.round(visitors * 0.6), [...REFERRERS, ...Array.from({ length: Math.floor(pages.length / 5) }, (_, i) => `blog${i + 1}.example.net`)]);
    case 'campaign':
      return spread(Math.round(visitors * 0.05), CAMPAIGNS);
    case 'event':
      return spread(Math.round(pageviews * 0.03), EVENTS);
    case 'city':
    case 'country':
    case 'continent': {
      const cities = spread(visitors, CITIES.map(([city]) => city), (i) => CITIES[i]![1]);
      const byKey = new Map<string, number>();
      for (const { value, count } of cities) {
        const code = value.slice(0, 2);
        const key = name === 'city' ? value : name === 'country' ? `${code}:${COUNTRIES[code]![0]}` : CONTINENTS[COUNTRIES[code]![1]]!;
        byKey.set(key, (byKey.get(key) ?? 0) + count);
      }
      return [...byKey].map(([value, count]) => ({ value, count }));
    }
    default: {
      const table = SHARES[name];
      return spread(visitors, table.map(([value]) => value), (i) => table[i]![1]);
    }
  }
}

/** Zipf-like weights in integers (apportion splits by integer weights). */
const zipf = (i: number) => Math.round(1_000_000 / (i + 1));

/** The website's pages: the usual ones first, then posts; a few odd ones, as the public's requests give. */
function pagesOf(lifetime: number): string[] {
  const n = Math.min(10_000, Math.max(1, Math.round(Math.sqrt(lifetime))));
  const head = ['/', '/pricing', '/blog/', '/about', '/docs/getting-started', '/contact', '/signup', '/search?q=caf%C3%A9', '/blog/ünïcode-and-you', '/login'];
  return Array.from({ length: n }, (_, i) => head[i] ?? `/${i % 3 === 0 ? 'docs' : 'blog'}/post-${String(i).padStart(4, '0')}`);
}

const REFERRERS = ['google.com', 'duckduckgo.com', 'bing.com', 'news.ycombinator.com', 't.co', 'reddit.com', 'github.com', 'linkedin.com', 'ecosia.org', 'facebook.com'];
const CAMPAIGNS = ['newsletter', 'spring-sale', 'launch-week', 'partner-2024'];
const EVENTS = ['Signup:free:', 'Download:whitepaper.pdf:', 'Purchase:49:EUR', 'Newsletter:subscribe:'];

/** Names whose values share the visitors in fixed proportions (an empty value is the public's too). */
const SHARES: Record<'browser' | 'os' | 'device' | 'resolution' | 'language', [string, number][]> = {
  browser: [['Chrome', 62], ['Safari', 20], ['Edge', 6], ['Firefox', 5], ['Samsung Internet', 3], ['Opera', 2], ['Other', 2]],
  os: [['Windows', 38], ['Android', 27], ['iOS', 18], ['macOS', 12], ['Linux', 3], ['Chrome OS', 2]],
  device: [['desktop', 55], ['mobile', 41], ['tablet', 4]],
  resolution: [['1920x1080', 22], ['390x844', 12], ['1366x768', 10], ['1536x864', 9], ['414x896', 8], ['2560x1440', 7], ['360x800', 7], ['1440x900', 6], ['768x1024', 4]],
  language: [['en', 48], ['de', 12], ['fr', 10], ['es', 9], ['pt', 6], ['nl', 4], ['it', 4], ['ja', 3], ['', 1]],
};

/** Cities as the product writes them (`CC:City, Region`), with their share of the visitors. */
const CITIES: [string, number][] = [
  ['US:New York, NY', 14], ['US:San Francisco, CA', 9], ['GB:London, ENG', 11], ['DE:Berlin, BE', 8], ['DE:Munich, BY', 4],
  ['FR:Paris, IDF', 8], ['NL:Amsterdam, NH', 4], ['ES:Madrid, MD', 4], ['IN:Bengaluru, KA', 7], ['JP:Tokyo, 13', 5],
  ['BR:São Paulo, SP', 5], ['CA:Toronto, ON', 4], ['AU:Sydney, NSW', 3], ['ZA:Cape Town, WC', 2],
];
const COUNTRIES: Record<string, [string, string]> = {
  US: ['United States', 'NA'], GB: ['United Kingdom', 'EU'], DE: ['Germany', 'EU'], FR: ['France', 'EU'], NL: ['Netherlands', 'EU'],
  ES: ['Spain', 'EU'], IN: ['India', 'AS'], JP: ['Japan', 'AS'], BR: ['Brazil', 'SA'], CA: ['Canada', 'NA'], AU: ['Australia', 'OC'], ZA: ['South Africa', 'AF'],
};
const CONTINENTS: Record<string, string> = { NA: 'NA:North America', EU: 'EU:Europe', AS: 'AS:Asia', SA: 'SA:South America', OC: 'OC:Oceania', AF: 'AF:Africa' };
