/**
 * What each planned delete destroys: the website's traffic, read through the stats API (two
 * requests a delete: its lifetime, then its window, or its events when it has no pageviews;
 * paced like every other request; none when the plan deletes nothing). A website whose traffic
 * cannot be read counts as active: the plan shows why, apply refuses it unless the file retires it.
 */
import pLimit from 'p-limit';
import { SitesyncError } from '../messages/errors.js';
import { ApiError } from '../service/errors.js';
import type { Config, Plan } from '../model/types.js';
import { deletesOf, withHistory, type TrafficRead } from '../planner/retire.js';
import type { ServiceClient } from '../service/client.js';

/** One account's plan with its deletes' traffic. */
export async function planWithHistory(plan: Plan, config: Config, client: ServiceClient): Promise<Plan> {
  const limit = pLimit(4);
  const read = new Map<number, TrafficRead>();
  // Once the stats API is found missing or too slow, the other deletes are not read: each would
  // fail the same way, after the same wait. They are unknown, for the same reason.
  let stop: string | undefined;
  await Promise.all(
    deletesOf(plan).map((change) =>
      limit(async () => {
        if (stop) {
          read.set(change.id, { unknown: `not read: ${stop}` });
          return;
        }
        try {
          read.set(change.id, { traffic: await client.readTraffic(change.id, change.domain, config.safety.active_days) });
        } catch (error) {
          // Interrupted (Ctrl-C): the run stops, as for any read.
          if (!(error instanceof SitesyncError) || error.name === 'InterruptedError') throw error;
          const why = error instanceof ApiError ? unreadable(error) : undefined;
          if (why) {
            stop ??= why;
            read.set(change.id, { unknown: why });
            return;
          }
          // A 404 with the service's own words: the website is gone (another run deleted it:
          // nothing left to destroy), or its statistics are.
          const gone = error instanceof ApiError && error.kind === 'not-found' && (await client.lookupWebsite(change.id)) === undefined;
          read.set(change.id, gone ? { gone: true } : { unknown: withoutWhat(error.message, change.domain) });
        }
      }),
    ),
  );
  return withHistory(plan, read, config);
}

/** A read's failure without the "read the (pageviews) statistics of x.com: " the plan says already. */
function withoutWhat(message: string, domain: string): string {
  const what = `statistics of ${domain}: `;
  const at = message.indexOf(what);
  return message.startsWith('read the ') && at >= 0 && at <= 'read the pageviews_hour '.length ? message.slice(at + what.length) : message;
}

/** Why no website's statistics can be read, when one read says so: no stats API, or one too slow to wait for. */
function unreadable(error: ApiError): string | undefined {
  if (error.kind === 'protocol' && (error.status === 404 || error.status === 405)) return 'this service has no statistics API (its version may predate it)';
  if (error.kind === 'timeout') return 'the statistics API did not answer in time';
  return undefined;
}
