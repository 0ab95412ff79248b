/**
 * A website's whole history from the stats API, for its archive: every row of every name asked
 * for, from the first day of any history with no last day (a service's clock may be ahead of
 * this one). Each name is read as the client's statsRows reads one (sorted by value, every page,
 * deduplicated), a few names at once: the installation's pacer spaces the requests, as it does
 * every other request of the run.
 */
import pLimit from 'p-limit';
import { HISTORY_FROM, HISTORY_TO, type RequestKind, type ServiceClient } from './client.js';
import type { StatsRow } from './wire.js';
import { MAX_HISTORY_CHARACTERS, MAX_HISTORY_VALUES } from '../caps.js';

/** Names read at once: the pacer spaces them anyway; a few hide the answers' latency. */
const NAMES_AT_ONCE = 4;

export interface HistoryReadOptions {
  /** What the requests are counted as (default 'archive'). */
  kind?: RequestKind;
  /** After each page: pages read, and the pages the whole read takes as far as the names' first pages say. */
  onProgress?: (read: number, estimate: number) => void;
}

/** Every row of each name of a website's statistics, and how many requests the read took. */
export interface WebsiteHistory<N extends string> {
  range: { from: string; to: string };
  rows: Record<N, StatsRow[]>;
  requests: number;
}

/** Reads `names` whole; one name that cannot be read fails the read, and the names not yet started are not asked for. */
export async function readHistory<N extends string>(client: ServiceClient, id: number, domain: string, names: readonly N[], options: HistoryReadOptions = {}): Promise<WebsiteHistory<N>> {
  const range = { from: HISTORY_FROM, to: HISTORY_TO };
  const pages = new Map<N, { read: number; of: number }>(names.map((n) => [n, { read: 0, of: 1 }]));
  const estimate = () => [...pages.values()].reduce((n, p) => n + Math.max(p.read, p.of), 0);
  let requests = 0;
  let failed = false;
  let values = 0;
  let characters = 0;
  const budget = (value: string) => {
    characters += value.length;
    if (++values > MAX_HISTORY_VALUES) return `the history holds more than ${MAX_HISTORY_VALUES.toLocaleString('en-US')} values in all, more than one archive holds`;
    if (characters > MAX_HISTORY_CHARACTERS) return `the history's values hold more than ${MAX_HISTORY_CHARACTERS / 1024 / 1024} Mi characters in all, more than one archive holds (the product keeps at most 255 a value)`;
    return undefined;
  };
  const limit = pLimit(NAMES_AT_ONCE);
  const read = await Promise.all(
    names.map((name) =>
      limit(async () => {
        if (failed) return [name, []] as const;
        const onPage = (n: number, of: number | undefined) => {
          requests++;
          pages.set(name, { read: n, of: of ?? n });
          options.onProgress?.(requests, estimate());
        };
        try {
          return [name, await client.statsRows(id, domain, name, range.from, range.to, { kind: options.kind ?? 'archive', onPage, budget })] as const;
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
    ),
  );
  return { range, rows: Object.fromEntries(read) as Record<N, StatsRow[]>, requests };
}
