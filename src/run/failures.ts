/**
 * The one rule for what a command says when accounts of its run fail. A single-account file's
 * account is unnamed: its failure is the command's own error, thrown as it was. Named accounts
 * (an `accounts:` file): one error whose headline counts them ("2 of 3 accounts could not be
 * read") and whose details name each account and its reason, so that the others' work is still
 * shown or done where the command allows it.
 */
import { SitesyncError, type SitesyncErrorOptions } from '../messages/errors.js';
import type { Failure } from '../model/types.js';
import { howMany } from '../render/counts.js';
import type { Run } from './open.js';

/** An account that failed, and why; `error` is what was thrown, where there is one. */
export interface FailedAccount {
  name: string;
  failure: Failure;
  error?: unknown;
}

/** Of the run's `accounts` as a step returned them, those that failed (read, planned, gated), those not connected included, in the file's order. */
export function failedAccounts(run: Run, accounts: readonly Partial<FailedAccount>[]): FailedAccount[] {
  const order = (name: string) => run.workspace.configs.findIndex((c) => (c.account?.name ?? '') === name);
  return [
    ...accounts.flatMap((a) => (a.failure ? [{ name: a.name ?? '', failure: a.failure, error: a.error }] : [])),
    ...run.skipped.map((a) => ({ name: a.name, failure: a.failure })),
  ].sort((a, b) => order(a.name) - order(b.name));
}

/**
 * The command's error for `failed` accounts of a run of `of`, or undefined when none failed. A
 * lone unnamed account: its own error. Named: `headline(howMany(…))` ends the first line, each
 * account is a detail with its reason's lines indented; `options` are the named accounts' error's.
 */
export function accountsError(failed: readonly FailedAccount[], of: number, headline: (howMany: string) => string, options?: SitesyncErrorOptions): unknown {
  if (failed.length === 0) return undefined;
  const lone = failed.length === 1 && failed[0]!.name === '' ? failed[0]! : undefined;
  if (lone) return lone.error ?? Object.assign(new SitesyncError(lone.failure.message), { details: [...lone.failure.details] });
  const error = new SitesyncError(headline(howMany(failed.length, of)), options);
  error.details = failed.flatMap((a) => [`${a.name}: ${a.failure.message}`, ...a.failure.details.map((d) => `  ${d}`)]);
  return error;
}

/**
 * The one decision of a single-account run: its account's failure (as a step returned it in
 * `accounts`, or `also` found by the command) is the command's error, thrown as it was. A run of
 * named accounts goes on, showing each account's failure where the command shows that account.
 */
export function throwIfLoneFailed(run: Run, accounts: readonly Partial<FailedAccount>[], also: readonly FailedAccount[] = []): void {
  if (run.named) return;
  const lone = [...failedAccounts(run, accounts), ...also][0];
  if (lone) throw accountsError([lone], 1, () => '');
}
