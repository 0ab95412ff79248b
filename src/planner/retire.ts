/**
 * A delete destroys a website's statistics with it (the product has no soft delete), so every
 * delete carries what it destroys, read from the stats API, and a website with recent history is
 * deleted only when the file says so (`retire:`). Pure: the traffic read in, the plan out.
 */
import { GlobSet } from '../model/domain.js';
import type { Config, DeleteChange, Plan, Traffic } from '../model/types.js';

/** One delete's traffic as read, or why it could not be; `gone`: the website no longer exists (deleted elsewhere). */
export type TrafficRead = { traffic: Traffic } | { unknown: string } | { gone: true };

/**
 * The plan with each delete's traffic, and `safety.active`: the deletes of websites with
 * pageviews or events in the last `safety.active_days` days, or whose traffic is unknown, that `retire:`
 * does not list. Such a plan is shown with a warning, and apply refuses it.
 */
export function withHistory(plan: Plan, read: ReadonlyMap<number, TrafficRead>, config: Config): Plan {
  const retire = new GlobSet(config.retire.map((p) => p.glob));
  const active: string[] = [];
  let byEvents = false;
  const changes = plan.changes.map((change) => {
    if (change.action !== 'delete') return change;
    const found = read.get(change.id);
    if (!found) return change;
    const out: DeleteChange = {
      ...change,
      ...('traffic' in found ? { traffic: found.traffic } : 'gone' in found ? { traffic: null, gone: true as const } : { traffic: null, traffic_unknown: found.unknown }),
    };
    // Archived first where the history is not known to be empty (a website gone is not deleted at all).
    if (config.archive && !('gone' in found) && !('traffic' in found && nothingRecorded(found.traffic))) out.archive = config.archive.shown;
    if (retire.matches(change.domain)) out.retired = true;
    else if ('unknown' in found || ('traffic' in found && recentlyActive(found.traffic))) {
      active.push(change.domain);
      if ('traffic' in found && found.traffic.pageviews_recent === 0) byEvents = true;
    }
    return out;
  });
  const warnings = plan.warnings.filter((w) => !w.startsWith(ACTIVE_WARNING));
  if (active.length) {
    const days = config.safety.active_days;
    warnings.push(
      `${ACTIVE_WARNING} ${active.length === 1 ? 'a website' : `${active.length} websites`} with ${byEvents ? 'pageviews or events' : 'pageviews'} in the last ${days} days or traffic unknown (${active.join(', ')}): apply will refuse unless retire: lists ${active.length === 1 ? 'it' : 'them'}`,
    );
  }
  return { ...plan, changes, warnings, safety: { ...plan.safety, active } };
}

const ACTIVE_WARNING = 'this plan destroys the history of';

/** Pageviews, or events (an event hit records no pageview), in the last `recent_days` days. */
function recentlyActive(traffic: Traffic): boolean {
  return traffic.pageviews_recent > 0 || (traffic.events_recent ?? 0) > 0;
}

/** No pageview and no event: the website's history is empty (events are read when there are no pageviews). */
function nothingRecorded(traffic: Traffic): boolean {
  return traffic.pageviews === 0 && traffic.events === 0;
}

/** The deletes a plan would make that need their traffic read. */
export function deletesOf(plan: Plan): DeleteChange[] {
  return plan.changes.filter((c): c is DeleteChange => c.action === 'delete');
}
