/**
 * The "apply" step of a run: each account's own safety gate, then the accounts applied side by
 * side. An account refused by its gate is listed and not applied; the others go on.
 */
import { assertNoKeyAsPassword, executePlan, passwordsFrom } from './execute.js';
import type { AccountOutcome, ChangeResult } from '../model/types.js';
import { assertSafe } from '../planner/safety.js';
import type { Context } from '../io/terminal.js';
import { eachAccount } from './each.js';
import { fail, failureOf, type Run, type RunAccount } from './open.js';

/**
 * Before any write: every planned account with changes must pass its own checks (thresholds,
 * the website limit, a password for each one sent, none that is the key). One that does not is
 * failed with the reason. Returns the accounts that may be applied.
 */
export function gateAccounts(run: Run, force: boolean, ctx: Pick<Context, 'secrets'>): RunAccount[] {
  const ready: RunAccount[] = [];
  for (const a of run.accounts) {
    if (!a.plan || a.failure || a.plan.changes.length === 0) continue;
    try {
      assertSafe(a.plan, force);
      // No account's key, not only its own: each account's variable is another's secret.
      assertNoKeyAsPassword(a.plan, (value) => run.accounts.some((o) => o.client.usesKey(value)), passwordsFrom(a.plan, a.config, run.shown));
      ready.push(a);
    } catch (error) {
      fail(a, error, ctx);
    }
  }
  return ready;
}

export interface ApplyOptions {
  parallelism: number;
  signal: AbortSignal;
  /** Each change's result as it completes, with the counts across every account. */
  onResult?: (account: RunAccount, result: ChangeResult, counts: { done: number; failed: number; total: number }) => void;
}

/** Applies the plans of `ready` (installations side by side); one outcome per account of the run that has something to say. */
export async function applyAccounts(run: Run, ready: RunAccount[], options: ApplyOptions, ctx: Pick<Context, 'secrets'>): Promise<AccountOutcome[]> {
  const counts = { done: 0, failed: 0, total: ready.reduce((n, a) => n + a.plan!.changes.length, 0) };
  const applied = await eachAccount(
    ready,
    (a) => a.connection.installation,
    (a) =>
      executePlan(a.plan!, a.client, {
        parallelism: options.parallelism,
        passwordFor: passwordsFrom(a.plan!, a.config, run.shown),
        signal: options.signal,
        onResult: (result) => {
          if (result.status === 'failed') counts.failed++;
          else counts.done++;
          options.onResult?.(a, result, counts);
        },
      }),
  );
  const outcomes = new Map<RunAccount, AccountOutcome>();
  for (const o of applied) {
    outcomes.set(o.item, o.ok ? { name: o.item.name, outcome: o.value } : { name: o.item.name, failure: failureOf(o.error, ctx) });
  }
  for (const a of run.accounts) if (a.failure && !outcomes.has(a)) outcomes.set(a, { name: a.name, failure: a.failure });
  const skipped = run.skipped.map((a) => ({ name: a.name, failure: a.failure }));
  return [...run.accounts.flatMap((a) => (outcomes.has(a) ? [outcomes.get(a)!] : [])), ...skipped];
}
