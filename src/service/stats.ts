/** A website's statistics, read so that no answer's order matters; days are the service's (HISTORY_TO). */
import pLimit from 'p-limit';
import { MAX_EVENT_VALUES, MAX_HISTORY_CHARACTERS, MAX_HISTORY_VALUES } from '../caps.js';
import type { Traffic } from '../model/types.js';
import { ApiError } from './errors.js';
import { ServiceHttp, type RequestKind } from './http.js';
import { PER_PAGE, walkPages } from './pages.js';
import { readStatsRows, type Page } from './wire.js';
import type { Row } from '../archive/file.js';

/** The first day of every history read; not created_at: a migrated database may hold older rows. */
export const HISTORY_FROM = '1970-01-01';
/** No last day: a service whose clock is ahead dates its latest hits after this clock's today. */
export const HISTORY_TO = '9999-12-31';
/** Days a service's clock may be ahead of this one's; beyond, the traffic is unknown. */
const DAYS_AHEAD = 31;
/** Names of a whole history read at once (the pacer spaces the requests anyway). */
const NAMES_AT_ONCE = 4;

export interface StatsReadOptions {
  /** What the requests are counted as (default 'statistics'). */
  kind?: RequestKind;
  /** The most values the name can hold over the range, and what they are: more is the service's error. */
  maxRows?: [number, string];
  /** After each page: pages read, how many the service says there are, the values new on it; what it returns stops the read. */
  onPage?: (read: number, of: number | undefined, added: Row[]) => string | undefined;
}

/** The UTC day `days` days before `date` (after it, for a negative number). */
export function dayBefore(date: Date, days: number): string {
  return new Date(date.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** The hits of every row, or of the days from `from` on. */
const sum = (rows: readonly Row[], from?: string) => rows.reduce((n, r) => (from === undefined || (isDay(r.value) && r.value >= from) ? n + r.count : n), 0);

export class StatsHttp extends ServiceHttp {
  /** Every row of one statistic over a range, sorted by value: the default order by count has ties that two pages may split differently. */
  async statsRows(id: number, domain: string, name: string, from: string, to: string, options: StatsReadOptions = {}): Promise<Row[]> {
    const what = `read the ${name} statistics of ${domain}`;
    return walkPages<Row, Row>({
      fetch: (n) => this.statsPage(id, { name, from, to, sort: 'asc', page: n }, what, options.kind),
      read: (row) => row,
      key: (row) => row.value,
      merge: (before, after) => (after.count > before.count ? after : before),
      wrap: (problem) => `${what}: ${problem}`,
      noun: 'values',
      most: 'more values than one statistic of a website holds',
      disagrees: (n, page, size) => `the service's paginator disagrees with itself: last_page ${page.lastPage}, but ${page.total} rows at ${size} a page`,
      endless: (n, page, first, firstPages) => `still more pages after ${n} (the first said ${firstPages ?? 'nothing of how many'}): the service's paging does not end`,
      circles: (n) => `page ${n} repeats the rows of the pages before it (does the service ignore "page"?)`,
      fewer: (total, held) => `the service said it holds ${total} values, and its pages held ${held} (are they sorted by value, as asked?)`,
      onPage: (n, of, page) => {
        const max = options.maxRows;
        if (max && page.all > max[0]) throw new ApiError('protocol', `${what}: the service sent ${page.all} values${page.items.length < page.all ? ' so far' : ''}, more than ${max[1]} (${max[0]})`);
        const over = options.onPage?.(n, of, page.added);
        if (over) throw new ApiError('protocol', `${what}: ${over}`);
      },
    });
  }

  private async statsPage(
    id: number,
    ask: { name: string; from: string; to?: string; sort: 'asc' | 'desc'; page: number },
    what: string,
    kind: RequestKind = 'statistics',
  ): Promise<Page<Row>> {
    const params = new URLSearchParams({ name: ask.name, from: ask.from, to: ask.to ?? HISTORY_TO, sort_by: 'value', sort: ask.sort, per_page: String(PER_PAGE), page: String(ask.page) });
    const answer = await this.call({ method: 'GET', path: `/stats/${id}?${params}`, kind, what });
    try {
      return readStatsRows(answer.body, ask.page);
    } catch (error) {
      throw error instanceof ApiError ? new ApiError(error.kind, `${what}: ${error.message}`, error.status) : error;
    }
  }

  /** What a website's statistics hold, for a delete; without recent pageviews, the recent events (activity that records no pageview). */
  async readTraffic(id: number, domain: string, recentDays: number, today = new Date()): Promise<Traffic> {
    const day = (daysBack: number) => dayBefore(today, daysBack);
    const events = async (from: string) => sum(await this.statsRows(id, domain, 'event', from, HISTORY_TO, { maxRows: [MAX_EVENT_VALUES, 'sitesync counts for a delete'] }));
    const lifetime = sum(await this.statsRows(id, domain, 'pageviews_hour', HISTORY_FROM, HISTORY_TO, { maxRows: [24, 'the hours of a day'] }));
    const zeros = new Array<number>(30).fill(0);
    if (lifetime === 0) {
      const recorded = await events(HISTORY_FROM);
      const recent = recorded === 0 ? 0 : await events(day(recentDays - 1));
      return { pageviews: 0, pageviews_30d: 0, pageviews_recent: 0, recent_days: recentDays, daily_30d: zeros, events: recorded, events_recent: recent };
    }
    const window = Math.max(recentDays, 30);
    const first = day(window - 1);
    // A service that ignores `from` may send older days, which are not the window's.
    const rows = await this.statsRows(id, domain, 'pageviews', first, HISTORY_TO, { maxRows: [window + DAYS_AHEAD, `the days from ${first} to a month past today`] });
    const notDay = rows.find((r) => !isDay(r.value));
    if (notDay) throw new ApiError('protocol', `read the pageviews statistics of ${domain}: the service sent a row whose value is not a day: ${JSON.stringify(notDay.value.slice(0, 40))}`);
    // Oldest first; the days after this clock's today (a service ahead of it) count as the latest day.
    const daily = zeros.map((_, i) => (i === 29 ? sum(rows, day(0)) : (rows.find((r) => r.value === day(29 - i))?.count ?? 0)));
    const recent = sum(rows, day(recentDays - 1));
    // Hits that arrived between the two reads: the lifetime holds at least the window.
    const traffic: Traffic = { pageviews: Math.max(lifetime, sum(rows, first)), pageviews_30d: sum(rows, day(29)), pageviews_recent: recent, recent_days: recentDays, daily_30d: daily };
    return recent > 0 ? traffic : { ...traffic, events_recent: await events(day(recentDays - 1)) };
  }

  /** A website's pageviews from the day `from` on, as the product sums them against the plan's month. */
  async pageviewsSince(id: number, domain: string, from: string): Promise<number> {
    const rows = await this.statsRows(id, domain, 'pageviews', from, HISTORY_TO, { maxRows: [31 + DAYS_AHEAD, `the days from ${from} to a month past today`] });
    return sum(rows, from);
  }

  /**
   * For `ci drift --quiet-days`, whatever order the service answers in: the latest day with a pageview
   * (null when none), asking for the days after a page's latest until a page holds them all; given
   * `monthFrom`, the pageviews since then, from the first page if it holds them, else one more request (`extra`).
   */
  async quietDays(id: number, domain: string, since: string, monthFrom?: string): Promise<{ lastDay: string | null; month: number; extra: number }> {
    const holdsAll = (page: Page<Row>) => page.items.length < (page.perPage ?? PER_PAGE) || (page.lastPage ?? 1) <= 1;
    // Each round moves past a full page of days: even a service that ignores the order ends.
    const rounds = Math.ceil((Date.now() + DAYS_AHEAD * 86_400_000 - Date.parse(HISTORY_FROM)) / 86_400_000 / PER_PAGE) + 2;
    let lastDay: string | null = null;
    let first: Page<Row> | undefined;
    for (let from = HISTORY_FROM, round = 1; ; round++) {
      const page = await this.statsPage(id, { name: 'pageviews', from, sort: 'desc', page: 1 }, `read the statistics of ${domain}`);
      first ??= page;
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
      return { lastDay, month: sum(days, monthFrom), extra: 0 };
    }
    return { lastDay, month: await this.pageviewsSince(id, domain, monthFrom), extra: 1 };
  }
}

/**
 * A website's whole history, for its archive: one name that cannot be read fails the read.
 * `onProgress` after each page: pages read, and the pages the whole read takes as the first pages say.
 */
export async function readWholeHistory<N extends string>(http: StatsHttp, id: number, domain: string, names: readonly N[], onProgress?: (read: number, estimate: number) => void) {
  // The pages each name takes, as far as its pages say (one before its first).
  const pages = new Map<N, number>(names.map((n) => [n, 1]));
  let requests = 0;
  let values = 0;
  let characters = 0;
  const onPage = (name: N) => (n: number, of: number | undefined, added: Row[]) => {
    for (const { value } of added) {
      characters += value.length;
      if (++values > MAX_HISTORY_VALUES) return `the history holds more than ${MAX_HISTORY_VALUES.toLocaleString('en-US')} values in all, more than one archive holds`;
      if (characters > MAX_HISTORY_CHARACTERS) return `the history's values hold more than ${MAX_HISTORY_CHARACTERS / 2 ** 20} Mi characters in all, more than one archive holds (the product keeps at most 255 a value)`;
    }
    requests++;
    pages.set(name, Math.max(n, of ?? n));
    onProgress?.(requests, [...pages.values()].reduce((a, b) => a + b, 0));
  };
  const limit = pLimit(NAMES_AT_ONCE);
  const read = await limit.map(names, async (name) => {
    const rows = await http.statsRows(id, domain, name, HISTORY_FROM, HISTORY_TO, { kind: 'archive', onPage: onPage(name) }).catch((error: unknown) => {
      limit.clearQueue(); // the names not yet started are not asked for
      throw error;
    });
    return [name, rows] as const;
  });
  return { range: { from: HISTORY_FROM, to: HISTORY_TO }, rows: Object.fromEntries(read) as Record<N, Row[]>, requests };
}
