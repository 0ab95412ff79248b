/**
 * The service's validation, per profile. `deployed` answers as the product's own code does:
 * the product's form requests put the field → messages object in `message` (no `errors`, no
 * summary), with the wording of its language file (Laravel 10: "The privacy field must be …"),
 * its own loose domain rule ("Invalid domain name.") and its password rules. `full` answers
 * Laravel's usual shape with the 9.x wording and a strict host-name rule.
 */
import { isValidHostname, MAX_DOMAIN, productDomainProblem } from '../model/domain.js';
import { MAX_PASSWORD } from '../model/password-rule.js';
import { phpTruthy, type Input, type InputValue } from './input.js';
import { normalizeDomain, type NewWebsite, type WebsiteChanges } from './store.js';
import { isDay, STAT_NAMES, type StatName } from './traffic.js';
import type { Profile } from './types.js';

export class ValidationErrors {
  readonly errors: Record<string, string[]> = {};
  private count = 0;

  constructor(readonly profile: Profile = 'full') {}

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
    this.count++;
  }

  /** "The privacy field must …" (deployed, Laravel 10) or "The privacy must …" (full, Laravel 9). */
  rule(field: string, rest: string): void {
    this.add(field, `The ${shown(field)}${this.profile === 'deployed' ? ' field' : ''} ${rest}`);
  }

  get empty(): boolean {
    return this.count === 0;
  }

  /** The 422 body: the product's own shape (deployed) or Laravel's with its summary (full). */
  body(): Record<string, unknown> {
    if (this.profile === 'deployed') return { message: this.errors, status: 422 };
    return { message: summarize(this.errors), errors: this.errors };
  }
}

/** "The first message (and N more errors)", counted over every message of every field. */
export function summarize(errors: Record<string, string[]>): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}

/** Laravel shows `exclude_bots` as "exclude bots". */
const shown = (field: string) => field.replace(/_/g, ' ');

/** Longest text fields (a MySQL TEXT column). */
export const MAX_TEXT = 65535;

/** PHP's FILTER_VALIDATE_INT, which Laravel's `integer` rule uses. */
function asInteger(value: InputValue): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (value === true) return 1;
  if (typeof value === 'string' && /^[+-]?(?:0|[1-9]\d{0,15})$/.test(value)) return Number(value);
  return undefined;
}

/** Characters as PHP's mb_strlen counts them. */
const length = (s: string) => [...s].length;

interface IntegerRule {
  min: number;
  max: number;
  nullable: boolean;
}

/** The typed value, null when allowed and sent empty, undefined when absent or invalid. */
function integerField(errors: ValidationErrors, input: Input, field: string, rule: IntegerRule): number | null | undefined {
  if (!input.has(field)) return undefined;
  const value = input.get(field)!;
  if (value === null && rule.nullable) return null;
  const n = value === null ? undefined : asInteger(value);
  if (n === undefined) {
    errors.rule(field, 'must be an integer.');
    return undefined;
  }
  if (n < rule.min || n > rule.max) {
    errors.rule(field, `must be between ${rule.min} and ${rule.max}.`);
    return undefined;
  }
  return n;
}

function stringField(errors: ValidationErrors, input: Input, field: string, max: number): string | null | undefined {
  if (!input.has(field)) return undefined;
  const value = input.get(field)!;
  if (value === null) return null;
  if (typeof value !== 'string') {
    errors.rule(field, 'must be a string.');
    return undefined;
  }
  if (length(value) > max) {
    errors.rule(field, `must not be greater than ${max} characters.`);
    return undefined;
  }
  return value;
}

const PRIVACY: IntegerRule = { min: 0, max: 2, nullable: true };
const EMAIL: IntegerRule = { min: 0, max: 1, nullable: true };
/** full: not nullable. deployed: the product's rule is `nullable`, so an empty value saves NULL (which its tracker reads as off). */
const EXCLUDE_BOTS: IntegerRule = { min: 0, max: 1, nullable: false };
const excludeBotsRule = (profile: Profile): IntegerRule => (profile === 'deployed' ? { ...EXCLUDE_BOTS, nullable: true } : EXCLUDE_BOTS);

export interface StoreChecks {
  profile: Profile;
  domainTaken(domain: string): boolean;
  /** The account already holds as many websites as its plan allows. */
  atLimit: boolean;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: ValidationErrors };

/**
 * The product's own domain rule (its ValidateDomainNameRule, read in its code): spaces,
 * underscores, a trailing dot, an IPv4 address and unicode in the labels before the last are
 * stored as given; a last label all digits or holding anything but letters, digits and `-`
 * (a port, a path) is refused, as is a name without a dot.
 */
export function looseDomainValid(domain: string): boolean {
  return productDomainProblem(domain) === undefined;
}

/** The fields of a new website, or every problem with the form. */
export function validateStore(input: Input, checks: StoreChecks): Checked<NewWebsite> {
  const { profile } = checks;
  const errors = new ValidationErrors(profile);

  const raw = input.get('domain');
  let domain = '';
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) {
    errors.add('domain', 'The domain field is required.');
  } else if (typeof raw !== 'string') {
    errors.rule('domain', 'must be a string.');
  } else {
    domain = normalizeDomain(raw, profile);
    if (domain === '') {
      errors.add('domain', 'The domain field is required.');
    } else {
      if (length(domain) > MAX_DOMAIN) errors.rule('domain', `must not be greater than ${MAX_DOMAIN} characters.`);
      if (profile === 'deployed') {
        if (!looseDomainValid(domain)) errors.add('domain', 'Invalid domain name.');
      } else if (!isValidHostname(domain)) {
        errors.add('domain', 'The domain must be a valid domain name.');
      }
      if (checks.domainTaken(domain)) errors.add('domain', 'The domain has already been taken.');
      if (checks.atLimit) errors.add('domain', 'You created too many websites.');
    }
  }

  const privacy = integerField(errors, input, 'privacy', PRIVACY);
  const password = passwordField(errors, input, privacySent(input) === 2);
  const email = integerField(errors, input, 'email', EMAIL);
  const excludeBots = integerField(errors, input, 'exclude_bots', excludeBotsRule(errors.profile));
  const excludeParams = stringField(errors, input, 'exclude_params', MAX_TEXT);
  const excludeIps = stringField(errors, input, 'exclude_ips', MAX_TEXT);
  if (!errors.empty) return { ok: false, errors };

  return {
    ok: true,
    value: {
      domain,
      // Left out, privacy and email are saved as null, and exclude_bots as 1 (service-behaviour.md);
      // exclude_bots sent empty (deployed) is saved as null.
      privacy: privacy ?? null,
      email: email ?? null,
      exclude_bots: excludeBots === undefined ? 1 : excludeBots,
      exclude_params: excludeParams ?? null,
      // Never validated beyond being a string: `office-router` or `192.168.1.*` are kept verbatim.
      exclude_ips: excludeIps ?? null,
      password: password ?? null,
      favorite: false,
    },
  };
}

/** The changes an update makes (favorite included), or every problem with the form. */
export function validateUpdate(
  input: Input,
  current: { password: string | null } | undefined,
  profile: Profile = 'full',
): Checked<WebsiteChanges> {
  const errors = new ValidationErrors(profile);
  const privacy = integerField(errors, input, 'privacy', PRIVACY);
  // full: turning privacy to 2 needs a password, unless the website keeps the one it has.
  // deployed: the product requires one on store only; an update to 2 without one is accepted.
  const needsPassword = profile === 'full' && privacySent(input) === 2 && (input.has('password') || !current?.password);
  const password = passwordField(errors, input, needsPassword, profile === 'deployed');
  const email = integerField(errors, input, 'email', EMAIL);
  const excludeBots = integerField(errors, input, 'exclude_bots', excludeBotsRule(errors.profile));
  const excludeParams = stringField(errors, input, 'exclude_params', MAX_TEXT);
  const excludeIps = stringField(errors, input, 'exclude_ips', MAX_TEXT);
  if (!errors.empty) return { ok: false, errors };

  const changes: WebsiteChanges = {};
  if (privacy !== undefined) changes.privacy = privacy;
  if (password !== undefined) changes.password = password;
  if (email !== undefined) changes.email = email;
  if (excludeBots !== undefined) changes.exclude_bots = excludeBots;
  if (excludeParams !== undefined) changes.exclude_params = excludeParams;
  if (excludeIps !== undefined) changes.exclude_ips = excludeIps;
  // Not validated: whatever PHP reads as true sets it, so "false" sets it too.
  if (input.has('favorite')) changes.favorite = phpTruthy(input.get('favorite'));
  return { ok: true, value: changes };
}

/** The privacy the request asks for, when it is a valid integer. */
function privacySent(input: Input): number | undefined {
  const value = input.get('privacy');
  return value === undefined || value === null ? undefined : asInteger(value);
}

/**
 * The password rules. An empty password not `required` is saved as null, except on a deployed
 * update (`emptyRefused`), where the product answers 422.
 */
function passwordField(
  errors: ValidationErrors,
  input: Input,
  required: boolean,
  emptyRefused = false,
): string | null | undefined {
  const deployed = errors.profile === 'deployed';
  const value = input.get('password');
  if (required && (value === undefined || value === null)) {
    errors.add('password', deployed ? 'The password field is required.' : 'The password field is required when privacy is 2.');
    return undefined;
  }
  if (value === undefined) return undefined;
  if (value === null) {
    if (!emptyRefused) return null;
    errors.rule('password', 'must be a string.');
    return undefined;
  }
  if (typeof value !== 'string') {
    errors.rule('password', 'must be a string.');
    return undefined;
  }
  const n = length(value);
  if (n < 1 || n > MAX_PASSWORD) {
    errors.rule('password', `must be between 1 and ${MAX_PASSWORD} characters.`);
    return undefined;
  }
  return value;
}

export type SortBy = 'id' | 'domain';

export interface ListQuery {
  search: string | null;
  searchBy: 'domain';
  /** null: no filter. */
  favorite: boolean | null;
  sortBy: SortBy;
  sort: 'asc' | 'desc';
  perPage: number;
  page: number;
}

const PER_PAGE = [10, 25, 50, 100];

/**
 * The list parameters. Deployed installs replace what they do not understand by the default;
 * `strict` (the full profile) refuses it with a 422 instead.
 */
export function readListQuery(input: Input, strict: boolean): Checked<ListQuery> {
  const errors = new ValidationErrors();
  const text = (name: string): string | null | undefined => {
    const v = input.get(name);
    if (v === undefined || v === null) return v;
    if (typeof v === 'string') return v;
    if (strict) errors.add(name, `The ${shown(name)} must be a string.`);
    return undefined;
  };
  const choice = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = text(name);
    if (v === undefined || v === null) return fallback;
    if ((allowed as readonly string[]).includes(v)) return v as T;
    if (strict) errors.add(name, `The selected ${shown(name)} is invalid.`);
    return fallback;
  };

  const search = text('search') ?? null;
  const searchBy = choice('search_by', ['domain'] as const, 'domain');
  const sortBy = choice('sort_by', ['id', 'domain'] as const, 'id');
  const sort = choice('sort', ['asc', 'desc'] as const, 'desc');

  let perPage = 10;
  const pp = text('per_page');
  if (pp !== undefined && pp !== null) {
    const n = /^\d+$/.test(pp) ? Number(pp) : NaN;
    if (PER_PAGE.includes(n)) perPage = n;
    else if (strict) errors.add('per_page', 'The selected per page is invalid.');
  }

  let favorite: boolean | null = null;
  const fav = text('favorite');
  if (fav !== undefined && fav !== null) {
    const f = fav.toLowerCase();
    if (f === '1') favorite = true;
    else if (f === '0') favorite = false;
    else if (strict && f === 'true') favorite = true;
    else if (strict && f === 'false') favorite = false;
    else if (strict) errors.add('favorite', 'The favorite field must be true or false.');
    // Deployed: the product compares with 0 and 1 only; `true`, `yes` … filter nothing.
  }

  // Laravel's paginator reads any page that is not an integer of at least 1 as page 1.
  let page = 1;
  const p = text('page');
  if (p !== undefined && p !== null) {
    const n = asInteger(p);
    if (n === undefined) {
      if (strict) errors.add('page', 'The page must be an integer.');
    } else if (n < 1) {
      if (strict) errors.add('page', 'The page must be at least 1.');
    } else {
      page = n;
    }
  }

  if (!errors.empty) return { ok: false, errors };
  return { ok: true, value: { search, searchBy, favorite, sortBy, sort, perPage, page } };
}

export interface StatsQuery {
  name: StatName;
  /** Inclusive days, `YYYY-MM-DD`. */
  from: string;
  to: string;
  search: string | null;
  sortBy: 'count' | 'value';
  sort: 'asc' | 'desc';
  perPage: number;
  page: number;
}

/**
 * The stats parameters. `name`, `from` and `to` are the product's rules (required, `in`,
 * `date_format:Y-m-d`), in its 422 shape and wording per profile; everything else falls back
 * to its default in both profiles, as the product's controller reads it.
 */
export function readStatsQuery(input: Input, profile: Profile): Checked<StatsQuery> {
  const errors = new ValidationErrors(profile);
  const required = (field: string): InputValue | undefined => {
    const v = input.get(field);
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) {
      errors.add(field, `The ${field} field is required.`);
      return undefined;
    }
    return v;
  };
  const day = (field: 'from' | 'to'): string | undefined => {
    const v = required(field);
    if (v === undefined) return undefined;
    if (typeof v === 'string' && isDay(v)) return v;
    // Laravel 10: "The from field must match …"; Laravel 9: "The from does not match …".
    errors.add(field, profile === 'deployed' ? `The ${field} field must match the format Y-m-d.` : `The ${field} does not match the format Y-m-d.`);
    return undefined;
  };

  const rawName = required('name');
  let name: StatName | undefined;
  if (rawName !== undefined) {
    if (typeof rawName === 'string' && (STAT_NAMES as readonly string[]).includes(rawName)) name = rawName as StatName;
    else errors.add('name', 'The selected name is invalid.');
  }
  const from = day('from');
  const to = day('to');
  if (!errors.empty || name === undefined || from === undefined || to === undefined) return { ok: false, errors };

  const text = (field: string): string | null => {
    const v = input.get(field);
    return typeof v === 'string' ? v : null;
  };
  const sortBy = text('sort_by') === 'value' ? 'value' : 'count';
  const sort = text('sort') === 'asc' ? 'asc' : 'desc';
  const pp = text('per_page');
  const perPage = pp !== null && /^\d+$/.test(pp) && PER_PAGE.includes(Number(pp)) ? Number(pp) : 10;
  const p = text('page');
  const n = p === null ? undefined : asInteger(p);
  const page = n !== undefined && n >= 1 ? n : 1;
  return { ok: true, value: { name, from, to, search: text('search'), sortBy, sort, perPage, page } };
}
