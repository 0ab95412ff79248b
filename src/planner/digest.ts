/**
 * "As approved": a short digest of each change a plan makes — its action, domain, id, and each
 * field it sends with the value as the plan shows it (a password by where it comes from, never its
 * value), or for a delete whether its history is archived first and whether it is retired — and
 * of each account's changes, so that the plan a pull request showed can be told from the plan
 * apply makes after the merge. Pure: plans in, digests out.
 */
import { createHash } from 'node:crypto';
import { FIELD } from '../model/fields.js';
import type { Change } from '../model/types.js';

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
  // A delete says whether its history is archived first (the same delete without the archive the
  // approved plan showed destroys what it kept; see unarchived) and whether retire: lets it
  // destroy recent history (a plan that said apply would refuse it approved no such delete).
  const how = change.action === 'delete' ? [...(change.archive !== undefined ? ['archived first'] : []), ...(change.retired ? ['retired'] : [])] : [];
  return hash(JSON.stringify([change.action, change.domain, change.id, sent, ...how]), 12);
}

/**
 * The change as it would be without its archive: what a plan that did not archive it approved.
 * Applying more safely than approved (an archive the approved plan did not make, `apply --archive
 * DIR`) is still as approved; the other way round is not.
 */
export function unarchived(change: Change): Change | undefined {
  if (change.action !== 'delete' || change.archive === undefined) return undefined;
  const { archive: _archive, ...rest } = change;
  return rest;
}

/** 16 hex digits of an account's changes, in the plan's order (see changeDigest). */
export function changesDigest(changes: readonly Change[]): string {
  return hash(changes.map(changeDigest).join(','), 16);
}
