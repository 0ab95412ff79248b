/**
 * Translation between the service's wire format and the model, and nothing else. Reads
 * liberally (ints as strings, `null` for defaults, `\r\n` lists, missing fields), writes strictly
 * (every value as the form field the service validates).
 */
import { domainKey } from '../domain.js';
import type { Account, Flag, LiveWebsite, Privacy, WebsiteView } from '../model.js';
import { ApiError } from './errors.js';

type Raw = Record<string, unknown>;

function toInt(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

function readEnum<T extends number>(record: Raw, key: string, allowed: readonly T[], fallback: T): T | undefined {
  if (!(key in record)) return undefined;
  const value = record[key];
  if (value === null || value === '') return fallback;
  const n = toInt(value);
  return n !== undefined && (allowed as readonly number[]).includes(n) ? (n as T) : fallback;
}

/** A newline list as the service returns it: `\r\n` or `\n`, stray blanks, or (some versions) an array. */
export function readList(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const items = Array.isArray(value) ? value.map(String) : String(value).split(/\r?\n|\r/);
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** PHP-truthy, as the service stores it: true, 1, "1" … */
function readBool(value: unknown): boolean {
  if (typeof value === 'string') return value !== '' && value !== '0' && value.toLowerCase() !== 'false';
  return Boolean(value);
}

export function toLiveWebsite(raw: unknown): LiveWebsite {
  if (!raw || typeof raw !== 'object') throw new ApiError('protocol', 'the service sent a website that is not an object');
  const r = raw as Raw;
  const id = toInt(r.id);
  if (id === undefined || typeof r.domain !== 'string') {
    throw new ApiError('protocol', 'the service sent a website without an id or domain');
  }
  const site: LiveWebsite = { id, domain: domainKey(r.domain) };
  // Kept as stored (a trailing dot, unicode, a name that is no host name) so that export
  // writes, and messages name, the website the service shows. Case and a leading `www.`
  // never survive the service's own normalization, so they do not count.
  const spelled = r.domain.trim().toLowerCase().replace(/^www\./, '');
  if (spelled !== site.domain) site.stored = spelled;
  const privacy = readEnum<Privacy>(r, 'privacy', [0, 1, 2], 0);
  if (privacy !== undefined) site.privacy = privacy;
  const email = readEnum<Flag>(r, 'email', [0, 1], 0);
  if (email !== undefined) site.email = email;
  const bots = readEnum<Flag>(r, 'exclude_bots', [0, 1], 1);
  if (bots !== undefined) site.exclude_bots = bots;
  if ('exclude_params' in r) site.exclude_params = readList(r.exclude_params);
  if ('exclude_ips' in r) site.exclude_ips = readList(r.exclude_ips);
  if ('favorite' in r) site.favorite = readBool(r.favorite);
  if ('password' in r) site.password = readBool(r.password);
  return site;
}

export function toAccount(raw: unknown): Account {
  const data = unwrap(raw);
  const r = (data && typeof data === 'object' ? data : {}) as Raw;
  const plan = (r.plan && typeof r.plan === 'object' ? r.plan : {}) as Raw;
  const features = (plan.features && typeof plan.features === 'object' ? plan.features : {}) as Raw;
  const limit = toInt(features.websites);
  return {
    id: typeof r.id === 'number' || typeof r.id === 'string' ? r.id : null,
    name: typeof r.name === 'string' ? r.name : '',
    email: typeof r.email === 'string' ? r.email : '',
    plan: typeof plan.name === 'string' ? plan.name : '',
    websiteLimit: limit === undefined || limit < 0 ? null : limit,
  };
}

export interface Page {
  items: unknown[];
  currentPage?: number;
  lastPage?: number;
  hasNext: boolean;
  total?: number;
}

/** `{"data": {...}, "status": 200}` or the record itself. */
export function unwrap(body: unknown): unknown {
  if (body && typeof body === 'object' && 'data' in body) return (body as { data: unknown }).data;
  return body;
}

/** Both Laravel list shapes: a resource collection (`data`/`links`/`meta`) or a bare paginator. */
export function readPage(body: unknown, requested: number): Page {
  if (!body || typeof body !== 'object') throw new ApiError('protocol', 'the website list is not a JSON object');
  const b = body as Record<string, unknown>;
  const items = Array.isArray(b.data) ? b.data : Array.isArray(body) ? (body as unknown[]) : undefined;
  if (!items) throw new ApiError('protocol', 'the website list has no "data" array');
  const meta = (b.meta && typeof b.meta === 'object' ? b.meta : b) as Record<string, unknown>;
  const links = (b.links && typeof b.links === 'object' && !Array.isArray(b.links) ? b.links : {}) as Record<string, unknown>;
  const currentPage = toInt(meta.current_page) ?? requested;
  const lastPage = toInt(meta.last_page);
  const next = links.next ?? b.next_page_url;
  return {
    items,
    currentPage,
    lastPage,
    total: toInt(meta.total),
    hasNext: lastPage !== undefined ? currentPage < lastPage : typeof next === 'string' && next !== '',
  };
}

export type Form = Record<string, string>;

/**
 * The form fields for the values of a website view. `favorite` as 1/0: the service reads any
 * PHP-truthy value as true, so the string "false" would set it.
 */
export function toForm(values: WebsiteView, fields: readonly string[], password?: string): Form {
  const form: Form = {};
  for (const field of fields) {
    switch (field) {
      case 'password':
        if (password !== undefined) form.password = password;
        break;
      case 'privacy':
      case 'email':
      case 'exclude_bots':
        if (values[field] !== undefined) form[field] = String(values[field]);
        break;
      case 'exclude_params':
      case 'exclude_ips':
        if (values[field] !== undefined) form[field] = values[field].join('\n');
        break;
      case 'favorite':
        if (values.favorite !== undefined) form.favorite = values.favorite ? '1' : '0';
        break;
    }
  }
  return form;
}
