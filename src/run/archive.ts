/**
 * Archiving a website: its whole history read from the stats API (every name, every page),
 * assembled (archive/), written atomically as DIR/DOMAIN-ID-DATE.json with its daily series as
 * .csv beside it, and read back and checked. `sitesync archive` runs it for each website it
 * names; apply runs it before the delete of a website whose history is not known to be empty,
 * and sends the delete only once it is done.
 */
import { mkdir, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { archiveProblem } from '../archive/check.js';
import { ARCHIVE_NAMES, ArchiveError, archiveBaseName, archiveCsv, archiveJson, assembleArchive, DIMENSION_NAMES, type Archive, type ArchiveName, type Row } from '../archive/file.js';
import { IS_A_LINK, writeFailure, writeNewChecked } from '../io/files.js';
import { packageVersion, shownPath } from '../io/paths.js';
import { HistoryShrunkError, SitesyncError } from '../messages/errors.js';
import { historyShrunk, readingOfTraffic, shrunkMessage, type HistoryReading } from '../planner/history-grows.js';
import type { Account, Config, DeleteChange, LiveWebsite, WebsiteView } from '../model/types.js';
import type { ServiceClient } from '../service/client.js';
import { readWholeHistory } from '../service/stats.js';
import { MAX_ARCHIVE_NAME_TRIES } from '../caps.js';

export interface ArchiveTarget {
  website: LiveWebsite;
  /** The folder the files go in (absolute); created when missing. */
  dir: string;
  baseUrl: string;
  account: Pick<Account, 'id' | 'name' | 'email'> | null;
  /** The account's name in the file; null for a single-account file. */
  configAccount: string | null;
  /** Where paths are shown from (the user's folder). */
  cwd: string;
  /** What an earlier read of this run found (the plan's traffic): the archive must hold at least that, or it is not written. */
  earlier?: HistoryReading;
}

export interface WrittenArchive {
  /** The files, as shown to the user (relative to their folder where inside it). */
  json: string;
  csv: string;
  archive: Archive;
}

/** Reads, writes and checks one website's archive; throws a SitesyncError saying what could not be done. */
export async function archiveWebsite(
  client: ServiceClient,
  target: ArchiveTarget,
  onProgress?: (read: number, estimate: number) => void,
): Promise<WrittenArchive> {
  const { website } = target;
  const history = await readWholeHistory(client, website.id, website.domain, ARCHIVE_NAMES, onProgress);
  const redacted = withoutSecrets(history.rows, (text) => client.cleaned(text));
  const readAt = new Date();
  let archive: Archive;
  try {
    archive = assembleArchive({
      website,
      baseUrl: target.baseUrl,
      account: target.account,
      configAccount: target.configAccount,
      readAt,
      range: history.range,
      rows: history.rows,
      requests: history.requests,
      redacted,
      sitesyncVersion: packageVersion(),
    });
  } catch (error) {
    if (error instanceof ArchiveError) throw new SitesyncError(`archive of ${website.domain}: ${error.message}`);
    throw error;
  }
  if (target.earlier) {
    // History only grows: an archive that holds less than the plan showed is not the history the delete destroys.
    const later = readingOfArchive(archive);
    const shrunk = historyShrunk(target.earlier, later);
    if (shrunk.length) throw new HistoryShrunkError(shrunkMessage(website.domain, target.earlier, later, shrunk));
  }
  const shown = (path: string) => shownPath(path, target.cwd);
  await mkdir(target.dir, { recursive: true }).catch((error: unknown) => {
    throw writeFailure(error, 'archive', shown(target.dir));
  });
  const base = await writeUnderNewName(join(target.dir, archiveBaseName(website.stored ?? website.domain, website.id, readAt)), archive, shown);
  return { json: shown(`${base}.json`), csv: shown(`${base}.csv`), archive };
}

/** An archive as a reading of the website's history: its lifetime totals, events and days. */
function readingOfArchive(archive: Archive): HistoryReading {
  return {
    by: 'the archive',
    // The larger of the daily and the hourly sums: they differ only when hits arrived while it was read.
    pageviews: Math.max(archive.totals.pageviews, archive.checks.hourly_pageviews),
    visitors: Math.max(archive.totals.visitors, archive.checks.hourly_visitors),
    events: archive.dimensions.event.reduce((n, r) => n + r.count, 0),
    days: { pageviews: new Map(archive.daily.map((d) => [d.date, d.pageviews])) },
  };
}

/**
 * Writes the archive under a name nothing has: `base`, else `base-2`, `base-3`… An archive never
 * replaces a file — another installation's website of the same domain and id archived the same
 * day into the same folder (accounts side by side, or another process at the same moment), the
 * same website archived again, or whatever else stands there (a link included) — so no history
 * written is lost. Each file is taken exclusively (never looked for, then renamed over): the CSV
 * first, which claims the name; the JSON, written last, is the archive, and its being there and
 * whole means both are. Returns the name, without its extension.
 */
async function writeUnderNewName(base: string, archive: Archive, shown: (path: string) => string): Promise<string> {
  for (let n = 1; n <= MAX_ARCHIVE_NAME_TRIES; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    const taken = (error: unknown) => ['EEXIST', IS_A_LINK].includes((error as NodeJS.ErrnoException).code ?? '');
    try {
      await writeNewChecked(`${name}.csv`, archiveCsv(archive));
    } catch (error) {
      if (taken(error)) continue;
      throw writeFailure(error, 'archive', shown(`${name}.csv`));
    }
    try {
      await writeNewChecked(`${name}.json`, archiveJson(archive), archiveProblem);
    } catch (error) {
      if (!taken(error)) throw writeFailure(error, 'archive', shown(`${name}.json`));
      // Something has this JSON's name and not the CSV's: the CSV just written is this archive's alone.
      await unlink(`${name}.csv`).catch(() => undefined);
      continue;
    }
    return name;
  }
  throw new SitesyncError(`archive ${shown(base)}: ${MAX_ARCHIVE_NAME_TRIES} names of it are taken already`);
}

/**
 * The values of the names that hold the public's text (pages, referrers, events…) cleaned of every
 * secret of the run, in place: a page visited as `/?key=…` must not put the key in an archive.
 * Two values that clean to one are one row, their counts added. Days and hours hold no text: as
 * read. Returns how many values held a secret.
 */
function withoutSecrets(rows: Record<ArchiveName, Row[]>, clean: (text: string) => string): number {
  let redacted = 0;
  for (const name of DIMENSION_NAMES) {
    const merged = new Map<string, number>();
    let here = 0;
    for (const { value, count } of rows[name]) {
      const shown = clean(value);
      if (shown !== value) here++;
      merged.set(shown, (merged.get(shown) ?? 0) + count);
    }
    if (here) rows[name] = [...merged].map(([value, count]) => ({ value, count }));
    redacted += here;
  }
  return redacted;
}

/** What apply knows of an account when it archives a website before deleting it. */
export interface ArchiveContext {
  config: Config;
  baseUrl: string;
  account: Pick<Account, 'id' | 'name' | 'email'> | null;
  configAccount: string | null;
  /** The websites as read, for each one's record as the service holds it (the plan's view otherwise). */
  live?: readonly LiveWebsite[];
  cwd: string;
  /** Pages read, and the pages the archive takes as far as is known. */
  onProgress?: (change: DeleteChange, read: number, estimate: number) => void;
}

/**
 * apply's step before the delete of a website the plan archives first: its archive, written and
 * checked in the account's archive folder; resolves to its JSON file, as shown.
 */
export function archiverFor(client: ServiceClient, context: ArchiveContext): (change: DeleteChange) => Promise<string> {
  return async (change) => {
    const folder = context.config.archive;
    if (!folder) throw new SitesyncError(`the plan archives it first to ${change.archive}, and ${context.config.file} sets no archive: folder`);
    const website: LiveWebsite = context.live?.find((w) => w.id === change.id) ?? { ...liveOf(change.before), id: change.id, domain: change.domain };
    const written = await archiveWebsite(
      client,
      {
        website,
        dir: folder.dir,
        baseUrl: context.baseUrl,
        account: context.account,
        configAccount: context.configAccount,
        cwd: context.cwd,
        ...(change.traffic ? { earlier: readingOfTraffic(change.traffic, 'the plan') } : {}),
      },
      (read, estimate) => context.onProgress?.(change, read, estimate),
    );
    return written.json;
  };
}

/** A plan's view of a website as a record (whether a password is set, never one). */
function liveOf(view: WebsiteView): Partial<LiveWebsite> {
  const { password, ...settings } = view;
  return { ...settings, ...(typeof password === 'boolean' ? { password } : {}) };
}

/**
 * `apply --archive DIR`: every account of the run archives its deletes' histories in DIR (relative
 * to the user's folder), whatever the file says. Refused before anything is read when DIR is a file.
 */
export async function archiveEveryAccountIn(configs: readonly Config[], flag: string, cwd: string): Promise<void> {
  const dir = resolve(cwd, flag);
  if ((await stat(dir).catch(() => undefined))?.isDirectory() === false) throw new SitesyncError(`--archive ${flag}: this is a file, not a folder`);
  for (const config of configs) config.archive = { dir, shown: flag };
}
