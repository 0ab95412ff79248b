/**
 * The walker of pages the client does not trust (listings, searches, statistics). The page count
 * decides how many requests are sent, so it is checked before it is followed (`last_page` is
 * Laravel's `max(1, ceil(total / per_page))`): anything else is the service's error, not a run that never ends.
 */
import { MAX_ADDED_WHILE_LISTING, MAX_LISTED_ITEMS } from '../caps.js';
import { ApiError } from './errors.js';
import type { Page } from './wire.js';

export interface PageWords {
  wrap(problem: string): string;
  /** "websites", "values": a plural in s (one of them is the noun less its s). */
  noun: string;
  /** Past MAX_LISTED_ITEMS: "more websites than any account holds". */
  most: string;
  /** `last_page` is not Laravel's for `total` at `size` a page (`inferred`: the page says no per_page). */
  disagrees(n: number, page: Page<unknown>, size: number, inferred: boolean, expected: number): string;
  /** More pages than were added while walking, or more past the last allowed page. */
  endless(n: number, page: Page<unknown>, first: Page<unknown>, firstPages: number | undefined): string;
  circles(n: number): string;
  /** When set, items never go away (hits only add): fewer than the first page counted were skipped. */
  fewer?(total: number, held: number): string;
}

export interface Walk<R, T> extends PageWords {
  fetch(n: number): Promise<Page<R>>;
  /** An item as kept (called once its page can be a page). */
  read(raw: R): T;
  key(item: T): string | number;
  /** Of two readings of one item, the one kept (default: the later). */
  merge?(before: T, after: T): T;
  /** Pages read at once once the first says how many there are (default 1: in order). */
  readers?: number;
  /** Items read by every walk that shares it (the searches of one plan): MAX_LISTED_ITEMS counts them all. */
  shared?: { count: number };
  /** After each page; may throw to stop. */
  onPage?(read: number, of: number | undefined, page: { items: T[]; added: T[]; all: number }): void;
}

/** The page size of every list read (the most the product allows). */
export const PER_PAGE = 100;

export function lastPageOf(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/** Every item of every page, each once (by key), in the order first read. */
export async function walkPages<R, T>(walk: Walk<R, T>): Promise<T[]> {
  const found = new Map<string | number, T>();
  const fail = (problem: string): never => {
    throw new ApiError('protocol', walk.wrap(problem));
  };
  let first: Page<R> | undefined;
  let firstPages: number | undefined;
  let lastPage: number | undefined;
  /** A million items, or as many pages again as the first said and what is added meanwhile. */
  let bound = Math.ceil(MAX_LISTED_ITEMS / PER_PAGE);
  let pagesRead = 0;

  /** Checks page `n`, takes its items; whether there is a page after it. */
  const take = (page: Page<R>, n: number): boolean => {
    const said = `page ${n} says`;
    if (page.currentPage !== undefined && page.currentPage !== n) fail(`asked for page ${n}, the service answered page ${page.currentPage}`);
    if (page.perPage !== undefined && page.perPage > 0 && page.items.length > page.perPage) fail(`${said} per_page ${page.perPage}, but holds ${page.items.length} ${walk.noun}`);
    // A page before the last is full: its items are the page size where the answer does not say it.
    const full = page.lastPage !== undefined && n < page.lastPage && page.items.length > 0;
    const perPage = page.perPage !== undefined && page.perPage > 0 ? page.perPage : full ? page.items.length : undefined;
    if (page.lastPage !== undefined && page.total !== undefined && perPage !== undefined && page.lastPage !== lastPageOf(page.total, perPage)) {
      fail(walk.disagrees(n, page, perPage, page.perPage !== perPage, lastPageOf(page.total, perPage)));
    }
    const most = `${walk.most} (sitesync reads at most ${MAX_LISTED_ITEMS})`;
    if (page.total !== undefined && page.total > MAX_LISTED_ITEMS) fail(`${said} ${page.total} ${walk.noun} in all: ${most}`);
    if (page.lastPage !== undefined && page.lastPage > Math.ceil(MAX_LISTED_ITEMS / (perPage ?? 1))) fail(`${said} last_page ${page.lastPage}${perPage ? ` at ${perPage} a page` : ''}: ${most}`);
    const pages = page.lastPage ?? (page.total === undefined ? undefined : lastPageOf(page.total, perPage ?? PER_PAGE));
    if (n > 1 && page.items.length === 0 && page.lastPage !== undefined && n <= page.lastPage) fail(`${said} last_page ${page.lastPage}, but holds no ${walk.noun.slice(0, -1)}`);
    if (n === 1) {
      first = page;
      if ((firstPages = pages) !== undefined) bound = Math.min(bound, firstPages * 2 + Math.ceil(MAX_ADDED_WHILE_LISTING / PER_PAGE));
    }
    if (pages !== undefined && pages > bound) fail(walk.endless(n, page, first!, firstPages));
    if (pages !== undefined && (lastPage === undefined || pages > lastPage)) lastPage = pages;

    const items = page.items.map((raw) => walk.read(raw));
    const added: T[] = [];
    for (const item of items) {
      const key = walk.key(item);
      const before = found.get(key);
      if (before === undefined) added.push(item);
      found.set(key, before === undefined || !walk.merge ? item : walk.merge(before, item));
    }
    if (walk.shared) walk.shared.count += added.length;
    if ((walk.shared?.count ?? found.size) > MAX_LISTED_ITEMS) fail(`the listing went past ${MAX_LISTED_ITEMS} ${walk.noun}, more than any account holds`);
    pagesRead++;
    walk.onPage?.(pagesRead, lastPage, { items, added, all: found.size });
    const more = page.items.length > 0 && (lastPage !== undefined ? n < lastPage : page.hasNext);
    if (more && added.length === 0) fail(walk.circles(n));
    if (more && n >= bound) fail(walk.endless(n, page, first!, firstPages));
    return more;
  };

  let more = take(await walk.fetch(1), 1);
  let next = 2;
  let stopped = false;
  const reader = async () => {
    try {
      while (!stopped && (lastPage !== undefined ? next <= lastPage : more && next === pagesRead + 1)) {
        const n = next++;
        more = take(await walk.fetch(n), n);
      }
    } catch (error) {
      stopped = true; // the other readers take no further page
      throw error;
    }
  };
  await Promise.all(Array.from({ length: lastPage !== undefined ? (walk.readers ?? 1) : 1 }, reader));
  if (walk.fewer && first?.total !== undefined && found.size < first.total) fail(walk.fewer(first.total, found.size));
  return [...found.values()];
}
