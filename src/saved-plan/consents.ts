/**
 * What a plan file asks beyond its config file. A plan file is data (an artifact another job
 * made): deletes of websites the file merely does not list (`--prune` where the config does not
 * prune) need `--prune` at apply too; a write-only value sent with no change of the file's own
 * (`--resend-write-only`, or "changed since --baseline", a claim about a file apply does not have
 * and cannot check) needs `--resend-write-only`.
 */
import { SitesyncError, UsageError } from '../messages/errors.js';
import type { Config, FieldName, WriteOnlyReason } from '../model/types.js';
import type { SavedChange, SavedPlan } from './file.js';

/**
 * The write-only fields a saved plan sends with no change of the file's own, as `domain\0field`
 * → why ('resend', or 'baseline': changed since a baseline apply does not have). Claims of the
 * plan file: apply sends them only with the apply command's consent (--resend-write-only).
 */
export function sentAgain(changes: readonly SavedChange[]): Map<string, WriteOnlyReason> {
  const reasons = new Map<string, WriteOnlyReason>();
  for (const change of changes) {
    for (const detail of change.details as unknown[]) {
      const d = detail as { field?: unknown; write_only?: unknown };
      if (typeof d?.field === 'string' && (d.write_only === 'baseline' || d.write_only === 'resend')) reasons.set(`${change.domain}\0${d.field}`, d.write_only);
    }
  }
  return reasons;
}

/** Why the saved plan sends each write-only field, per website: a plan made again sends them for the same reasons. */
export function savedReasons(changes: readonly SavedChange[]): (domain: string, field: FieldName) => WriteOnlyReason | undefined {
  const reasons = sentAgain(changes);
  return (domain, field) => reasons.get(`${domain}\0${field}`);
}

/** The consents apply PLANFILE was given. */
export interface Consents {
  prune?: boolean;
  resendWriteOnly?: boolean;
}

/** Refuses, before anything is read from a service, a plan file that asks what the apply command did not consent to, or a consent it does not need. */
export function assertConsents(saved: SavedPlan, configs: readonly Config[], file: string, given: Consents): void {
  const meta = saved.saved;
  const resent = new Set([...sentAgain(saved.changes).keys()].map((key) => key.split('\0')[0]!));
  const prunes = meta.prune && configs.some((c) => !c.prune);
  const asks: string[] = [];
  const why: string[] = [];
  if (prunes && !given.prune) {
    asks.push('--prune');
    why.push(`${file} was made with --prune, which the config file does not ask for`);
  }
  if (resent.size && !given.resendWriteOnly) {
    asks.push('--resend-write-only');
    const sites = [...resent];
    why.push(`${file} sends write-only values (passwords, lists the service does not show) that the config file does not change, to ${sites.length === 1 ? sites[0] : `${sites.length} websites (${sites.slice(0, 3).join(', ')}${sites.length > 3 ? ', …' : ''})`}`);
  }
  if (asks.length) {
    const error = new SitesyncError(`${why.join('; and ')}`, { nothingWritten: true });
    error.details = [`Review the plan (sitesync show ${file}), then apply it with ${asks.join(' ')} to confirm: sitesync apply ${asks.join(' ')} ${file}`];
    throw error;
  }
  const extra = [given.prune && !meta.prune ? '--prune' : '', given.resendWriteOnly && !resent.size ? '--resend-write-only' : ''].filter(Boolean);
  if (extra.length) {
    throw new UsageError(`${file} was made without ${extra.join(' and ')}: a saved plan is applied exactly as it was made, so ${extra.join(' and ')} cannot change it`);
  }
}
