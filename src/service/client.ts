/**
 * The one module that talks to the service. It pins every request to the base URL's origin,
 * paces requests from the service's throttle headers, retries what is safe to retry, and reads
 * answers liberally into the model.
 */
import { Pool } from 'undici';
import { domainKey } from '../model/domain.js';
import { FIELD, FIELDS } from '../model/fields.js';
import { InterruptedError } from '../messages/errors.js';
import type { Account, FieldName, LiveWebsite, Traffic, WebsiteView } from '../model/types.js';
import { packageVersion } from '../io/paths.js';
import { SecretValues } from '../secrets/values.js';
import { ApiError, errorForStatus, serviceMessage } from './errors.js';
import { Pacer, realClock, ThrottleTooLong, type PacerClock } from './pacer.js';
import { lastPageOf, Paging, WebsitesRead } from './paging.js';
import { ANSWER_DEADLINE_MS, AnswerTooLarge, certificateProblem, checkServerIdentity, classifyTransportError, deadline, readCapped, type AnswerBody } from './transport.js';
import { readPage, readStatsRows, toAccount, toForm, toLiveWebsite, unwrap, type Form, type Page, type StatsPage, type StatsRow } from './wire.js';
import { MAX_ANSWER_BYTES, MAX_EVENT_VALUES, MAX_STATS_PAGES } from '../caps.js';

export interface RetryPolicy {
  /** Attempts for a request that fails with 5xx or a network error (the first one included). */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Give up retrying once this much time has passed since the first attempt. */
  budgetMs: number;
  /** 429 answers tolerated for one request before giving up. */
  max429: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 300, maxDelayMs: 8000, budgetMs: 60_000, max429: 30 };

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Where the key came from, for the advice when the service refuses it (a variable's name, never the key). */
  keyFrom?: string;
  /**
   * Values that what the service says is cleaned of before it becomes a message (the key is
   * always added). Shared with the caller, so that passwords registered later count too.
   */
  secrets?: SecretValues;
  /** Pages fetched at once while listing. */
  listConcurrency?: number;
  connectTimeoutMs?: number;
  /** Time allowed for the answer's headers, and then between body chunks. */
  readTimeoutMs?: number;
  /**
   * The same for a read of a website's statistics (default 15 s, at most readTimeoutMs), which is
   * not sent again after a timeout: a service that takes that long over one website's history is
   * not made faster by asking again, and the plan does not wait on it.
   */
  statsTimeoutMs?: number;
  /**
   * The whole time one answer may take, headers and body, on top of the timeouts between chunks
   * (default ANSWER_DEADLINE_MS): a service trickling a few bytes at a time is cut off.
   */
  deadlineMs?: number;
  /**
   * The same for a read of statistics (default STATS_DEADLINE_MS): past it, the traffic is unknown,
   * which counts as recent.
   */
  statsDeadlineMs?: number;
  retry?: Partial<RetryPolicy>;
  /** One line per request (`--verbose`). Never receives the key or a body. */
  log?: (line: string) => void;
  clock?: PacerClock;
  /**
   * The pacer to share: one per installation (origin), since its throttle may count every key
   * from this address in one budget (service-behaviour.md). Default: the client's own.
   */
  pacer?: Pacer;
  /** Aborts reads in progress (Ctrl-C during plan). Writes are never cut off half way. */
  signal?: AbortSignal;
  /** The largest answer read (default MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
}

export interface ClientStats {
  requests: number;
  retries: number;
  throttled: number;
  byStatus: Record<number, number>;
  /** Requests by what they were for (each attempt counts): what a run's requests went to. */
  byKind: Partial<Record<RequestKind, number>>;
}

/** What a request is for, for the count `--verbose` gives. */
export type RequestKind = 'account' | 'listing' | 'search' | 'count' | 'show' | 'statistics' | 'archive' | 'write';

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

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface RequestSpec {
  method: Method;
  kind: RequestKind;
  /** Below the API root, e.g. `/websites?page=2`. */
  path: string;
  form?: Form;
  /** For messages: "update example.com". */
  what: string;
  /** Safe to send again after a 5xx or a lost answer. */
  idempotent: boolean;
  /** Called before a retry after a 5xx; may throw to stop retrying. */
  beforeRetry?: (error: ApiError) => Promise<void>;
  /** Whether reads may be aborted by the client's signal. */
  abortable?: boolean;
  /** A route every version has (the account, the list): a 404 there means a wrong base URL. */
  fixedRoute?: boolean;
  /** Time allowed for this answer (else the client's readTimeoutMs); a timeout then is not retried. */
  timeoutMs?: number;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export const PER_PAGE = 100;
/** A read of statistics, which the plan does not wait on for long (its between-chunks timeout is 15 s). */
export const STATS_DEADLINE_MS = 30_000;
/** Pages read at once: quick on a large account, still gentle on a small PHP service. */
export const LIST_CONCURRENCY = 12;
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
export class ServiceClient {
  readonly stats: ClientStats = { requests: 0, retries: 0, throttled: 0, byStatus: {}, byKind: {} };
  private readonly pool: Pool;
  private readonly apiRoot: string;
  private readonly pacer: Pacer;
  private readonly retry: RetryPolicy;
  private readonly clock: PacerClock;
  private readonly headers: Record<string, string>;
  private readonly secrets: SecretValues;

  constructor(private readonly options: ClientOptions) {
    this.secrets = options.secrets ?? new SecretValues();
    this.secrets.add(options.apiKey);
    const url = new URL(options.baseUrl);
    this.apiRoot = `${url.pathname.replace(/\/+$/, '')}/api/v1`;
    this.pool = new Pool(url.origin, {
      connections: 16,
      connectTimeout: options.connectTimeoutMs ?? 10_000,
      headersTimeout: options.readTimeoutMs ?? 30_000,
      bodyTimeout: options.readTimeoutMs ?? 30_000,
      keepAliveTimeout: 10_000,
      connect: { checkServerIdentity },
    });
    this.clock = options.clock ?? realClock;
    this.pacer = options.pacer ?? new Pacer(this.clock);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': `sitesync/${packageVersion()}`,
    };
  }

  /**
   * Text the service holds (a statistic's value, a setting, the account's name), cleaned of the
   * run's secrets (those long enough not to occur in it by chance: SecretValues.cleanData): the
   * service may hold or echo the key or a password, and what sitesync shows or writes of it must not.
   */
  cleaned(text: string): string {
    return this.secrets.cleanData(text);
  }

  /** A website record as read, its settings' text cleaned; its id and domain, which name it, as they are. */
  private website(raw: unknown): LiveWebsite {
    const site = toLiveWebsite(raw);
    const fields = site as unknown as Record<string, unknown>;
    for (const { name } of FIELDS) {
      const value = fields[name];
      if (typeof value === 'string') fields[name] = this.cleaned(value);
      else if (Array.isArray(value)) fields[name] = value.map((v: unknown) => (typeof v === 'string' ? this.cleaned(v) : v));
    }
    return site;
  }

  /** Whether `value` is this client's API key (compared here, so the key stays inside). */
  usesKey(value: string): boolean {
    return value === this.options.apiKey;
  }

  async close(): Promise<void> {
    // A request still in flight (a sibling of one that failed the run) ends when the pool does: not news.
    this.closed = true;
    // Its own pacer's wait ends with it; a shared one is closed by whoever shares it (the run).
    if (!this.options.pacer) this.pacer.close();
    await this.pool.close();
  }

  private closed = false;

  /** This client's clock, as a date: the day the stats are read against. */
  today(): Date {
    return new Date(this.clock.now());
  }

  async getAccount(): Promise<Account> {
    const answer = await this.call({
      method: 'GET',
      path: '/account',
      kind: 'account',
      what: 'read the account',
      idempotent: true,
      abortable: true,
      fixedRoute: true,
    });
    const account = toAccount(answer.body);
    return { ...account, name: this.cleaned(account.name), email: this.cleaned(account.email), plan: this.cleaned(account.plan) };
  }

  /**
   * Every website of the account, id ascending. Pages are built from the base URL (never from
   * the links the service sends, which may name another host) and read by a few readers at once
   * once the first page says how many there are, up to the last page as the latest answer says
   * (websites added while listing push it further); the page count is checked before it is
   * followed (paging.ts).
   */
  async listWebsites(
    query: Record<string, string> = {},
    onProgress?: (pages: number, of: number | undefined) => void,
    /** Shared by the listings of one account (the searches of a plan with --target): a million websites in all. */
    read?: WebsitesRead,
  ): Promise<LiveWebsite[]> {
    const found = new Map<number, LiveWebsite>();
    let pagesRead = 0;
    const first = await this.fetchPage(1, query);
    const paging = new Paging(query.search === undefined ? 'list websites' : `search websites for "${query.search}"`, first, read);
    const add = (page: Page): number => {
      const sites = page.items.map((item) => this.website(item));
      const { added } = paging.count(sites.map((site) => site.id));
      for (const site of sites) found.set(site.id, site);
      onProgress?.(++pagesRead, paging.lastPage);
      return added;
    };
    add(first);
    if (paging.lastPage !== undefined) {
      // A bounded pool of readers, each taking the next page number while there is one.
      let next = 2;
      let stopped = false;
      const reader = async () => {
        try {
          while (!stopped && next <= paging.lastPage!) {
            const n = next++;
            const page = await this.fetchPage(n, query);
            paging.check(page, n);
            add(page);
          }
        } catch (error) {
          stopped = true; // the other readers take no further page
          throw error;
        }
      };
      await Promise.all(Array.from({ length: this.options.listConcurrency ?? LIST_CONCURRENCY }, reader));
    } else {
      // No page count: walk page numbers while the service says there is a next one.
      let page = first;
      let n = 1;
      while (page.hasNext && page.items.length > 0) {
        page = await this.fetchPage(++n, query);
        paging.check(page, n);
        const added = add(page);
        if (page.hasNext && page.items.length > 0) paging.checkProgress(added, n);
      }
    }
    return [...found.values()].sort((a, b) => a.id - b.id);
  }

  /** The website with this domain, if the account has it (a search, then an exact match). */
  async findWebsite(domain: string): Promise<LiveWebsite | undefined> {
    const key = domainKey(domain);
    const matches = await this.listWebsites({ search: key, search_by: 'domain' });
    return matches.find((w) => w.domain === key);
  }

  /** How many websites the account holds (one small request when the service says its total). */
  async countWebsites(): Promise<number> {
    const params = new URLSearchParams({ per_page: '10', page: '1' });
    const answer = await this.call({
      method: 'GET',
      path: `/websites?${params}`,
      kind: 'count',
      what: 'count websites',
      idempotent: true,
      abortable: true,
      fixedRoute: true,
    });
    const page = readPage(answer.body, 1);
    if (page.total !== undefined) return page.total;
    return (await this.listWebsites()).length;
  }

  /**
   * What a website's statistics hold, read so that no answer's order matters: the lifetime
   * pageviews from the hourly sums over the whole history (one request, at most 24 rows), then,
   * when there are none, the lifetime events (one request for most websites), and when there are
   * any, the days of the window — the larger of `recentDays` and 30 — from the
   * daily rows from its first day (one request while the window is up to 99 days), each placed
   * by its date. Without pageviews in the last `recentDays` days, and with events recorded (or not
   * known to have none), the events of those days too (one request more): an event hit is
   * activity that records no pageview. Days are the service's: ranges have no last day
   * (HISTORY_TO), so that a service whose clock is ahead of this one still counts its latest
   * days, as the window's last.
   */
  async readTraffic(id: number, domain: string, recentDays: number, today = new Date(this.clock.now())): Promise<Traffic> {
    const day = (daysBack: number) => dayBefore(today, daysBack);
    const sum = (rows: readonly StatsRow[]) => rows.reduce((n, r) => n + r.count, 0);
    const events = async (from: string) => sum(await this.statsRows(id, domain, 'event', from, HISTORY_TO, { maxRows: [MAX_EVENT_VALUES, 'sitesync counts for a delete'] }));
    const lifetime = sum(await this.statsRows(id, domain, 'pageviews_hour', HISTORY_FROM, HISTORY_TO, { maxRows: [24, 'the hours of a day'] }));
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
    const rows = await this.statsRows(id, domain, 'pageviews', first, HISTORY_TO, { maxRows: [window + DAYS_AHEAD, `the days from ${first} to a month past today`] });
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
  async pageviewsSince(id: number, domain: string, from: string): Promise<number> {
    const rows = await this.statsRows(id, domain, 'pageviews', from, HISTORY_TO, { maxRows: [MONTH_ROWS, `the days from ${from} to a month past today`] });
    return rows.reduce((n, r) => (isDay(r.value) && r.value >= from ? n + r.count : n), 0);
  }

  /**
   * Every row of one statistic of a website over a range, in any number of pages: sorted by
   * value (a total order: the default order by count has ties that two pages may split
   * differently), 100 a page, until a page is short or the last, deduplicated by value (a value
   * that appears while reading shifts the rest by one: a row repeats, none is skipped; the
   * larger count, the later one, is kept), never fewer than the first page says there are. A
   * paginator that disagrees with itself is the service's error, in words, and the read is
   * bounded by what its first page says.
   */
  async statsRows(id: number, domain: string, name: string, from: string, to: string, options: StatsReadOptions = {}): Promise<StatsRow[]> {
    const byValue = new Map<string, number>();
    let bound = MAX_STATS_PAGES;
    let first: number | undefined;
    let firstTotal: number | undefined;
    const what = `read the ${name} statistics of ${domain}`;
    for (let page = 1; ; page++) {
      const read = await this.statsPage(id, domain, name, from, to, page, { sort_by: 'value', sort: 'asc' }, options.kind, what);
      const size = read.perPage ?? PER_PAGE;
      const pages = read.lastPage ?? (read.total === undefined ? undefined : Math.max(1, Math.ceil(read.total / size)));
      const problem = paginatorProblem(read, page, size);
      if (problem) throw new ApiError('protocol', `${what}: ${problem}`);
      const before = byValue.size;
      for (const row of read.rows) {
        const over = byValue.has(row.value) ? undefined : options.budget?.(row.value);
        if (over) throw new ApiError('protocol', `${what}: ${over}`);
        byValue.set(row.value, Math.max(byValue.get(row.value) ?? 0, row.count));
      }
      if (options.maxRows && byValue.size > options.maxRows[0]) {
        throw new ApiError('protocol', `${what}: the service sent ${byValue.size} values${read.rows.length < byValue.size ? ' so far' : ''}, more than ${options.maxRows[1]} (${options.maxRows[0]})`);
      }
      options.onPage?.(page, pages);
      if (page === 1) firstTotal = read.total;
      if (read.rows.length < size || (pages !== undefined && page >= pages)) {
        // No value goes away while it is read (hits only add): fewer than the first page counted
        // means rows were skipped (pages in another order than asked, or shorter than they say).
        if (firstTotal !== undefined && byValue.size < firstTotal) {
          throw new ApiError('protocol', `${what}: the service said it holds ${firstTotal} values, and its pages held ${byValue.size} (are they sorted by value, as asked?)`);
        }
        return [...byValue].map(([value, count]) => ({ value, count }));
      }
      // A full page that adds nothing: the service answers the same page whatever `page` says.
      if (page > 1 && byValue.size === before) throw new ApiError('protocol', `${what}: page ${page} repeats the rows of the pages before it (does the service ignore "page"?)`);
      // Values that appear while reading may add a page or two, not more.
      if (page === 1 && pages !== undefined) bound = Math.min(bound, (first = pages) * 2 + 10);
      if (page >= bound) throw new ApiError('protocol', `${what}: still more pages after ${page} (the first said ${first ?? 'nothing of how many'}): the service's paging does not end`);
    }
  }

  private async statsPage(id: number, domain: string, name: string, from: string, to: string, page: number, order: Record<string, string> = {}, kind: RequestKind = 'statistics', what = `read the statistics of ${domain}`) {
    const params = new URLSearchParams({ name, from, to, ...order, per_page: String(PER_PAGE), page: String(page) });
    const timeoutMs = Math.min(this.options.statsTimeoutMs ?? 15_000, this.options.readTimeoutMs ?? 30_000);
    const answer = await this.call({ method: 'GET', path: `/stats/${id}?${params}`, kind, what, idempotent: true, abortable: true, timeoutMs });
    try {
      return readStatsRows(answer.body);
    } catch (error) {
      throw error instanceof ApiError ? new ApiError(error.kind, `${what}: ${error.message}`, error.status) : error;
    }
  }

  /** How many pages reading the whole list takes for an account of `total` websites. */
  pagesFor(total: number): number {
    return Math.ceil(Math.max(total, 1) / PER_PAGE);
  }

  /** The website with this id; undefined when the service has none (404). */
  async lookupWebsite(id: number): Promise<LiveWebsite | undefined> {
    try {
      return await this.getWebsite(id);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'not-found') return undefined;
      throw error;
    }
  }

  /**
   * The latest day with a pageview of a website (`YYYY-MM-DD`, the service's day), or null when
   * it has none (for `ci drift --quiet-days`), whatever order the service answers in. One request
   * for most websites: the days latest first, 100 a page; when the page did not hold every day,
   * the latest it shows is checked by asking for the days after it. A website with a pageview
   * since `since` is not silent, and the first such day found is returned: the caller needs no
   * more. Ranges have no last day, so that a service ahead of this clock still counts its latest.
   */
  async lastPageviewDay(id: number, domain: string, since: string): Promise<string | null> {
    return (await this.latestDays(id, domain, since)).lastDay;
  }

  /**
   * `lastPageviewDay`, and the website's pageviews from `monthFrom` (the month's first day) on,
   * from the same first page when it holds every day since then (the latest 100 days with a
   * pageview, latest first, hold a month's), else by one more request (`extra`).
   */
  async quietDays(id: number, domain: string, since: string, monthFrom: string): Promise<{ lastDay: string | null; month: number; extra: number }> {
    const { lastDay, first } = await this.latestDays(id, domain, since);
    if (!first) return { lastDay, month: 0, extra: 0 };
    const days = first.rows.filter((r) => isDay(r.value));
    const descending = days.every((r, i) => i === 0 || r.value < days[i - 1]!.value);
    if (holdsAll(first) || (descending && days.length > 0 && days.at(-1)!.value < monthFrom)) {
      return { lastDay, month: days.reduce((n, r) => (r.value >= monthFrom ? n + r.count : n), 0), extra: 0 };
    }
    return { lastDay, month: await this.pageviewsSince(id, domain, monthFrom), extra: 1 };
  }

  private async latestDays(id: number, domain: string, since: string): Promise<{ lastDay: string | null; first?: StatsPage }> {
    const until = HISTORY_TO;
    // A round past a full page of days moves past them all: even a service that ignores the order
    // asked is done within the days of the range, a page at a time (some 210 rounds from 1970 to a
    // month ahead of this clock).
    const rounds = Math.ceil((this.clock.now() + DAYS_AHEAD * 86_400_000 - Date.parse(HISTORY_FROM)) / 86_400_000 / PER_PAGE) + 2;
    let found: string | null = null;
    let first: StatsPage | undefined;
    for (let from = HISTORY_FROM, round = 1; from <= until; round++) {
      const page = await this.statsPage(id, domain, 'pageviews', from, until, 1, { sort_by: 'value', sort: 'desc' });
      first ??= page;
      // Read liberally: a row may count nothing, a value may not be a day, or lie outside the range asked.
      const best = page.rows.filter((r) => r.count > 0 && isDay(r.value) && r.value >= from && r.value <= until).map((r) => r.value).sort().at(-1);
      if (!best) return { lastDay: found, first };
      found = best;
      if (holdsAll(page) || best >= since) return { lastDay: found, first };
      if (round >= rounds) throw new ApiError('protocol', `read the statistics of ${domain}: the service's answers never settle on a latest day (${round} pages of days)`);
      from = dayBefore(new Date(`${best}T00:00:00Z`), -1);
    }
    return { lastDay: found, first };
  }

  /**
   * Stores a website with the `fields` of `values` (a password from `password`, never from a
   * view). The service ignores favorite on create: it is stored first, then set by an update.
   */
  async storeWebsite(
    domain: string,
    values: WebsiteView,
    fields: readonly FieldName[],
    password?: string,
  ): Promise<{ website: LiveWebsite; recovered: boolean }> {
    const stored = await this.createWebsite(domain, toForm(values, fields.filter((f) => FIELD[f].onCreate), password));
    const afterwards = fields.filter((f) => !FIELD[f].onCreate);
    if (afterwards.length) {
      try {
        await this.updateWebsite(stored.website.id, domain, toForm(values, afterwards));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new ApiError('server', `created (id ${stored.website.id}), but marking it favorite failed: ${message}`);
      }
    }
    return stored;
  }

  /** Sends the `fields` of `values` to a stored website (a password from `password`). */
  async changeWebsite(id: number, domain: string, values: WebsiteView, fields: readonly FieldName[], password?: string): Promise<void> {
    await this.updateWebsite(id, domain, toForm(values, fields, password));
  }

  async getWebsite(id: number): Promise<LiveWebsite> {
    const answer = await this.call({ method: 'GET', path: `/websites/${id}`, kind: 'show', what: `read website ${id}`, idempotent: true, abortable: true });
    return this.website(unwrap(answer.body));
  }

  /**
   * Stores a website. A store is never blindly sent twice: when its answer is lost (5xx,
   * network, timeout), the domain is looked up first, and stored again only if truly absent.
   */
  async createWebsite(domain: string, form: Form): Promise<{ website: LiveWebsite; recovered: boolean }> {
    const started = this.clock.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.call({
          method: 'POST',
          path: '/websites',
          form: { domain, ...form },
          kind: 'write',
          what: `create ${domain}`,
          idempotent: false,
        });
        try {
          return { website: this.website(unwrap(answer.body)), recovered: false };
        } catch {
          // Stored, but the answer is unreadable: find what was stored.
          const stored = await this.findWebsite(domain);
          if (stored) return { website: stored, recovered: true };
          throw new ApiError('protocol', `create ${domain}: the service answered ${answer.status} but the website cannot be found`);
        }
      } catch (error) {
        if (!(error instanceof ApiError) || !error.transient) throw error;
        const stored = await this.findWebsite(domain);
        if (stored) {
          this.log(`  ${domain}: the store's answer was lost, but the website exists (id ${stored.id}): not stored again`);
          return { website: stored, recovered: true };
        }
        if (attempt >= this.retry.attempts || this.clock.now() - started > this.retry.budgetMs) throw error;
        this.stats.retries++;
        await this.backoff(attempt);
      }
    }
  }

  async updateWebsite(id: number, domain: string, form: Form): Promise<LiveWebsite | undefined> {
    let checked = false;
    const answer = await this.call({
      method: 'PATCH',
      path: `/websites/${id}`,
      form,
      kind: 'write',
      what: `update ${domain}`,
      idempotent: true,
      // Some versions answer 500, not 404, for an id that no longer exists: look before retrying.
      beforeRetry: async (error) => {
        if (checked || error.kind !== 'server') return;
        checked = true;
        try {
          await this.getWebsite(id);
        } catch (e) {
          if (e instanceof ApiError && e.kind === 'not-found') {
            throw new ApiError('not-found', `update ${domain}: the website no longer exists at the service (id ${id})`, 404);
          }
          throw e;
        }
      },
    });
    try {
      return this.website(unwrap(answer.body));
    } catch {
      return undefined;
    }
  }

  /** Deletes a website; `false` when it was already gone. */
  async deleteWebsite(id: number, domain: string): Promise<boolean> {
    let sentBefore = false;
    try {
      await this.call({
        method: 'DELETE',
        path: `/websites/${id}`,
        kind: 'write',
        what: `delete ${domain}`,
        idempotent: true,
        beforeRetry: async () => {
          sentBefore = true;
        },
      });
      return true;
    } catch (error) {
      // A retry that finds it gone: the lost first attempt deleted it.
      if (error instanceof ApiError && error.kind === 'not-found') {
        if (sentBefore) return true;
        return false;
      }
      throw error;
    }
  }

  private async fetchPage(n: number, query: Record<string, string>): Promise<Page> {
    const params = new URLSearchParams({ ...query, per_page: String(PER_PAGE), sort_by: 'id', sort: 'asc', page: String(n) });
    const answer = await this.call({
      method: 'GET',
      path: `/websites?${params}`,
      kind: query.search === undefined ? 'listing' : 'search',
      what: query.search === undefined ? `list websites (page ${n})` : `search websites for "${query.search}" (page ${n})`,
      idempotent: true,
      abortable: true,
      fixedRoute: true,
    });
    return readPage(answer.body, n);
  }

  /** One request with retries: 429 waits as the service says; 5xx and network errors back off. */
  private async call(spec: RequestSpec): Promise<Answer> {
    const started = this.clock.now();
    let failures = 0;
    let throttled = 0;
    for (;;) {
      let error: ApiError;
      try {
        const answer = await this.send(spec, failures + throttled);
        if (answer.status >= 200 && answer.status < 300) return answer;
        if (answer.status === 429) {
          this.stats.throttled++;
          if (++throttled > this.retry.max429) throw errorForStatus(429, this.secrets.cleanDeep(answer.body), spec.what, this.options.keyFrom);
          continue; // the pacer holds every request until the window ends
        }
        // The service's words may echo the form, password included: cleaned before they are a message.
        error = this.errorFor(spec, { ...answer, body: this.secrets.cleanDeep(answer.body) });
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        error = e;
      }
      failures++;
      const retryable = error.transient && spec.idempotent && !(spec.timeoutMs !== undefined && error.kind === 'timeout');
      if (!retryable || failures >= this.retry.attempts || this.clock.now() - started > this.retry.budgetMs) throw error;
      await spec.beforeRetry?.(error);
      this.stats.retries++;
      await this.backoff(failures);
    }
  }

  /**
   * The error for an answer that is not a success. A 404 of a route that always exists, or a
   * 404 without the service's own "not found" message (the web server's bare `{"message": ""}`),
   * means the request never reached the API: the base URL is wrong. A 405 means the same, or a
   * version without the route. Both say what was requested (the key is never in the URL).
   */
  private errorFor(spec: RequestSpec, answer: Answer): ApiError {
    const requested = `${spec.method} ${new URL(this.options.baseUrl).origin}${this.apiRoot}${spec.path.split('?')[0]}`;
    if (answer.status === 404 && (spec.fixedRoute || serviceMessage(answer.body) === undefined)) {
      return new ApiError('protocol', `${spec.what}: ${requested} answered 404 (no such route): ${baseUrlAdvice(this.options.baseUrl)}`, 404);
    }
    if (answer.status === 405) {
      return new ApiError(
        'protocol',
        `${spec.what}: ${requested} answered 405 (the service has no such route for ${spec.method}): ${baseUrlAdvice(this.options.baseUrl)}`,
        405,
      );
    }
    return errorForStatus(answer.status, answer.body, spec.what, this.options.keyFrom);
  }

  /** Exponential backoff with full jitter. */
  private backoff(failures: number): Promise<void> {
    const cap = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (failures - 1));
    return this.clock.sleep(cap / 2 + Math.random() * (cap / 2));
  }

  private async send(spec: RequestSpec, attempt: number): Promise<Answer> {
    const signal = spec.abortable ? this.options.signal : undefined;
    let limit: ReturnType<typeof deadline> | undefined;
    try {
      signal?.throwIfAborted();
      const ticket = await this.pacer.acquire(signal);
      // From the moment it is sent (not while it waits for the pacer).
      limit = deadline(this.deadlineOf(spec), signal);
      const headers: Record<string, string> = { ...this.headers };
      let body: string | undefined;
      if (spec.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(spec.form).toString();
      }
      const path = `${this.apiRoot}${spec.path}`;
      let status: number | undefined;
      let responseHeaders: Answer['headers'] = {};
      try {
        const timeouts = spec.timeoutMs === undefined ? {} : { headersTimeout: spec.timeoutMs, bodyTimeout: spec.timeoutMs };
        const res = await this.pool.request({ method: spec.method, path, headers, body, signal: limit.signal, ...timeouts });
        status = res.statusCode;
        responseHeaders = res.headers;
        const text = await this.readBody(res, spec.what);
        this.stats.requests++;
        this.stats.byKind[spec.kind] = (this.stats.byKind[spec.kind] ?? 0) + 1;
        this.stats.byStatus[status] = (this.stats.byStatus[status] ?? 0) + 1;
        this.log(`${spec.method} ${path} ${status} ${this.clock.now() - ticket.sentAt}ms${attempt ? ` (retry ${attempt})` : ''}`);
        if (status >= 300 && status < 400) throw redirectError(responseHeaders.location, this.secrets);
        return { status, headers: responseHeaders, body: parseBody(text, status, spec.what) };
      } catch (error) {
        if (status === undefined && !this.closed) {
          this.stats.requests++;
          this.stats.byKind[spec.kind] = (this.stats.byKind[spec.kind] ?? 0) + 1;
          this.log(`${spec.method} ${path} failed: ${this.secrets.clean(describeTransportError(error))} after ${this.clock.now() - ticket.sentAt}ms`);
        }
        throw error;
      } finally {
        this.pacer.release(ticket, status, responseHeaders);
      }
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (signal?.aborted) throw new InterruptedError('interrupted');
      if (error instanceof ThrottleTooLong) {
        throw new ApiError(
          'rate-limit',
          `${spec.what}: the service asks to wait ${formatWait(error.waitMs)} before its next request (its 429's Retry-After or X-RateLimit-Reset), longer than sitesync waits (${formatWait(error.maxMs)}): nothing more was sent; try again later`,
        );
      }
      if (limit?.expired()) {
        const seconds = Math.round(this.deadlineOf(spec) / 100) / 10;
        throw new ApiError('timeout', `${spec.what}: ${new URL(this.options.baseUrl).host} did not send its whole answer within ${seconds} s`);
      }
      throw transportError(error, this.options.baseUrl, spec.what, this.secrets);
    }
  }

  /** The answer's text, refused past the cap before it is all in memory. */
  private async readBody(res: AnswerBody, what: string): Promise<string> {
    try {
      return await readCapped(res, this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES);
    } catch (error) {
      if (!(error instanceof AnswerTooLarge)) throw error;
      throw new ApiError('protocol', `${what}: the service answered ${error.message}, which no answer of the service is; nothing more was read (is the base URL the service's address?)`);
    }
  }

  /** The whole time an answer to `spec` may take. */
  private deadlineOf(spec: RequestSpec): number {
    // A page of statistics, for a delete's traffic or an archive: 100 short rows.
    if (spec.kind === 'statistics' || spec.kind === 'archive') return this.options.statsDeadlineMs ?? STATS_DEADLINE_MS;
    return this.options.deadlineMs ?? ANSWER_DEADLINE_MS;
  }

  private log(line: string): void {
    this.options.log?.(line);
  }
}

/** "3 minutes", "1 day": how long the throttle asks to wait, as people say it. */
function formatWait(ms: number): string {
  const [n, unit] = ms >= 2 * 86_400_000 ? [ms / 86_400_000, 'day'] : ms >= 2 * 3_600_000 ? [ms / 3_600_000, 'hour'] : ms >= 120_000 ? [ms / 60_000, 'minute'] : [ms / 1000, 'second'];
  const whole = Math.round(n);
  return `${whole} ${unit}${whole === 1 ? '' : 's'}`;
}

/** What to do about a base URL that reaches no API route. */
function baseUrlAdvice(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const base = 'the base URL looks wrong: it should be the service\'s own address, the part before /api/v1';
  if (/\/api$/.test(path)) return `${base} (sitesync adds /api/v1 itself): try ${url.origin}${path.slice(0, -4)}`;
  if (path !== '') return `${base}; is the service really served under ${path}? (try ${url.origin})`;
  return base;
}

/** The UTC day `days` days before `date` (after it, for a negative number), as the stats API writes days. */
export function dayBefore(date: Date, days: number): string {
  return new Date(date.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/** A day written `YYYY-MM-DD`, as the stats API writes the value of a daily statistic. */
export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** Why a page of a statistic cannot be what was asked: its paginator disagrees with itself, or with the page asked. */
function paginatorProblem(read: StatsPage, page: number, size: number): string | undefined {
  if (read.currentPage !== undefined && read.currentPage !== page) return `asked for page ${page}, the service answered page ${read.currentPage}`;
  if (read.lastPage !== undefined && read.total !== undefined && read.lastPage !== lastPageOf(read.total, size)) {
    return `the service's paginator disagrees with itself: last_page ${read.lastPage}, but ${read.total} rows at ${size} a page`;
  }
  if (read.rows.length > size) return `the service sent ${read.rows.length} rows on a page of ${size}`;
  return undefined;
}

function parseBody(text: string, status: number, what: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    if (status >= 200 && status < 300) {
      throw new ApiError(
        'protocol',
        `${what}: the service answered with something that is not JSON: is the base URL the service's address (without /api/v1)?`,
        status,
      );
    }
    return undefined;
  }
}

function redirectError(location: string | string[] | undefined, secrets: SecretValues): ApiError {
  const to = Array.isArray(location) ? location[0] : location;
  let where = '';
  if (to) {
    try {
      // Cleaned as the service wrote it, then as a path (percent-encoded its own way), then decoded:
      // a password echoed in the Location, however it is spelt there, is shown as (redacted).
      const path = secrets.clean(new URL(secrets.clean(to), 'http://x').pathname);
      where = ` to ${secrets.clean(decodedPath(path))}`;
    } catch {
      where = '';
    }
  }
  return new ApiError(
    'auth',
    `the service redirected${where} instead of answering (a login page): the base URL or the API key is wrong`,
  );
}

/** A URL's path decoded for reading (`%20` as a space), or as it is where it cannot be. */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function describeTransportError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  // (A DOMException, as a deadline's abort is, has a number for a code.)
  const e = error as { code?: unknown; message?: string };
  return typeof e.code === 'string' ? e.code : (e.message ?? String(error));
}

function transportError(error: unknown, baseUrl: string, what: string, secrets: SecretValues): ApiError {
  const origin = new URL(baseUrl).host;
  const { failure, code } = classifyTransportError(error);
  switch (failure) {
    case 'connect-timeout':
      return new ApiError('timeout', `${what}: could not connect to ${origin} in time`);
    case 'read-timeout':
      return new ApiError('timeout', `${what}: ${origin} did not answer in time`);
    case 'refused':
      return new ApiError('network', `${what}: cannot connect to ${origin} (connection refused): is the base URL right and the service up?`);
    case 'dns':
      // Not retried: a wrong host name stays wrong, and a run should not spin on it.
      return new ApiError(
        'dns',
        `${what}: cannot find the host ${new URL(baseUrl).hostname} (DNS ${code}): check the base URL (--base-url, SITESYNC_BASE_URL or api.base_url in the file)`,
      );
    case 'lost':
      return new ApiError('network', `${what}: the connection to ${origin} was lost`);
    case 'certificate': {
      // Not retried ('protocol' is not transient): the same certificate comes back.
      const { problem, check } = certificateProblem(error, code!);
      return new ApiError('protocol', `${what}: the TLS certificate of ${origin} ${secrets.clean(problem)}: ${check} (${code})`);
    }
    case 'not-tls':
      return new ApiError('protocol', `${what}: ${origin} does not answer in TLS (${code}): is it an http:// address, or the wrong port?`);
    default:
      return new ApiError('network', `${what}: cannot reach ${origin} (${secrets.clean(code ?? 'network error')})`);
  }
}

/** A first page of statistics that is the whole answer: shorter than its page, or the last one. */
function holdsAll(page: StatsPage): boolean {
  return page.rows.length < (page.perPage ?? PER_PAGE) || (page.lastPage ?? 1) <= 1;
}
