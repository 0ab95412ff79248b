/**
 * Is a saved change still true? The website it updates or deletes must be as the plan saw it (the
 * fingerprint in `seen`), and a website it creates must still be absent.
 */
import { FIELD_NAMES } from '../model/fields.js';
import type { Change, LiveWebsite, WebsiteView } from '../model/types.js';
import { fingerprint, liveView } from '../planner/values.js';
import { formatValue } from '../render/values.js';

/** What changed since the plan was made, as one line; undefined when the change still holds. */
export function staleLine(change: Change, now: { byId: Map<number, LiveWebsite>; byDomain: Map<string, LiveWebsite> }): string | undefined {
  if (change.action === 'create') {
    const existing = now.byDomain.get(change.domain);
    return existing ? `${change.domain}: now exists at the service (id ${existing.id}); the plan would create it` : undefined;
  }
  const current = now.byId.get(change.id);
  if (!current || current.domain !== change.domain) return `${change.domain} (id ${change.id}): no longer exists at the service`;
  const view = liveView(current);
  return fingerprint(view) === change.seen ? undefined : `${change.domain} (id ${change.id}): ${describeDifference(change, view)}`;
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
