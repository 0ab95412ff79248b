/**
 * The "apply" step of a run: each account's own safety gate, then the accounts applied side by
 * side. An account refused by its gate is listed and not applied; the others go on.
 */
import { adviseTruly, executePlan, wentThrough } from './execute.js';
import { passwordsFrom, refusals, type Consents } from '../planner/gate.js';
import type { AccountOutcome, ChangeResult, DeleteChange, Move } from '../model/types.js';
import { goesFirst } from '../planner/moves.js';
import { archiverFor } from './archive.js';
import type { Context } from '../io/context.js';
import { eachAccount } from './per-installation.js';
import type { FailedAccount } from './failures.js';
import { failed, failureOf, type AccountPlanned, type PlannedAccount, type Run } from './open.js';

/** The gate's consents for an account of the run: no account's key, not only its own (each account's variable is another's secret). */
function consentsOf(run: Run, force: boolean): Consents {
  return { force, shownConfig: run.shown, isKey: (value) => run.accounts.some((o) => o.client.usesKey(value)) };
}

/** What the gate returns: every account, one it refused failed with the reason; and those that may be applied. */
export interface Gated {
  accounts: AccountPlanned[];
  ready: PlannedAccount[];
}

/**
 * Before any write: every planned account with changes must pass the gate (planner/gate.ts). One
 * that does not is failed with the reason.
 */
export function gateAccounts(run: Run, accounts: readonly AccountPlanned[], force: boolean, ctx: Pick<Context, 'secrets'>): Gated {
  const ready: PlannedAccount[] = [];
  const gated = accounts.map((a): AccountPlanned => {
    if (a.failure || a.plan.changes.length === 0) return a;
    const [refusal] = refusals(a.plan, a.config, consentsOf(run, force));
    if (refusal) return failed(a, refusal, ctx);
    ready.push(a);
    return a;
  });
  return { accounts: gated, ready };
}

/** The planned accounts that apply without --force would refuse, and why (`plan --fail-unsafe`). */
export function refusedAccounts(run: Run, accounts: readonly AccountPlanned[], ctx: Pick<Context, 'secrets'>): FailedAccount[] {
  return accounts.flatMap((a) => {
    if (!a.plan || a.failure) return [];
    const [refusal] = refusals(a.plan, a.config, consentsOf(run, false));
    return refusal ? [{ name: a.name, failure: failureOf(refusal, ctx), error: refusal }] : [];
  });
}

export interface ApplyOptions {
  parallelism: number;
  signal: AbortSignal;
  /** The user's folder, where archives are shown from. */
  cwd: string;
  /** Each change's result as it completes, with the counts across every account. */
  onResult?: (account: PlannedAccount, result: ChangeResult, counts: { done: number; failed: number; total: number }) => void;
  /** An archive before a delete, as it is read: pages read of the pages known. */
  onArchiveProgress?: (account: PlannedAccount, change: DeleteChange, read: number, estimate: number) => void;
}

/**
 * Applies the plans of `ready` (installations side by side); one outcome per account of the run
 * (`accounts`, as the gate returned them),
 * in the file's order: applied, failed (and why), or with nothing to apply (neither). Writes go
 * in the order the product counts them, per installation across accounts: first the deletes that
 * make room (planner/moves.ts) in every account, then the rest; a move's create is sent only once
 * its delete in the other account went through.
 */
export async function applyAccounts(run: Run, { accounts, ready }: Gated, options: ApplyOptions, ctx: Pick<Context, 'secrets'>): Promise<AccountOutcome[]> {
  const counts = { done: 0, failed: 0, total: ready.reduce((n, a) => n + a.plan.changes.length, 0) };
  const deleted = new Map<string, ChangeResult>();
  const installationOf = (a: PlannedAccount) => a.connection.installation;
  const round = (first: boolean) =>
    eachAccount(ready, installationOf, (a) => {
      const plan = { ...a.plan, changes: a.plan.changes.filter((c) => goesFirst(a.plan, c) === first) };
      return executePlan(plan, a.client, {
        parallelism: options.parallelism,
        passwordFor: passwordsFrom(a.plan, a.config, run.shown),
        signal: options.signal,
        archive: archiverFor(a.client, {
          config: a.config,
          baseUrl: a.connection.baseUrl,
          account: a.account,
          configAccount: run.named ? a.name : null,
          live: a.live,
          cwd: options.cwd,
          onProgress: (change, read, estimate) => options.onArchiveProgress?.(a, change, read, estimate),
        }),
        hold: (change) => (change.action === 'create' && change.move ? heldMove(change.move, deleted.get(moveKey(installationOf(a), change.move.from, change.domain))) : undefined),
        onResult: (result) => {
          if (result.status === 'failed') counts.failed++;
          else counts.done++;
          if (result.change.action === 'delete') deleted.set(moveKey(installationOf(a), a.name, result.change.domain), result);
          options.onResult?.(a, result, counts);
        },
      });
    });
  const firsts = await round(true);
  const rests = await round(false);
  const outcomes = new Map<AccountPlanned, AccountOutcome>();
  for (const [i, a] of ready.entries()) {
    const first = firsts[i]!;
    const rest = rests[i]!;
    if (!first.ok || !rest.ok) {
      outcomes.set(a, { name: a.name, failure: failureOf(first.ok ? (rest as { error: unknown }).error : first.error, ctx) });
      continue;
    }
    const byChange = new Map([...first.value.results, ...rest.value.results].map((r) => [r.change, r]));
    const results = adviseTruly(a.plan, a.plan.changes.map((c) => byChange.get(c)!));
    outcomes.set(a, { name: a.name, outcome: { results, interrupted: first.value.interrupted || rest.value.interrupted } });
  }
  return outcomesOf(run, accounts, outcomes);
}

function moveKey(installation: string, account: string, domain: string): string {
  return JSON.stringify([installation, account, domain]);
}

/** Why a move's create is not sent: its delete in the other account did not go through (the domain is still taken there). */
function heldMove(move: Move, deleted: ChangeResult | undefined): string | undefined {
  if (wentThrough(deleted)) return undefined;
  const why = deleted ? `its delete there failed` : `its delete there was not sent`;
  return `not sent: it moves from ${move.from}, and ${why}, so the domain is still taken; apply again once ${move.from} deletes it`;
}

/** Every account of the run (`accounts`, as a step returned them) as an outcome, in the file's order: `applied`'s, else its failure, else nothing to apply. */
export function outcomesOf(run: Run, accounts: readonly AccountPlanned[], applied: ReadonlyMap<AccountPlanned, AccountOutcome> = new Map()): AccountOutcome[] {
  const order = (name: string) => run.workspace.configs.findIndex((c) => (c.account?.name ?? '') === name);
  return [
    ...accounts.map((a) => applied.get(a) ?? (a.failure ? { name: a.name, failure: a.failure } : { name: a.name })),
    ...run.skipped.map((a) => ({ name: a.name, failure: a.failure })),
  ].sort((a, b) => order(a.name) - order(b.name));
}
