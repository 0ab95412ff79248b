/**
 * `sitesync verify` over the accounts of a run: each managed website's page fetched (at most 8
 * at once over the whole run: clients' sites, not the service, so not its throttle) and judged.
 */
import pLimit from 'p-limit';
import { Scope } from '../planner/scope.js';
import type { Config } from '../model/types.js';
import { verdictOf, type Finding } from './findings.js';
import { Unreachable, type PageFetcher } from './fetch.js';

export const PAGES_AT_ONCE = 8;
/** Per website, every redirect included. */
export const DEFAULT_DEADLINE_S = 15;

export interface VerifyAccount {
  name: string;
  config: Config;
  /** The installation the account's websites should send their hits to. */
  baseUrl: string;
}

export interface VerifyOptions {
  targets?: readonly string[];
  excludes?: readonly string[];
  deadlineMs: number;
}

/** The managed websites of each account, in the file's order, each with what its page says. */
export async function verifyAccounts(accounts: readonly VerifyAccount[], fetcher: PageFetcher, options: VerifyOptions): Promise<Finding[]> {
  const limit = pLimit(PAGES_AT_ONCE);
  const jobs = accounts.flatMap((a) => {
    const scope = new Scope(a.config, { targets: options.targets, excludes: options.excludes });
    return a.config.websites.filter((w) => scope.includes(w.domain)).map((w) => ({ a, domain: w.domain }));
  });
  return Promise.all(
    jobs.map(({ a, domain }) =>
      limit(async (): Promise<Finding> => {
        try {
          const page = await fetcher.fetch(`https://${domain}/`, options.deadlineMs);
          return verdictOf(a.name, domain, a.baseUrl, page);
        } catch (error) {
          if (error instanceof Unreachable || error instanceof TypeError) return { account: a.name, domain, verdict: 'unreachable', reason: error.message };
          throw error;
        }
      }),
    ),
  );
}
