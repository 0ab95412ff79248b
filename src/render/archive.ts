/** What sitesync says about an archive it wrote. Pure. */
import { printable } from '../messages/escape.js';
import type { Colors } from '../io/context.js';
import { count } from '../planner/traffic-words.js';

/**
 * "✓ gone.example (id 3): 12,340 pageviews, 400 days from 2025-10-20, 98 requests → sitesync-archive/gone.example-3-2026-11-23.json (and .csv)".
 * `label` names the website as the run does (with its account in a file with accounts).
 */
export function archivedLine(label: string, written: { json: string; archive: ArchiveSummary }, c: Colors): string {
  const { archive } = written;
  const days = archive.daily.length;
  const span = days ? `${count(days)} day${days === 1 ? '' : 's'} from ${archive.daily[0]!.date}` : 'no day with traffic';
  const check = archive.checks.agree ? '' : c.yellow(' (the hourly sums differ: see its notes)');
  return `${c.green('✓')} ${printable(label)} (id ${archive.website.id}): ${count(archive.totals.pageviews)} pageviews, ${span}, ${archive.requests} requests → ${printable(written.json)} (and .csv)${check}`;
}

/** What the line says of an archive (archive/file.ts's Archive has all of it). */
interface ArchiveSummary {
  website: { id: number };
  totals: { pageviews: number };
  daily: readonly { date: string }[];
  checks: { agree: boolean };
  requests: number;
}
