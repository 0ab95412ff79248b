/**
 * The values sitesync enforces, and the normalization both sides go through before they are
 * compared: one place, so that a difference is never an artefact of representation.
 */
import { createHash } from 'node:crypto';
import {
  SERVICE_DEFAULTS,
  type DefaultSettings,
  type DesiredWebsite,
  type FieldName,
  type Flag,
  type LiveWebsite,
  type Privacy,
  type Secret,
  type WebsiteView,
} from '../model.js';

export interface Enforced {
  privacy: Privacy;
  email: Flag;
  exclude_bots: Flag;
  exclude_params: string[];
  exclude_ips: string[];
  /** Only where the file sets it. */
  favorite?: boolean;
  /** Only where the file sets it. */
  password?: Secret;
}

/** The website's own value, else `defaults`, else the service's create default. */
export function enforcedValues(site: DesiredWebsite, defaults: DefaultSettings): Enforced {
  const values: Enforced = {
    privacy: site.privacy ?? defaults.privacy ?? SERVICE_DEFAULTS.privacy,
    email: site.email ?? defaults.email ?? SERVICE_DEFAULTS.email,
    exclude_bots: site.exclude_bots ?? defaults.exclude_bots ?? SERVICE_DEFAULTS.exclude_bots,
    exclude_params: site.exclude_params ?? defaults.exclude_params ?? [...SERVICE_DEFAULTS.exclude_params],
    exclude_ips: site.exclude_ips ?? defaults.exclude_ips ?? [...SERVICE_DEFAULTS.exclude_ips],
  };
  if (site.favorite !== undefined) values.favorite = site.favorite;
  if (site.password !== undefined) values.password = site.password;
  return values;
}

/**
 * Whether the file itself — the website or `defaults` — sets a field. The service's create
 * default does not count: it is what sitesync assumes, not what the user wrote, so it must
 * never overwrite a value that sitesync cannot read back.
 */
export function fileSets(site: DesiredWebsite, defaults: DefaultSettings, field: FieldName): boolean {
  switch (field) {
    case 'password':
    case 'favorite':
      return site[field] !== undefined;
    default:
      return site[field] !== undefined || defaults[field] !== undefined;
  }
}

/** Lists compare as sets of trimmed entries. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a.map((s) => s.trim()).filter(Boolean));
  const right = new Set(b.map((s) => s.trim()).filter(Boolean));
  if (left.size !== right.size) return false;
  for (const item of left) if (!right.has(item)) return false;
  return true;
}

/** What was added to and removed from a list, in the order of each side. */
export function listDelta(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[] } {
  const b = new Set(before);
  const a = new Set(after);
  return { added: after.filter((x) => !b.has(x)), removed: before.filter((x) => !a.has(x)) };
}

/** A live website as a plan shows it; fields the service does not return are left out. */
export function liveView(site: LiveWebsite): WebsiteView {
  const view: WebsiteView = { domain: site.domain };
  if (site.privacy !== undefined) view.privacy = site.privacy;
  if (site.password !== undefined) view.password = site.password;
  if (site.email !== undefined) view.email = site.email;
  if (site.exclude_bots !== undefined) view.exclude_bots = site.exclude_bots;
  if (site.exclude_params !== undefined) view.exclude_params = [...site.exclude_params];
  if (site.exclude_ips !== undefined) view.exclude_ips = [...site.exclude_ips];
  if (site.favorite !== undefined) view.favorite = site.favorite;
  return view;
}

/** The enforced values as a plan shows them: the password only as `(sensitive)`. */
export function desiredView(domain: string, values: Enforced): WebsiteView {
  const view: WebsiteView = {
    domain,
    privacy: values.privacy,
    email: values.email,
    exclude_bots: values.exclude_bots,
    exclude_params: [...values.exclude_params],
    exclude_ips: [...values.exclude_ips],
  };
  if (values.password !== undefined) view.password = '(sensitive)';
  if (values.favorite !== undefined) view.favorite = values.favorite;
  return view;
}

/**
 * A short hash of a website as seen: equal for the same settings however the service wrote
 * them (list order, `\r\n`, ints as strings are gone after reading).
 */
export function fingerprint(view: WebsiteView): string {
  const canonical = {
    domain: view.domain,
    privacy: view.privacy ?? null,
    password: view.password ?? null,
    email: view.email ?? null,
    exclude_bots: view.exclude_bots ?? null,
    exclude_params: view.exclude_params ? [...view.exclude_params].sort() : null,
    exclude_ips: view.exclude_ips ? [...view.exclude_ips].sort() : null,
    favorite: view.favorite ?? null,
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}
