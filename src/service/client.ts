/** The one door to the service: every record read is cleaned of the run's secrets; no write is sent twice where the first may have been done. */
import { domainKey } from '../model/domain.js';
import { FIELD } from '../model/fields.js';
import type { Account, FieldName, LiveWebsite, WebsiteView } from '../model/types.js';
import { ApiError } from './errors.js';
import { StatsHttp } from './stats.js';
import { lastPageOf, PER_PAGE, walkPages } from './pages.js';
import { readPage, toAccount, toForm, toLiveWebsite, unwrap, type Form, type Page } from './wire.js';

export class ServiceClient extends StatsHttp {
  async getAccount(): Promise<Account> {
    const answer = await this.call({ method: 'GET', path: '/account', kind: 'account', what: 'read the account' });
    return toAccount(answer.body, this.cleaned);
  }

  /** Every website of the account, id ascending; pages built from the base URL, never from the links the service sends (another host). */
  async listWebsites(
    query: Record<string, string> = {},
    onProgress?: (pages: number, of: number | undefined) => void,
    read?: { count: number },
  ): Promise<LiveWebsite[]> {
    const doing = query.search === undefined ? 'list websites' : `search websites for "${query.search}"`;
    const sites = await walkPages({
      fetch: async (n): Promise<Page> => {
        const params = new URLSearchParams({ ...query, per_page: String(PER_PAGE), sort_by: 'id', sort: 'asc', page: String(n) });
        const answer = await this.call({ method: 'GET', path: `/websites?${params}`, kind: query.search === undefined ? 'listing' : 'search', what: `${doing} (page ${n})` });
        return readPage(answer.body, n);
      },
      read: (raw) => toLiveWebsite(raw, this.cleaned),
      key: (site) => site.id,
      wrap: (problem) => `${doing}: the service's pagination cannot be right (${problem}); stopped listing`,
      noun: 'websites',
      most: 'more websites than any account holds',
      disagrees: (n, page, size, inferred, expected) =>
        `page ${n} says last_page ${page.lastPage}, but total ${page.total} at ${size} a page${inferred ? ' (the websites it holds; it says no per_page)' : ''} makes ${expected}`,
      endless: (n, page, first) =>
        first.total !== undefined && page.total !== undefined
          ? `page ${n} says the account holds ${page.total} websites where page 1 said ${first.total}: more than could be added while sitesync lists them`
          : `page ${n} says last_page ${page.lastPage ?? 'nothing'} where page 1 said ${first.lastPage ?? 'nothing'}: more than websites added while sitesync lists them explain`,
      circles: (n) => `page ${n} holds only websites of earlier pages, yet says there is a next page`,
      readers: this.options.listConcurrency,
      shared: read,
      onPage: onProgress,
    });
    return sites.sort((a, b) => a.id - b.id);
  }

  async findWebsite(domain: string): Promise<LiveWebsite | undefined> {
    const key = domainKey(domain);
    const matches = await this.listWebsites({ search: key, search_by: 'domain' });
    return matches.find((w) => w.domain === key);
  }

  async countWebsites(): Promise<number> {
    const answer = await this.call({ method: 'GET', path: '/websites?per_page=10&page=1', kind: 'count', what: 'count websites' });
    return readPage(answer.body, 1).total ?? (await this.listWebsites()).length;
  }

  pagesFor = (total: number): number => lastPageOf(total, PER_PAGE);

  async lookupWebsite(id: number): Promise<LiveWebsite | undefined> {
    const answer = await this.call({ method: 'GET', path: `/websites/${id}`, kind: 'show', what: `read website ${id}` }).catch((e) => ifGone(e, undefined));
    return answer && toLiveWebsite(unwrap(answer.body), this.cleaned);
  }

  /** Stores a website; the service ignores favorite on create: it is set by an update afterwards. */
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
        throw new ApiError('server', `created (id ${stored.website.id}), but marking it favorite failed: ${(error as Error).message}`);
      }
    }
    return stored;
  }

  async changeWebsite(id: number, domain: string, values: WebsiteView, fields: readonly FieldName[], password?: string): Promise<void> {
    await this.updateWebsite(id, domain, toForm(values, fields, password));
  }

  /** When a store's answer is lost, the domain is looked up first, and stored again only if absent. */
  async createWebsite(domain: string, form: Form): Promise<{ website: LiveWebsite; recovered: boolean }> {
    let stored: LiveWebsite | undefined;
    const ifDone = async () => {
      stored = await this.findWebsite(domain);
      if (!stored) return undefined;
      this.options.log?.(`  ${domain}: the store's answer was lost, but the website exists (id ${stored.id}): not stored again`);
      return { status: 200, headers: {}, body: undefined };
    };
    const answer = await this.call({ method: 'POST', path: '/websites', form: { domain, ...form }, kind: 'write', what: `create ${domain}`, ifDone });
    if (stored) return { website: stored, recovered: true };
    try {
      return { website: toLiveWebsite(unwrap(answer.body), this.cleaned), recovered: false };
    } catch {
      const found = await this.findWebsite(domain);
      if (found) return { website: found, recovered: true };
      throw new ApiError('protocol', `create ${domain}: the service answered ${answer.status} but the website cannot be found`);
    }
  }

  async updateWebsite(id: number, domain: string, form: Form): Promise<LiveWebsite | undefined> {
    let checked = false;
    // Some versions answer 500, not 404, for an id that no longer exists: look before retrying.
    const beforeRetry = async (error: ApiError) => {
      if (checked || error.kind !== 'server') return;
      checked = true;
      if (!(await this.lookupWebsite(id))) throw new ApiError('not-found', `update ${domain}: the website no longer exists at the service (id ${id})`, 404);
    };
    const answer = await this.call({ method: 'PATCH', path: `/websites/${id}`, form, kind: 'write', what: `update ${domain}`, beforeRetry });
    try {
      return toLiveWebsite(unwrap(answer.body), this.cleaned);
    } catch {
      return undefined;
    }
  }

  /** Deletes a website; `false` when it was already gone. */
  async deleteWebsite(id: number, domain: string): Promise<boolean> {
    let sentBefore = false;
    const beforeRetry = async () => {
      sentBefore = true;
    };
    // A retry that finds it gone: the lost first attempt deleted it; a first attempt that finds it gone: it was already.
    return this.call({ method: 'DELETE', path: `/websites/${id}`, kind: 'write', what: `delete ${domain}`, beforeRetry }).then(() => true, (e) => ifGone(e, sentBefore));
  }
}

function ifGone<T>(error: unknown, value: T): T {
  if (error instanceof ApiError && error.kind === 'not-found') return value;
  throw error;
}
