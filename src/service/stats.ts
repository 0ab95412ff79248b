/**
 * A website's statistics at the service, read so that no answer's order matters: one statistic's
 * rows over the walker of pages the client does not trust (pages.ts), a delete's traffic
 * windows, the last day with a pageview and the month's sum (one walk), and the whole history an
 * archive keeps. Days are the service's: ranges have no last day (HISTORY_TO), so that a service
 * whose clock is ahead of this one still counts its latest days.
 */
import pLimit from 'p-limit';
import { MAX_EVENT_VALUES, MAX_HISTORY_CHARACTERS, MAX_HISTORY_VALUES } from '../caps.js';
import type { Traffic } from '../model/types.js';
import { ApiError } from './errors.js';
import { PER_PAGE, type RequestKind, type ServiceHttp } from './http.js';
import { walkPages, type PageWords } from './pages.js';
import { readStatsRows, type Page, type StatsRow } from './wire.js';

/**
 * The first day of every history read: the Unix epoch's. Not a website's created_at: a migrated
 * database may hold rows older than the website's record.
 */
export const HISTORY_FROM = '1970-01-01';
/**
 * The last day of every read of a website's history: none. A service whose clock is ahead of this
 * one dates its latest hits after this clock's today, and a range that ended there would leave
 * them out (recent traffic read as none).
 */
export const HISTORY_TO = '9999-12-31';
/** Days a service's clock may be ahead of this one's and its window still be read as one: beyond, the traffic is unknown. */
const DAYS_AHEAD = 31;
/** The days of a month and a month past this clock's today (a service whose clock is ahead). */
const MONTH_ROWS = 31 + DAYS_AHEAD;
/** Names of a whole history read at once: the pacer spaces them anyway; a few hide the answers' latency. */
const NAMES_AT_ONCE = 4;

export interface StatsReadOptions {
  /** What the requests are counted as (default 'statistics'). */
  kind?: RequestKind;
  /**
   * The most values the name can hold over the range, and what they are ("the hours of a day"):
   * more is the service's error, and the read stops there rather than page on.
   */
  maxRows?: [number, string];
  /** Takes each new value against what the whole read may hold; says what it would exceed, and the read stops. */
  budget?: (value: string) => string | undefined;
  /** After each page: pages read, and how many the service says there are. */
  onPage?: (read: number, of: number | undefined) => void;
}

/** The UTC day `days` days before `date` (after it, for a negative number), as the stats API writes days. */
export function dayBefore(date: Date, days: number): string {
  return new Date(date.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** A day written `YYYY-MM-DD`, as the stats API writes the value of a daily statistic. */
export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** What a statistic's read says of a paginator it cannot believe. */
function statsWords(what: string): PageWords {
  return {
    wrap: (problem) => `${what}: ${problem}`,
    noun: 'values',
    one: 'value',
    most: 'more values than one statistic of a website holds',
    disagrees: (n, page, size) => `the service's paginator disagrees with itself: last_page ${page.lastPage}, but ${page.total} rows at ${size} a page`,
    endless: (n, page, first, firstPages) => `still more pages after ${n} (the first said ${firstPages ?? 'nothing of how many'}): the service's paging does not end`,
    circles: (n) => `page ${n} repeats the rows of the pages before it (does the service ignore "page"?)`,
    // No value goes away while it is read (hits only add): fewer than the first page counted means
    // rows were skipped (pages in another order than asked, or shorter than they say).
    fewer: (total, held) => `the service said it holds ${total} values, and its pages held ${held} (are they sorted by value, as asked?)`,
  };
}

/**
 * Every row of one statistic of a website over a range, in any number of pages: sorted by value
 * (a total order: the default order by count has ties that two pages may split differently), 100
 * a page, to the last, each value once (a value that appears while reading shifts the rest by
 * one: a row repeats, none is skipped; the larger count, the later one, is kept), never fewer
 * than the first page says there are.
 */
export async function statsRows(http: ServiceHttp, id: number, domain: string, name: string, from: string, to: string, options: StatsReadOptions = {}): Promise<StatsRow[]> {
  const what = `read the ${name} statistics of ${domain}`;
  return walkPages<StatsRow, StatsRow>({
    fetch: (n) => statsPage(http, id, domain, { name, from, to, sort: 'asc', page: n }, options.kind, what),
    read: (row) => row,
    key: (row) => row.value,
    merge: (before, after) => (after.count > before.count ? after : before),
    perPage: PER_PAGE,
    words: statsWords(what),
    onPage: (n, of, page) => {
      for (const row of page.added) {
        const over = options.budget?.(row.value);
        if (over) throw new ApiError('protocol', `${what}: ${over}`);
      }
      const max = options.maxRows;
      if (max && page.all > max[0]) throw new ApiError('protocol', `${what}: the service sent ${page.all} values${page.items.length < page.all ? ' so far' : ''}, more than ${max[1]} (${max[0]})`);
      options.onPage?.(n, of);
    },
  });
}

/** One page of a statistic, sorted by value; its rows read, or the service's error in words. */
async function statsPage(
  http: ServiceHttp,
  id: number,
  domain: string,
  ask: { name: string; from: string; to?: string; sort: 'asc' | 'desc'; page: number },
  kind: RequestKind = 'statistics',
  what = `read the statistics of ${domain}`,
): Promise<Page<StatsRow>> {
  const params = new URLSearchParams({ name: ask.name, from: ask.from, to: ask.to ?? HISTORY_TO, sort_by: 'value', sort: ask.sort, per_page: String(PER_PAGE), page: String(ask.page) });
  const answer = await http.call({ method: 'GET', path: `/stats/${id}?${params}`, kind, what, idempotent: true, abortable: true, timeoutMs: http.statsTimeoutMs });
  try {
    return readStatsRows(answer.body);
  } catch (error) {
    throw error instanceof ApiError ? new ApiError(error.kind, `${what}: ${error.message}`, error.status) : error;
  }
}

const sum = (rows: readonly StatsRow[]) => rows.reduce((n, r) => n + r.count, 0);

/**
 * What a website's statistics hold: the lifetime pageviews from the hourly sums over the whole
 * history (one request, at most 24 rows), then, when there are none, the lifetime events (one
 * request for most websites), and when there are any, the days of the window — the larger of
 * `recentDays` and 30 — from the daily rows from its first day (one request while the window is
 * up to 99 days), each placed by its date. Without pageviews in the last `recentDays` days, and
 * with events recorded (or not known to have none), the events of those days too (one request
 * more): an event hit is activity that records no pageview. The days after this clock's today (a
 * service ahead of it) count as the window's last.
 */
export async function readTraffic(http: ServiceHttp, id: number, domain: string, recentDays: number, today = http.today()): Promise<Traffic> {
  const day = (daysBack: number) => dayBefore(today, daysBack);
  const events = async (from: string) => sum(await statsRows(http, id, domain, 'event', from, HISTORY_TO, { maxRows: [MAX_EVENT_VALUES, 'sitesync counts for a delete'] }));
  const lifetime = sum(await statsRows(http, id, domain, 'pageviews_hour', HISTORY_FROM, HISTORY_TO, { maxRows: [24, 'the hours of a day'] }));
  const zeros = new Array<number>(30).fill(0);
  if (lifetime === 0) {
    // An event hit records the event alone, no pageview: without pageviews, the events say whether any history is left.
    const recorded = await events(HISTORY_FROM);
    const recent = recorded === 0 ? 0 : await events(day(recentDays - 1));
    return { pageviews: 0, pageviews_30d: 0, pageviews_recent: 0, recent_days: recentDays, daily_30d: zeros, events: recorded, events_recent: recent };
  }
  const window = Math.max(recentDays, 30);
  const first = day(window - 1);
  // A row a day at most (a service that ignores `from` may send older ones, which are not the
  // window's, whatever their order); a value that is no day cannot be placed in it, and a
  // window that cannot be read whole is unknown traffic, which counts as recent.
  const rows = await statsRows(http, id, domain, 'pageviews', first, HISTORY_TO, { maxRows: [window + DAYS_AHEAD, `the days from ${first} to a month past today`] });
  const notDay = rows.find((r) => !isDay(r.value));
  if (notDay) throw new ApiError('protocol', `read the pageviews statistics of ${domain}: the service sent a row whose value is not a day: ${JSON.stringify(notDay.value.slice(0, 40))}`);
  const byDay = new Map(rows.filter((r) => r.value >= first).map((r) => [r.value, r.count]));
  const since = (d: string) => [...byDay].reduce((n, [value, count]) => (value >= d ? n + count : n), 0);
  // Oldest first; the days after this clock's today (a service ahead of it) count as the latest day.
  const daily = zeros.map((_, i) => (i === 29 ? since(day(0)) : (byDay.get(day(29 - i)) ?? 0)));
  const recent = since(day(recentDays - 1));
  // Hits that arrived between the two reads: the lifetime holds at least the window.
  const traffic: Traffic = { pageviews: Math.max(lifetime, since(first)), pageviews_30d: since(day(29)), pageviews_recent: recent, recent_days: recentDays, daily_30d: daily };
  // Recent pageviews answer whether it is active; without any, its recent events do.
  return recent > 0 ? traffic : { ...traffic, events_recent: await events(day(recentDays - 1)) };
}

/**
 * A website's pageviews from `from` (a day) on, as the product sums them against the plan's
 * month: the daily rows from that day, one request while they fit a page (a month does).
 */
export async function pageviewsSince(http: ServiceHttp, id: number, domain: string, from: string): Promise<number> {
  const rows = await statsRows(http, id, domain, 'pageviews', from, HISTORY_TO, { maxRows: [MONTH_ROWS, `the days from ${from} to a month past today`] });
  return rows.reduce((n, r) => (isDay(r.value) && r.value >= from ? n + r.count : n), 0);
}

/**
 * For `ci drift --quiet-days`, whatever order the service answers in: the latest day with a
 * pageview of a website (`YYYY-MM-DD`, the service's day; null when it has none), and, given
 * `monthFrom` (the month's first day), its pageviews since then. One request for most websites:
 * the days latest first, 100 a page; when the page did not hold every day, the latest it shows is
 * checked by asking for the days after it. A website with a pageview since `since` is not silent,
 * and the first such day found is its answer. The month comes from the same first page when it
 * holds every day since then, else from one more request (`extra`).
 */
export async function quietDays(http: ServiceHttp, id: number, domain: string, since: string, monthFrom?: string): Promise<{ lastDay: string | null; month: number; extra: number }> {
  /** A first page of days that is the whole answer: shorter than its page, or the last one. */
  const holdsAll = (page: Page<StatsRow>) => page.items.length < (page.perPage ?? PER_PAGE) || (page.lastPage ?? 1) <= 1;
  // A round past a full page of days moves past them all: even a service that ignores the order
  // asked is done within the days of the range, a page at a time (some 210 rounds from 1970 to a
  // month ahead of this clock).
  const rounds = Math.ceil((http.clock.now() + DAYS_AHEAD * 86_400_000 - Date.parse(HISTORY_FROM)) / 86_400_000 / PER_PAGE) + 2;
  let lastDay: string | null = null;
  let first: Page<StatsRow> | undefined;
  for (let from = HISTORY_FROM, round = 1; ; round++) {
    const page = await statsPage(http, id, domain, { name: 'pageviews', from, sort: 'desc', page: 1 });
    first ??= page;
    // Read liberally: a row may count nothing, a value may not be a day, or lie outside the range asked.
    const best = page.items.filter((r) => r.count > 0 && isDay(r.value) && r.value >= from && r.value <= HISTORY_TO).map((r) => r.value).sort().at(-1);
    if (!best) break;
    lastDay = best;
    if (holdsAll(page) || best >= since) break;
    if (round >= rounds) throw new ApiError('protocol', `read the statistics of ${domain}: the service's answers never settle on a latest day (${round} pages of days)`);
    from = dayBefore(new Date(`${best}T00:00:00Z`), -1);
  }
  if (monthFrom === undefined) return { lastDay, month: 0, extra: 0 };
  const days = first.items.filter((r) => isDay(r.value));
  const descending = days.every((r, i) => i === 0 || r.value < days[i - 1]!.value);
  if (holdsAll(first) || (descending && days.length > 0 && days.at(-1)!.value < monthFrom)) {
    return { lastDay, month: days.reduce((n, r) => (r.value >= monthFrom ? n + r.count : n), 0), extra: 0 };
  }
  return { lastDay, month: await pageviewsSince(http, id, domain, monthFrom), extra: 1 };
}

export interface WholeHistoryOptions {
  /** What the requests are counted as (default 'archive'). */
  kind?: RequestKind;
  /** After each page: pages read, and the pages the whole read takes as far as the names' first pages say. */
  onProgress?: (read: number, estimate: number) => void;
}

/** Every row of each name of a website's statistics, and how many requests the read took. */
export interface WholeHistory<N extends string> {
  range: { from: string; to: string };
  rows: Record<N, StatsRow[]>;
  requests: number;
}

/**
 * A website's whole history, for its archive: every row of each of `names`, from the first day
 * of any history with no last day, each name read as `statsRows` reads one, a few names at once
 * (the installation's pacer spaces the requests, as it does every other request of the run). One
 * name that cannot be read fails the read, and the names not yet started are not asked for.
 */
export async function readWholeHistory<N extends string>(http: ServiceHttp, id: number, domain: string, names: readonly N[], options: WholeHistoryOptions = {}): Promise<WholeHistory<N>> {
  const range = { from: HISTORY_FROM, to: HISTORY_TO };
  const pages = new Map<N, { read: number; of: number }>(names.map((n) => [n, { read: 0, of: 1 }]));
  const estimate = () => [...pages.values()].reduce((n, p) => n + Math.max(p.read, p.of), 0);
  let requests = 0;
  let failed = false;
  let values = 0;
  let characters = 0;
  const budget = (value: string) => {
    characters += value.length;
    if (++values > MAX_HISTORY_VALUES) return `the history holds more than ${MAX_HISTORY_VALUES.toLocaleString('en-US')} values in all, more than one archive holds`;
    if (characters > MAX_HISTORY_CHARACTERS) return `the history's values hold more than ${MAX_HISTORY_CHARACTERS / 1024 / 1024} Mi characters in all, more than one archive holds (the product keeps at most 255 a value)`;
    return undefined;
  };
  const limit = pLimit(NAMES_AT_ONCE);
  const read = await Promise.all(
    names.map((name) =>
      limit(async () => {
        if (failed) return [name, []] as const;
        const onPage = (n: number, of: number | undefined) => {
          requests++;
          pages.set(name, { read: n, of: of ?? n });
          options.onProgress?.(requests, estimate());
        };
        try {
          return [name, await statsRows(http, id, domain, name, range.from, range.to, { kind: options.kind ?? 'archive', onPage, budget })] as const;
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
    ),
  );
  return { range, rows: Object.fromEntries(read) as Record<N, StatsRow[]>, requests };
}
