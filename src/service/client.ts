/** The one door to the service: HTTP with the account, websites and statistics as methods. */
import type { Account } from '../model/types.js';
import { ServiceHttp } from './http.js';
import { quietDays, pageviewsSince, readTraffic, statsRows } from './stats.js';
import { changeWebsite, countWebsites, createWebsite, deleteWebsite, findWebsite, getWebsite, listWebsites, lookupWebsite, pagesFor, storeWebsite, updateWebsite } from './websites.js';
import { toAccount } from './wire.js';

export type { ClientOptions } from './http.js';

type Rest<F> = F extends (http: ServiceHttp, ...rest: infer R) => unknown ? R : never;

export class ServiceClient extends ServiceHttp {
  async getAccount(): Promise<Account> {
    const answer = await this.call({ method: 'GET', path: '/account', kind: 'account', what: 'read the account', idempotent: true, abortable: true, fixedRoute: true });
    return toAccount(answer.body, this.cleaned);
  }

  listWebsites = (...a: Rest<typeof listWebsites>) => listWebsites(this, ...a);
  findWebsite = (...a: Rest<typeof findWebsite>) => findWebsite(this, ...a);
  countWebsites = () => countWebsites(this);
  pagesFor = pagesFor;
  getWebsite = (...a: Rest<typeof getWebsite>) => getWebsite(this, ...a);
  lookupWebsite = (...a: Rest<typeof lookupWebsite>) => lookupWebsite(this, ...a);
  storeWebsite = (...a: Rest<typeof storeWebsite>) => storeWebsite(this, ...a);
  changeWebsite = (...a: Rest<typeof changeWebsite>) => changeWebsite(this, ...a);
  createWebsite = (...a: Rest<typeof createWebsite>) => createWebsite(this, ...a);
  updateWebsite = (...a: Rest<typeof updateWebsite>) => updateWebsite(this, ...a);
  deleteWebsite = (...a: Rest<typeof deleteWebsite>) => deleteWebsite(this, ...a);

  statsRows = (...a: Rest<typeof statsRows>) => statsRows(this, ...a);
  readTraffic = (...a: Rest<typeof readTraffic>) => readTraffic(this, ...a);
  pageviewsSince = (...a: Rest<typeof pageviewsSince>) => pageviewsSince(this, ...a);
  quietDays = (...a: Rest<typeof quietDays>) => quietDays(this, ...a);
}
