/**
 * What a listing may believe of the service's pagination. The page count decides how many
 * requests sitesync sends, so it is checked before it is followed: a paginator is Laravel's,
 * whose `last_page` is `max(1, ceil(total / per_page))`; an account grows while it is listed only
 * by the websites someone adds meanwhile; and no account holds millions of websites. Anything
 * else is the service's error, said with what it said and what was expected, rather than a run
 * that sends fifty million requests or never ends.
 */
import { ApiError } from './errors.js';
import type { Page } from './wire.js';
import { MAX_ADDED_WHILE_LISTING, MAX_LISTED_WEBSITES } from '../caps.js';

/** The last page of a Laravel paginator of `total` rows at `perPage` a page (one, empty, when there are none). */
export function lastPageOf(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/**
 * The websites the listings of one account read in all: a listing, or every search of a plan
 * with --target (each of which a service could answer with a million websites of its own).
 */
export class WebsitesRead {
  count = 0;
}

export class Paging {
  /** The last page as the service says it now: pages up to it are read. */
  lastPage: number | undefined;
  private readonly firstTotal: number | undefined;
  private readonly firstLastPage: number | undefined;
  private readonly seen = new Set<number>();

  /** `what`: the listing, for messages ("list websites"); `read`: shared by the account's listings. */
  constructor(
    private readonly what: string,
    first: Page,
    private readonly read = new WebsitesRead(),
  ) {
    this.check(first, 1);
    this.firstTotal = first.total;
    this.firstLastPage = this.lastPage = first.lastPage;
  }

  /** Checks page `n` of the listing and takes its page count; throws the service's error in words. */
  check(page: Page, n: number): void {
    const said = `page ${n} says`;
    // Checked first: the websites of a page are read only once it can be a page.
    if (page.perPage !== undefined && page.perPage > 0 && page.items.length > page.perPage) {
      this.fail(`${said} per_page ${page.perPage}, but holds ${page.items.length} websites`);
    }
    // A page before the last is full: its websites are the page size where the answer does not say it.
    const full = page.lastPage !== undefined && n < page.lastPage && page.items.length > 0;
    const perPage = page.perPage !== undefined && page.perPage > 0 ? page.perPage : full ? page.items.length : undefined;
    if (page.lastPage !== undefined && page.total !== undefined && perPage !== undefined) {
      const expected = lastPageOf(page.total, perPage);
      if (page.lastPage !== expected) {
        const size = page.perPage === perPage ? `${perPage} a page` : `${perPage} a page (the websites it holds; it says no per_page)`;
        this.fail(`${said} last_page ${page.lastPage}, but total ${page.total} at ${size} makes ${expected}`);
      }
    }
    if (page.total !== undefined && page.total > MAX_LISTED_WEBSITES) {
      this.fail(`${said} the account holds ${page.total} websites, more than any account (sitesync reads at most ${MAX_LISTED_WEBSITES})`);
    }
    if (page.lastPage !== undefined && page.lastPage > Math.ceil(MAX_LISTED_WEBSITES / (perPage ?? 1))) {
      this.fail(`${said} last_page ${page.lastPage}${perPage ? ` at ${perPage} a page` : ''}: more websites than any account holds (sitesync reads at most ${MAX_LISTED_WEBSITES})`);
    }
    if (n > 1) this.checkGrowth(page, said);
    if (n > 1 && page.items.length === 0 && page.lastPage !== undefined && n <= page.lastPage) {
      this.fail(`${said} last_page ${page.lastPage}, but holds no website`);
    }
    if (page.lastPage !== undefined && (this.lastPage === undefined || page.lastPage > this.lastPage)) this.lastPage = page.lastPage;
  }

  /** Counts the websites read (by id); throws once the listing reads more than any account holds. */
  count(ids: Iterable<number>): { added: number } {
    let added = 0;
    for (const id of ids) {
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      added++;
    }
    this.read.count += added;
    if (this.read.count > MAX_LISTED_WEBSITES) this.fail(`the listing went past ${MAX_LISTED_WEBSITES} websites, more than any account holds`);
    return { added };
  }

  /**
   * A listing without a page count walks while the service says there is a next page: a page that
   * brings no website not read before, yet says there is another, goes in a circle.
   */
  checkProgress(added: number, n: number): void {
    if (added === 0) this.fail(`page ${n} holds only websites of earlier pages, yet says there is a next page`);
  }

  /** Websites added while listing push the last page further; more than that is no account growing. */
  private checkGrowth(page: Page, said: string): void {
    if (this.firstTotal !== undefined && page.total !== undefined) {
      const allowed = Math.max(this.firstTotal, MAX_ADDED_WHILE_LISTING);
      if (page.total - this.firstTotal > allowed) {
        this.fail(`${said} the account holds ${page.total} websites where page 1 said ${this.firstTotal}: more than could be added while sitesync lists them`);
      }
      return;
    }
    if (this.firstLastPage !== undefined && page.lastPage !== undefined) {
      const perPage = page.perPage ?? (page.items.length || 1);
      const allowed = Math.max(this.firstLastPage, Math.ceil(MAX_ADDED_WHILE_LISTING / perPage));
      if (page.lastPage - this.firstLastPage > allowed) {
        this.fail(`${said} last_page ${page.lastPage} where page 1 said ${this.firstLastPage}: more than websites added while sitesync lists them explain`);
      }
    }
  }

  private fail(problem: string): never {
    throw new ApiError('protocol', `${this.what}: the service's pagination cannot be right (${problem}); stopped listing`);
  }
}
