/**
 * `ci drift --quiet-days N`: the managed websites that recorded no pageview in the last N days
 * (a tracking snippet removed by a rebuild of the site, a domain moved), with their last day of
 * traffic. One stats request per managed website, paced with every other request of its
 * installation; a few at once per account. A read that fails fails the account's check: a
 * silent website that could not be seen is not "no drift".
 */
import pLimit from 'p-limit';
import { SitesyncError } from '../messages/errors.js';
import { chooseTwin } from '../planner/plan.js';
import { Scope } from '../planner/scope.js';
import type { LiveWebsite } from '../model/types.js';
import { eachAccount } from '../run/each.js';
import { fail, type Run, type RunAccount } from '../run/open.js';
import type { Context } from '../io/terminal.js';
import type { SilentWebsite } from './drift-body.js';

/** Websites of one account read at once (the installation's pacer spaces them further). */
const READS_AT_ONCE = 4;

export interface QuietScope {
  targets?: readonly string[];
  excludes?: readonly string[];
}

/** The silent websites of every planned account; an account whose reads fail is failed. */
export async function readSilentWebsites(run: Run, days: number, scope: QuietScope, ctx: Pick<Context, 'secrets'>, now = new Date()): Promise<Map<RunAccount, SilentWebsite[]>> {
  const since = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const found = new Map<RunAccount, SilentWebsite[]>();
  const planned = run.accounts.filter((a) => a.plan && !a.failure);
  const outcomes = await eachAccount(planned, (a) => a.connection.installation, async (a) => {
    found.set(a, await silentOf(a, since, scope));
  });
  for (const o of outcomes) if (!o.ok) fail(o.item, quietFailure(o.error, days), ctx);
  return found;
}

/**
 * The live websites the file lists that the plan manages (the one scope rule: --target, --exclude,
 * ignore), each named as the file writes it: of a name the service holds twice, the one the plan
 * manages (the other is left alone, not watched).
 */
export function managedLive(a: Pick<RunAccount, 'config' | 'live'>, options: QuietScope): { id: number; domain: string }[] {
  const scope = new Scope(a.config, options);
  const written = new Map(a.config.websites.filter((w) => scope.includes(w.domain)).map((w) => [w.domain, w.written.trim()]));
  const byKey = new Map<string, LiveWebsite[]>();
  for (const w of a.live ?? []) if (written.has(w.domain)) byKey.set(w.domain, [...(byKey.get(w.domain) ?? []), w]);
  return [...byKey]
    .map(([key, group]) => ({ id: chooseTwin(group, written.get(key)).id, domain: written.get(key)! }))
    .sort((x, y) => (x.domain < y.domain ? -1 : x.domain > y.domain ? 1 : x.id - y.id));
}

async function silentOf(a: RunAccount, since: string, scope: QuietScope): Promise<SilentWebsite[]> {
  const limit = pLimit(READS_AT_ONCE);
  let failed = false;
  const last = await Promise.all(
    managedLive(a, scope).map((w) =>
      limit(async () => {
        // The first failure fails the account: the rest is not read.
        if (failed) return undefined;
        try {
          return { domain: w.domain, lastDay: await a.client.lastPageviewDay(w.id, w.domain, since) };
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
    ),
  );
  return last.filter((s): s is SilentWebsite => s !== undefined && (s.lastDay === null || s.lastDay < since));
}

function quietFailure(error: unknown, days: number): unknown {
  if (!(error instanceof SitesyncError) || error.name === 'InterruptedError') return error;
  const wrapped = new SitesyncError(`--quiet-days ${days}: ${error.message}`);
  wrapped.details = [...error.details];
  return wrapped;
}
