/**
 * The values sitesync enforces, and the normalization both sides go through before they are
 * compared: one place, so that a difference is never an artefact of representation.
 */
import { createHash } from 'node:crypto';
import { FIELD, FIELDS } from '../model/fields.js';
import type { DefaultSettings, DesiredWebsite, FieldName, LiveWebsite, WebsiteView } from '../model/types.js';

/** Every setting `defaults` may carry; favorite and the password only where the file sets them. */
export type Enforced = Required<DefaultSettings> & Pick<DesiredWebsite, 'favorite' | 'password'>;

/**
 * The website's own value, else `defaults`, else the service's create default; a field that
 * `defaults` may not carry (favorite, password) only where the website sets it.
 */
export function enforcedValues(site: DesiredWebsite, defaults: DefaultSettings): Enforced {
  const values: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const own = site[field.name];
    const value = own !== undefined || !field.inDefaults ? own : (defaults[field.name as keyof DefaultSettings] ?? field.serviceDefault);
    if (value !== undefined) values[field.name] = Array.isArray(value) ? [...value] : value;
  }
  return values as unknown as Enforced;
}

/**
 * Whether the file itself — the website or `defaults` — sets a field. The service's create
 * default does not count: it is what sitesync assumes, not what the user wrote, so it must
 * never overwrite a value that sitesync cannot read back.
 */
export function fileSets(site: DesiredWebsite, defaults: DefaultSettings, field: FieldName): boolean {
  return site[field] !== undefined || (FIELD[field].inDefaults && defaults[field as keyof DefaultSettings] !== undefined);
}

/** What was added to and removed from a list, in the order of each side. */
export function listDelta(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[] } {
  const b = new Set(before);
  const a = new Set(after);
  return { added: after.filter((x) => !b.has(x)), removed: before.filter((x) => !a.has(x)) };
}

/** A live website as a plan shows it; fields the service does not return are left out. */
export function liveView(site: LiveWebsite): WebsiteView {
  const view: Record<string, unknown> = { domain: site.domain };
  for (const { name } of FIELDS) {
    const value = site[name];
    if (value !== undefined) view[name] = Array.isArray(value) ? [...value] : value;
  }
  return view as unknown as WebsiteView;
}

/**
 * The enforced values as a plan shows them: the password only as `(sensitive)`. The fields
 * every website enforces come first, then those enforced only where set: the key order of
 * `after` in JSON plans and saved plans.
 */
export function desiredView(domain: string, values: Enforced): WebsiteView {
  const view: Record<string, unknown> = { domain };
  for (const field of [...FIELDS.filter((f) => f.inDefaults), ...FIELDS.filter((f) => !f.inDefaults)]) {
    const value = values[field.name];
    if (value === undefined) continue;
    view[field.name] = field.compare === 'secret' ? '(sensitive)' : Array.isArray(value) ? [...value] : value;
  }
  return view as unknown as WebsiteView;
}

/**
 * A short hash of a website as seen: equal for the same settings however the service wrote
 * them (list order, `\r\n`, ints as strings are gone after reading).
 */
export function fingerprint(view: WebsiteView): string {
  const canonical: Record<string, unknown> = { domain: view.domain };
  for (const field of FIELDS) {
    const value = view[field.name];
    canonical[field.name] = value === undefined ? null : field.compare === 'set' && Array.isArray(value) ? [...value].sort() : value;
  }
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}
