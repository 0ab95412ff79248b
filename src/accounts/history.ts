/**
 * What each planned delete destroys: the website's traffic, read through the stats API (two
 * requests a delete, paced like every other request; none when the plan deletes nothing). A
 * website whose traffic cannot be read counts as active: the plan shows why, apply refuses it
 * unless the file retires it.
 */
import pLimit from 'p-limit';
import { SitesyncError } from '../errors.js';
import { ApiError } from '../service/errors.js';
import type { Config, Plan } from '../model.js';
import { deletesOf, withHistory, type TrafficRead } from '../planner/history.js';
import type { ServiceClient } from '../service/client.js';
import type { Context } from '../terminal.js';
import { eachAccount } from './each.js';
import { fail, type Run } from './run.js';

/** Reads the traffic of every delete of every planned account, and records it on the plans. */
export async function readHistory(run: Run, ctx: Pick<Context, 'secrets'>): Promise<void> {
  const planned = run.accounts.filter((a) => a.plan && !a.failure && deletesOf(a.plan).length > 0);
  const outcomes = await eachAccount(planned, (a) => a.connection.installation, async (a) => {
    a.plan = await planWithHistory(a.plan!, a.config, a.client);
  });
  for (const o of outcomes) if (!o.ok) fail(o.item, o.error, ctx);
}

/** One account's plan with its deletes' traffic. */
export async function planWithHistory(plan: Plan, config: Config, client: ServiceClient): Promise<Plan> {
  const limit = pLimit(4);
  const read = new Map<number, TrafficRead>();
  await Promise.all(
    deletesOf(plan).map((change) =>
      limit(async () => {
        try {
          read.set(change.id, { traffic: await client.readTraffic(change.id, change.domain, config.safety.active_days) });
        } catch (error) {
          // Interrupted (Ctrl-C): the run stops, as for any read.
          if (!(error instanceof SitesyncError) || error.name === 'InterruptedError') throw error;
          // A 404: the website is gone (another run deleted it: nothing left to destroy), or this
          // version has no stats API (then the traffic is unknown).
          const gone = error instanceof ApiError && error.kind === 'not-found' && (await client.lookupWebsite(change.id)) === undefined;
          read.set(change.id, gone ? { gone: true } : { unknown: error.message.replace(`read the statistics of ${change.domain}: `, '') });
        }
      }),
    ),
  );
  return withHistory(plan, read, config);
}
