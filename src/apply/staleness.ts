/**
 * Is a saved plan still true? Every website it touches is read again and compared with the
 * fingerprint taken when the plan was made; every website it would create must still be absent.
 */
import pLimit from 'p-limit';
import { StalePlanError } from '../errors.js';
import { FIELD_NAMES } from '../fields.js';
import type { Change, LiveWebsite, Plan, WebsiteView } from '../model.js';
import { fingerprint, liveView } from '../planner/values.js';
import { formatValue } from '../render/values.js';
import type { ServiceClient } from '../service/client.js';

export interface CurrentState {
  byId: Map<number, LiveWebsite>;
  byDomain: Map<string, LiveWebsite>;
}

/** What changed since the plan was made, one line per website; empty when the plan still holds. */
export function staleChanges(plan: Plan, now: CurrentState): string[] {
  const out: string[] = [];
  for (const change of plan.changes) {
    if (change.action === 'create') {
      const existing = now.byDomain.get(change.domain);
      if (existing) out.push(`${change.domain}: now exists at the service (id ${existing.id}); the plan would create it`);
      continue;
    }
    const current = now.byId.get(change.id);
    if (!current || current.domain !== change.domain) {
      out.push(`${change.domain} (id ${change.id}): no longer exists at the service`);
      continue;
    }
    const view = liveView(current);
    if (fingerprint(view) !== change.seen) out.push(`${change.domain} (id ${change.id}): ${describeDifference(change, view)}`);
  }
  return out;
}

function describeDifference(change: Change, now: WebsiteView): string {
  const before = change.before ?? { domain: change.domain };
  const parts: string[] = [];
  for (const field of FIELD_NAMES) {
    const a = before[field];
    const b = now[field];
    const same = Array.isArray(a) && Array.isArray(b) ? [...a].sort().join('\n') === [...b].sort().join('\n') : a === b;
    if (!same) parts.push(`${field} ${formatValue(field, a)} → ${formatValue(field, b)}`);
  }
  return parts.length ? `changed since the plan: ${parts.join('; ')}` : 'changed since the plan';
}

/**
 * Reads what the plan touches, whichever way costs fewer requests: each website on its own, or
 * the whole list once (or not at all, when the caller has just read it).
 */
export async function readTouched(plan: Plan, client: ServiceClient, liveTotal: number, list?: LiveWebsite[]): Promise<CurrentState> {
  const ids = plan.changes.flatMap((c) => (c.action === 'create' ? [] : [c.id]));
  const creates = plan.changes.filter((c) => c.action === 'create').map((c) => c.domain);
  const state: CurrentState = { byId: new Map(), byDomain: new Map() };
  const pages = client.pagesFor(liveTotal) + 1;
  if (list || ids.length + creates.length > pages) {
    for (const site of list ?? (await client.listWebsites())) {
      state.byId.set(site.id, site);
      if (!state.byDomain.has(site.domain)) state.byDomain.set(site.domain, site);
    }
    return state;
  }
  const limit = pLimit(8);
  await Promise.all([
    ...ids.map((id) =>
      limit(async () => {
        const found = await client.lookupWebsite(id);
        if (found) state.byId.set(id, found);
      }),
    ),
    ...creates.map((domain) =>
      limit(async () => {
        const found = await client.findWebsite(domain);
        if (found) state.byDomain.set(domain, found);
      }),
    ),
  ]);
  return state;
}

export async function assertFresh(plan: Plan, client: ServiceClient, liveTotal: number, file: string, list?: LiveWebsite[]): Promise<void> {
  const stale = staleChanges(plan, await readTouched(plan, client, liveTotal, list));
  if (stale.length === 0) return;
  const error = new StalePlanError(
    `${file} is stale: ${stale.length} of its ${plan.changes.length} changes no longer match the service; nothing was written`,
  );
  error.details = [...stale, 'Make a new plan (sitesync plan --out FILE) and review it.'];
  throw error;
}
