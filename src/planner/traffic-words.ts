/**
 * How a delete's traffic reads, in every output (text, markdown, messages): numbers as people
 * write them. Plain text, not yet escaped (it holds nothing from the service but numbers and
 * the reason a read failed, which each output escapes where it writes it).
 */
import type { DeleteChange, Traffic } from '../model/types.js';

/** A delete whose website another run deleted since it was listed. */
export const GONE = 'already deleted at the service: nothing left to destroy';

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "destroys 12,340 pageviews recorded, 1,204 in the last 30 days"; recent events, the unknown, events alone, and nothing recorded, said as such. */
export function describeTraffic(change: Pick<DeleteChange, 'traffic' | 'traffic_unknown' | 'gone'>): string {
  if (change.gone) return GONE;
  if (change.traffic === undefined) return 'deleting a website destroys its collected statistics';
  if (change.traffic === null) return `traffic unknown (${change.traffic_unknown ?? 'the stats could not be read'}): counted as recent`;
  const t: Traffic = change.traffic;
  // Events without recent pageviews are activity: said, with their days.
  const days = `in the last ${t.recent_days} days`;
  if (t.pageviews === 0) {
    if (!t.events) return `no pageviews recorded${t.events === 0 ? ': its statistics are empty' : ''}`;
    return `destroys ${count(t.events)} events recorded (no pageviews)${t.events_recent ? `, ${count(t.events_recent)} ${days}` : ''}`;
  }
  const events = t.events_recent ? `; ${count(t.events_recent)} ${t.events_recent === 1 ? 'event' : 'events'} ${days}` : '';
  const recent = t.recent_days === 30 ? '' : `, ${count(t.pageviews_recent)} in the last ${t.recent_days} days`;
  return `destroys ${count(t.pageviews)} pageviews recorded, ${count(t.pageviews_30d)} in the last 30 days${recent}${events}`;
}

const BARS = '▁▂▃▄▅▆▇█';

/**
 * The last 30 days of a delete's traffic as a sparkline, oldest first: `▁` a day without
 * pageviews, `▂`–`█` a day with some, in proportion to the busiest. Undefined when there is
 * nothing to draw (no traffic read, none in those days).
 */
export function sparkline(traffic: Traffic | null | undefined): string | undefined {
  const days = traffic?.daily_30d;
  if (!days?.length || !days.some((n) => n > 0)) return undefined;
  const most = Math.max(...days);
  return days.map((n) => BARS[n === 0 ? 0 : Math.max(1, Math.ceil((n / most) * (BARS.length - 1)))]).join('');
}

/** "archived first to archive/": where a delete's history goes before the delete is sent. */
export function archiveNote(folder: string): string {
  return `archived first to ${folder.endsWith('/') ? folder : `${folder}/`} (its whole history, then the delete)`;
}
