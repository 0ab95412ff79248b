/**
 * The archive of a website's history (`sitesync archive`, and apply before a delete): what the
 * product's stats API holds for it, by name, assembled from the rows as read into one document
 * (`schemas/archive.schema.json`), written as JSON with its daily series as CSV beside it. Pure:
 * rows in, text out. Deterministic: keys and rows sorted, so the same history gives the same
 * bytes but for `read_at`.
 */
import type { Account, LiveWebsite } from '../model/types.js';
import { FIELDS } from '../model/fields.js';
import { domainKey } from '../model/domain.js';
import { jsonUnicodeEscapes } from '../messages/escape.js';
import { MAX_ARCHIVE_NAME_DOMAIN } from '../caps.js';

export const ARCHIVE_FORMAT_VERSION = 1;

/** One row per day. */
export const DAILY_NAMES = ['pageviews', 'visitors'] as const;
/** Hours `00`–`23`, summed over the range. */
export const HOURLY_NAMES = ['pageviews_hour', 'visitors_hour'] as const;
/** One row per value, summed over the range. */
export const DIMENSION_NAMES = ['browser', 'campaign', 'city', 'continent', 'country', 'device', 'event', 'landing_page', 'language', 'os', 'page', 'referrer', 'resolution'] as const;
/** Every name of the product's stats API: an archive reads them all. */
export const ARCHIVE_NAMES = [...DAILY_NAMES, ...HOURLY_NAMES, ...DIMENSION_NAMES] as const;

export type ArchiveName = (typeof ARCHIVE_NAMES)[number];
export type DimensionName = (typeof DIMENSION_NAMES)[number];

export interface Row {
  value: string;
  count: number;
}

export interface DayRow {
  date: string;
  pageviews: number;
  visitors: number;
}

export interface HourRow {
  hour: string;
  pageviews: number;
  visitors: number;
}

/** What the product keeps and its API does not give: said in every archive. */
export const NOT_KEPT = {
  recents: "not kept: the product's feed of the last visitors (its recents) has no API; it is deleted with the website",
} as const;

export interface Archive {
  format_version: typeof ARCHIVE_FORMAT_VERSION;
  sitesync_version: string;
  read_at: string;
  service: { base_url: string };
  /** The account as the service names it; `config_account` is its name in the file (null for a single-account file). */
  account: { id: number | string | null; name: string; email: string } | null;
  config_account: string | null;
  website: { id: number; domain: string; settings: Record<string, unknown> };
  range: { from: string; to: string };
  totals: { pageviews: number; visitors: number };
  /** The totals again from the hourly sums: they agree unless hits arrived while reading (then `notes` says so). */
  checks: { hourly_pageviews: number; hourly_visitors: number; agree: boolean };
  notes: string[];
  daily: DayRow[];
  hourly: HourRow[];
  dimensions: Record<DimensionName, Row[]>;
  not_kept: typeof NOT_KEPT;
  /** The requests the read took. */
  requests: number;
}

export interface ArchiveInput {
  website: LiveWebsite;
  baseUrl: string;
  account: Pick<Account, 'id' | 'name' | 'email'> | null;
  configAccount: string | null;
  readAt: Date;
  range: { from: string; to: string };
  rows: Record<ArchiveName, readonly Row[]>;
  requests: number;
  /** Values that held a secret of the run, written with `(redacted)` in its place. */
  redacted?: number;
  sitesyncVersion: string;
}

/** Thrown when the rows cannot be an archive (a day that is no day, an hour past 23): the service's error, in words. */
export class ArchiveError extends Error {}

/** The archive of one website, from the rows of every name as read (each name's values unique). */
export function assembleArchive(input: ArchiveInput): Archive {
  const { rows } = input;
  const days = new Map<string, DayRow>();
  for (const name of DAILY_NAMES) {
    for (const row of rows[name]) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(row.value)) throw new ArchiveError(`the service sent a ${name} row whose value is not a day: ${JSON.stringify(row.value)}`);
      const day = days.get(row.value) ?? { date: row.value, pageviews: 0, visitors: 0 };
      day[name] = row.count;
      days.set(row.value, day);
    }
  }
  const hours = Array.from({ length: 24 }, (_, h): HourRow => ({ hour: String(h).padStart(2, '0'), pageviews: 0, visitors: 0 }));
  for (const name of HOURLY_NAMES) {
    for (const row of rows[name]) {
      const h = /^\d{1,2}$/.test(row.value) ? Number(row.value) : NaN;
      if (!(h >= 0 && h <= 23)) throw new ArchiveError(`the service sent a ${name} row whose value is not an hour: ${JSON.stringify(row.value)}`);
      hours[h]![name === 'pageviews_hour' ? 'pageviews' : 'visitors'] += row.count;
    }
  }
  const daily = [...days.values()].sort((a, b) => compare(a.date, b.date));
  const sum = (list: readonly (DayRow | HourRow)[], field: 'pageviews' | 'visitors') => list.reduce((n, r) => n + r[field], 0);
  const totals = { pageviews: sum(daily, 'pageviews'), visitors: sum(daily, 'visitors') };
  const checks = { hourly_pageviews: sum(hours, 'pageviews'), hourly_visitors: sum(hours, 'visitors'), agree: true };
  checks.agree = checks.hourly_pageviews === totals.pageviews && checks.hourly_visitors === totals.visitors;
  const notes = checks.agree
    ? []
    : [
        `the hourly sums (${checks.hourly_pageviews} pageviews, ${checks.hourly_visitors} visitors) differ from the daily ones (${totals.pageviews}, ${totals.visitors}): the website received hits while it was read, or the service's rows disagree; the totals are the daily ones`,
      ];
  if (input.redacted) {
    notes.push(
      `${input.redacted} ${input.redacted === 1 ? 'value held' : 'values held'} the API key or a website password sitesync was given: written with "(redacted)" in its place (values that became one are one row, their counts added)`,
    );
  }
  const dimensions = Object.fromEntries(
    DIMENSION_NAMES.map((name) => [name, [...rows[name]].map((r) => ({ value: r.value, count: r.count })).sort((a, b) => compare(a.value, b.value))]),
  ) as Record<DimensionName, Row[]>;
  return {
    format_version: ARCHIVE_FORMAT_VERSION,
    sitesync_version: input.sitesyncVersion,
    read_at: input.readAt.toISOString(),
    service: { base_url: plainAddress(input.baseUrl) },
    account: input.account ? { id: input.account.id, name: input.account.name, email: input.account.email } : null,
    config_account: input.configAccount,
    website: { id: input.website.id, domain: input.website.stored ?? input.website.domain, settings: settingsOf(input.website) },
    range: input.range,
    totals,
    checks,
    notes,
    daily,
    hourly: hours,
    dimensions,
    not_kept: NOT_KEPT,
    requests: input.requests,
  };
}

/** The website's settings as read: every field the service returned, the password only as whether one is set. */
function settingsOf(website: LiveWebsite): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, writeOnly } of FIELDS) {
    const value = website[name];
    if (value === undefined) continue;
    if (writeOnly) out[`${name}_set`] = value === true;
    else out[name] = Array.isArray(value) ? [...value] : value;
  }
  return out;
}

/** The base URL without credentials, query or fragment (the file refuses them; a flag could still carry some). */
function plainAddress(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** By code unit: the same order on every machine, whatever its locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The archive as its file holds it: keys sorted at every level, two-space indentation, a row of
 * plain values on one line (a year of days is 365 lines, not 1,825), controls escaped.
 */
export function archiveJson(archive: Archive): string {
  return `${jsonUnicodeEscapes(layout(archive, ''))}\n`;
}

function layout(value: unknown, indent: string): string {
  if (!value || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${inner}${isRow(v) ? JSON.stringify(sorted(v)) : layout(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(sorted(value));
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${layout(v, inner)}`).join(',\n')}\n${indent}}`;
}

/** An object of plain values: one line. */
function isRow(value: unknown): value is object {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value) && Object.values(value as object).every((v) => v === null || typeof v !== 'object');
}

function sorted(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => compare(a, b)));
}

/** The daily series for spreadsheets: `date,pageviews,visitors`, a line a day, oldest first. */
export function archiveCsv(archive: Archive): string {
  return `date,pageviews,visitors\n${archive.daily.map((d) => `${d.date},${d.pageviews},${d.visitors}\n`).join('')}`;
}

/**
 * `DOMAIN-ID-DATE` (without the extension), safe as a file name on any system: the domain's ASCII
 * form (punycode), lower case, without a trailing dot or a leading `www.`, every character but
 * letters, digits, `.`, `-` and `_` replaced by `_` (a domain is the service's text: a `/`, a
 * control character or a space must not reach the file system), no leading dot, at most 150
 * characters. The id keeps two websites whose names come out alike apart.
 */
export function archiveBaseName(domain: string, id: number, readAt: Date): string {
  const safe = domainKey(domain)
    .replace(/[^a-z0-9._-]/g, '_')
    .replace(/^\.+/, (dots) => '_'.repeat(dots.length))
    .slice(0, MAX_ARCHIVE_NAME_DOMAIN);
  return `${safe || 'website'}-${id}-${readAt.toISOString().slice(0, 10)}`;
}
