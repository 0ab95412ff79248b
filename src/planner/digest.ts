/**
 * "As approved": a short digest of each change a plan makes — its action, domain, id, and each
 * field it sends with the value as the plan shows it (a password by where it comes from, never its
 * value) — and of each account's changes, so that the plan a pull request showed can be told
 * from the plan apply makes after the merge. Pure: plans in, digests out.
 */
import { createHash } from 'node:crypto';
import { FIELD } from '../model/fields.js';
import type { AccountPlan, ApprovedAccount, ApprovedPlan, Change } from '../model/types.js';

const hash = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** 12 hex digits of what the change sends: equal for the same change, whichever run planned it. */
export function changeDigest(change: Change): string {
  const sent =
    change.action === 'delete'
      ? []
      : change.fields.map((field) => {
          if (field === 'password') return [field, change.password_from ?? '(sensitive)'];
          const value = change.after[field] ?? null;
          // Lists are sets: the same entries in another order send the same thing.
          return [field, FIELD[field].compare === 'set' && Array.isArray(value) ? [...value].sort() : value];
        });
  return hash(JSON.stringify([change.action, change.domain, change.id, sent]), 12);
}

/** 16 hex digits of an account's changes, in the plan's order. */
export function changesDigest(changes: readonly Change[]): string {
  return hash(changes.map(changeDigest).join(','), 16);
}

/**
 * What a plan approves: each account's changes by digest (each change listed while `listed` is
 * true), and the config files' SHA-256.
 */
export function approvedPlan(accounts: AccountPlan[], configSha256: string, listed = true): ApprovedPlan {
  return {
    version: 1,
    config_sha256: configSha256,
    accounts: accounts.map((a): ApprovedAccount => {
      const name = a.name || null;
      if (!a.plan) return { name, failed: true, count: 0, digest: changesDigest([]) };
      const changes = a.plan.changes;
      return {
        name,
        count: changes.length,
        digest: changesDigest(changes),
        ...(listed ? { changes: changes.map((c): [Change['action'], string, string] => [c.action, c.domain, changeDigest(c)]) } : {}),
      };
    }),
  };
}
