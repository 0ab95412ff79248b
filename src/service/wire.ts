/** The service's wire format to and from the model: read liberally, written strictly. */
import { domainKey } from '../model/domain.js';
import { FIELD, FIELDS } from '../model/fields.js';
import type { Account, FieldName, LiveWebsite, WebsiteView } from '../model/types.js';
import { ApiError } from './errors.js';
import { toInt, type Raw } from '../model/field-values.js';
import type { Row } from '../archive/file.js';

/** `clean`: a setting's text as shown (the client cleans it of the run's secrets); the id and domain stay as they are. */
export function toLiveWebsite(raw: unknown, clean = (text: string) => text): LiveWebsite {
  if (!raw || typeof raw !== 'object') throw new ApiError('protocol', 'the service sent a website that is not an object');
  const r = raw as Raw;
  const id = toInt(r.id);
  if (id === undefined || typeof r.domain !== 'string') {
    throw new ApiError('protocol', 'the service sent a website without an id or domain');
  }
  const site: LiveWebsite = { id, domain: domainKey(r.domain) };
  // Kept as stored (a trailing dot, unicode) so that export and messages name what the service
  // shows; case and a leading `www.` never survive the service's own normalization.
  const spelled = r.domain.trim().toLowerCase().replace(/^www\./, '');
  if (spelled !== site.domain) site.stored = spelled;
  const fields = site as unknown as Record<string, unknown>;
  for (const field of FIELDS) {
    const value = field.read(r);
    if (typeof value === 'string') fields[field.name] = clean(value);
    else if (Array.isArray(value)) fields[field.name] = value.map((v: unknown) => (typeof v === 'string' ? clean(v) : v));
    else if (value !== undefined) fields[field.name] = value;
  }
  return site;
}

export function toAccount(raw: unknown, clean = (text: string) => text): Account {
  const record = (value: unknown) => (value && typeof value === 'object' ? value : {}) as Raw;
  const r = record(unwrap(raw));
  const plan = record(r.plan);
  const features = record(plan.features);
  const limitOf = (n: number | undefined) => (n === undefined || n < 0 ? null : n);
  // A yes/no feature as the admin set it (true, 1, "1", …); null when it is not there.
  const reports = toInt(features.email_reports);
  return {
    id: typeof r.id === 'number' || typeof r.id === 'string' ? r.id : null,
    name: typeof r.name === 'string' ? clean(r.name) : '',
    email: typeof r.email === 'string' ? clean(r.email) : '',
    plan: typeof plan.name === 'string' ? clean(plan.name) : '',
    websiteLimit: limitOf(toInt(features.websites)),
    pageviewLimit: limitOf(toInt(features.pageviews)),
    emailReports: reports === undefined ? null : reports !== 0,
  };
}

export interface Page<T = unknown> {
  items: T[];
  currentPage?: number;
  lastPage?: number;
  hasNext: boolean;
  total?: number;
  /** As the answer says it (a string in the product's), whatever was asked. */
  perPage?: number;
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
  const currentPage = toInt(meta.current_page) ?? requested;
  const lastPage = toInt(meta.last_page);
  const next: unknown = Object(b.links).next ?? b.next_page_url;
  return {
    items,
    currentPage,
    lastPage,
    total: toInt(meta.total),
    perPage: toInt(meta.per_page),
    hasNext: lastPage !== undefined ? currentPage < lastPage : typeof next === 'string' && next !== '',
  };
}

/** A page of the stats API; `count` may come as a string through MySQL (a SUM). */
export function readStatsRows(body: unknown, requested: number): Page<Row> {
  const page = readPage(body, requested);
  const items = page.items.map((item) => {
    const r = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
    const count = typeof r.count === 'number' ? r.count : typeof r.count === 'string' && r.count.trim() !== '' ? Number(r.count) : NaN;
    if ((typeof r.value !== 'string' && typeof r.value !== 'number') || r.count === undefined || r.count === null) throw new ApiError('protocol', 'the service sent statistics that are not rows of a value and a count');
    // A SUM of whole hits: 0.4 is not 0.
    if (!Number.isSafeInteger(count) || count < 0) throw new ApiError('protocol', `the service sent a count that is not a number of hits: ${JSON.stringify(r.count)?.slice(0, 40)}`);
    return { value: String(r.value), count };
  });
  return { ...page, items };
}

export type Form = Record<string, string>;

/** The form fields of a website view; a password from `password`, never from the view. */
export function toForm(values: WebsiteView, fields: readonly FieldName[], password?: string): Form {
  const form: Form = {};
  for (const name of fields) {
    const field = FIELD[name];
    const value = field.writeOnly ? password : values[name];
    if (value !== undefined) form[name] = field.write(value);
  }
  return form;
}
