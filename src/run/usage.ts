/**
 * `account --usage`: an account's pageviews since the month's first day, every website of it
 * (managed or not: the product counts them all against the plan), one stats request a website,
 * a few at once, paced with every other request of the installation.
 */
import pLimit from 'p-limit';
import { monthStart, monthUsage, type AccountUsage } from '../model/quota.js';
import type { Account, LiveWebsite } from '../model/types.js';
import type { ServiceClient } from '../service/client.js';

/** Websites of one account read at once (the installation's pacer spaces them further). */
const READS_AT_ONCE = 4;

/** The month's pageviews of `websites`, summed: the first failed read fails the whole (a part is no figure). */
export async function monthPageviews(client: Pick<ServiceClient, 'pageviewsSince'>, websites: readonly Pick<LiveWebsite, 'id' | 'domain'>[], from: string): Promise<number> {
  const limit = pLimit(READS_AT_ONCE);
  let failed = false;
  const counts = await Promise.all(
    websites.map((w) =>
      limit(async () => {
        if (failed) return 0;
        try {
          return await client.pageviewsSince(w.id, w.domain, from);
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
    ),
  );
  return counts.reduce((n, c) => n + c, 0);
}

/** The account's month so far against its plan: lists every website, then reads each one's month. */
export async function readUsage(client: ServiceClient, account: Account, today: Date): Promise<AccountUsage> {
  const websites = await client.listWebsites();
  const used = await monthPageviews(client, websites, monthStart(today));
  return { ...monthUsage(used, account.pageviewLimit ?? null, today), websites: websites.length };
}
