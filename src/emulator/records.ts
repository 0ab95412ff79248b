/**
 * How records and bodies look on the wire, per profile: `deployed` as live installs answer
 * (no `exclude_params`, a `status` beside the data), `full` with every field and no `status`.
 * The record-level faults (old versions, string integers, CRLF lists) are applied here too.
 */
import { createHash } from 'node:crypto';
import type { Input, InputValue } from './input.js';
import type { AccountRecord, WebsiteRow } from './store.js';
import type { Faults, PlanFeatures, Profile } from './types.js';

export interface Presenter {
  profile: Profile;
  faults: Faults;
}

/** Adds `"status": code` in the deployed profile only. */
export function withStatus(p: Presenter, body: Record<string, unknown>, status: number): Record<string, unknown> {
  return p.profile === 'deployed' ? { ...body, status } : body;
}

/**
 * The stored row as the product's model serializes it: the password only as whether one is set,
 * and `exclude_params` only where the model shows it (the full profile).
 */
function modelRecord(row: WebsiteRow, withParams: boolean): Record<string, unknown> {
  return {
    id: row.id,
    domain: row.domain,
    privacy: row.privacy,
    email: row.email,
    // `$this->password ? true : false`: PHP reads "0" as false, so a stored "0" shows as no password.
    password: row.password !== null && row.password !== '' && row.password !== '0',
    exclude_bots: row.exclude_bots,
    ...(withParams ? { exclude_params: row.exclude_params } : {}),
    exclude_ips: row.exclude_ips,
    favorite: row.favorite,
    favorited_at: row.favorited_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function websiteRecord(p: Presenter, row: WebsiteRow): Record<string, unknown> {
  const record = modelRecord(row, p.profile === 'full');
  // The product's show and list give the database's own format ("2026-11-22 22:08:58").
  if (p.profile === 'deployed') record.favorited_at = databaseTime(row.favorited_at);
  return applyFaults(p.faults, record);
}

/** `2026-11-22T22:08:58.958582Z` → `2026-11-22 22:08:58`, as a DATETIME column reads back. */
export function databaseTime(iso: string | null): string | null {
  return iso === null ? null : iso.slice(0, 19).replace('T', ' ');
}

/** The fields a deployed store or update answer echoes as the form sent them. */
const ECHOED = ['privacy', 'email', 'exclude_bots', 'exclude_ips'] as const;

/**
 * A deployed update answer: the model after `fill($request)`, so the fields the form sent are
 * the form's values as sent (`"privacy": "1"`), the others as stored, and `favorited_at` in
 * Laravel's JSON form (ISO with microseconds), as the model was just saved.
 */
export function updateEcho(p: Presenter, row: WebsiteRow, input: Input): Record<string, unknown> {
  const record = modelRecord(row, false);
  for (const field of ECHOED) {
    const sent = input.get(field);
    if (sent !== undefined) record[field] = sent;
  }
  return applyFaults(p.faults, record);
}

/**
 * A deployed store answer: the Eloquent model as just saved, i.e. the form values as sent
 * (strings stay strings) and null for the fields left out, even those the database then
 * fills with a default. The stored row itself is typed.
 */
export function storeEcho(p: Presenter, row: WebsiteRow, input: Input): Record<string, unknown> {
  const record = modelRecord(row, false);
  for (const field of ECHOED) {
    const sent: InputValue | undefined = input.get(field);
    record[field] = sent === undefined ? null : sent;
  }
  return applyFaults(p.faults, record);
}

function applyFaults(faults: Faults, record: Record<string, unknown>): Record<string, unknown> {
  if (faults.stringInts) {
    for (const field of ['privacy', 'email', 'exclude_bots']) {
      if (typeof record[field] === 'number') record[field] = String(record[field]);
    }
  }
  if (faults.crlfLists) {
    for (const field of ['exclude_params', 'exclude_ips']) {
      const v = record[field];
      if (typeof v === 'string' && v !== '') {
        const [first = '', ...rest] = v.split(/\r?\n/);
        record[field] = [first, '', ...rest].join('\r\n') + '\r\n';
      }
    }
  }
  for (const field of faults.omitFields ?? []) delete record[field];
  return record;
}

export function accountRecord(account: AccountRecord, websiteLimit: number, plan: PlanFeatures): Record<string, unknown> {
  const digest = createHash('md5').update(account.email.trim().toLowerCase()).digest('hex');
  return {
    id: account.id,
    name: account.name,
    email: account.email,
    avatar_url: `https://www.gravatar.com/avatar/${digest}?s=128&d=identicon`,
    locale: 'en',
    timezone: 'UTC',
    plan: {
      id: 1,
      name: websiteLimit === -1 ? 'Unlimited' : `Up to ${websiteLimit} websites`,
      features: {
        api: account.apiAccess,
        websites: websiteLimit,
        pageviews: plan.pageviews,
        email_reports: plan.emailReports,
        data_export: true,
      },
    },
    created_at: account.created_at,
  };
}
