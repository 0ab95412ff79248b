/**
 * Runs a plan against the service: independent changes with bounded parallelism, every result
 * recorded, a failure never stopping the others. Stops starting new changes when the signal
 * aborts (Ctrl-C) and lets those in flight finish.
 */
import pLimit from 'p-limit';
import { HistoryShrunkError, SitesyncError } from '../messages/errors.js';
import type { Change, ChangeResult, DeleteChange, ExecuteResult, Plan } from '../model/types.js';
import { assertNoKeyAsPassword } from '../planner/gate.js';
import { atLimit, goesFirst } from '../planner/moves.js';
import type { ServiceClient } from '../service/client.js';
import { ApiError } from '../service/errors.js';

export interface ExecuteOptions {
  parallelism: number;
  /**
   * The password a change of this website sends, resolved from the config file's `${NAME}`.
   * Keyed by domain, not by change object: a copied plan finds its passwords all the same.
   */
  passwordFor: (domain: string) => string | undefined;
  signal?: AbortSignal;
  onResult?: (result: ChangeResult, counts: { done: number; failed: number; total: number }) => void;
  /**
   * Archives the history of a website the plan archives first (`change.archive`); the delete is
   * sent only once it resolves (to the archive's file, as shown). A throw fails the change with
   * its message, and nothing is sent for it. Without it, such a delete fails unsent.
   */
  archive?: (change: DeleteChange) => Promise<string>;
  /** Why a change is not sent at all, beyond what it holds itself (`held`): a move's create whose delete did not go through; it fails with that reason. */
  hold?: (change: Change) => string | undefined;
}

/** Shown when a change sends a password and none resolves: it fails, nothing is sent for it. */
export const NO_PASSWORD = 'it sends a password, but no value for it resolved from the config file; nothing was sent for it';

export async function executePlan(plan: Plan, client: ServiceClient, options: ExecuteOptions): Promise<ExecuteResult> {
  assertNoKeyAsPassword(plan, (value) => client.usesKey(value), options.passwordFor);
  const limit = pLimit(Math.max(1, options.parallelism));
  const counts = { done: 0, failed: 0, total: plan.changes.length };
  const run = (change: Change) =>
    limit(async (): Promise<ChangeResult> => {
      if (options.signal?.aborted) return { change, status: 'skipped', ms: 0 };
      const started = Date.now();
      let result: ChangeResult;
      const held = (change.action === 'delete' ? change.held : undefined) ?? options.hold?.(change);
      const password = change.fields.includes('password') ? options.passwordFor(change.domain) : undefined;
      if (held !== undefined || (change.fields.includes('password') && password === undefined)) {
        // Sending the change without it would store the website without the password it was planned with.
        result = { change, status: 'failed', error: held ?? NO_PASSWORD, ms: 0 };
        counts.failed++;
        options.onResult?.(result, counts);
        return result;
      }
      try {
        const outcome = await applyChange(change, client, password, options.archive);
        // Interrupted while its archive was read: no delete was sent, as if it had not started.
        if (outcome.status === 'skipped') return { change, status: 'skipped', ms: Date.now() - started };
        result = { change, status: outcome.status, ms: Date.now() - started, ...(outcome.note ? { note: outcome.note } : {}), ...(outcome.archive ? { archive: outcome.archive } : {}) };
        counts.done++;
      } catch (error) {
        result = { change, status: 'failed', error: messageOf(error), ms: Date.now() - started };
        if (error instanceof ApiError && error.refused) result.refused = true;
        counts.failed++;
      }
      options.onResult?.(result, counts);
      return result;
    });
  // The deletes that make room go first (planner/moves.ts): the product counts before it stores.
  const first = await Promise.all(plan.changes.filter((c) => goesFirst(plan, c)).map(run));
  const rest = await Promise.all(plan.changes.filter((c) => !goesFirst(plan, c)).map(run));
  const byChange = new Map([...first, ...rest].map((r) => [r.change, r]));
  const results = adviseTruly(plan, plan.changes.map((c) => byChange.get(c)!));
  return { results, interrupted: Boolean(options.signal?.aborted) && results.some((r) => r.status === 'skipped') };
}

/**
 * "Applying again as is fails the same way" only where it would: at the website limit, a create
 * the service refused while a delete that makes room did not go through may go once it does.
 */
export function adviseTruly(plan: Plan, results: ChangeResult[]): ChangeResult[] {
  const roomLeft = atLimit(plan) && results.some((r) => r.change.action === 'delete' && !wentThrough(r));
  if (!roomLeft) return results;
  return results.map((r) => {
    if (r.change.action !== 'create' || !r.refused) return r;
    const { refused: _refused, ...mayGo } = r;
    return mayGo;
  });
}

/** A delete that left the website gone, by this run or another. */
export function wentThrough(result: ChangeResult | undefined): boolean {
  return result?.status === 'done' || result?.status === 'gone';
}

async function applyChange(
  change: Change,
  client: ServiceClient,
  password: string | undefined,
  archive: ExecuteOptions['archive'],
): Promise<Outcome> {
  switch (change.action) {
    case 'create': {
      const { website, recovered } = await client.storeWebsite(change.domain, change.after, change.fields, password);
      return recovered ? { status: 'done', note: `the store's answer was lost; found it stored (id ${website.id})` } : { status: 'done' };
    }
    case 'update':
      await client.changeWebsite(change.id, change.domain, change.after, change.fields, password);
      return { status: 'done' };
    case 'delete':
      // Believed gone when planned (404 on its stats and on its record): not deleted again. A
      // service that answered 404 for a moment must not get a delete that retire: never allowed;
      // if the website is still there, the next plan lists it and shows the delete again.
      if (change.gone) return { status: 'gone', note: 'already gone when planned (the service answered 404 for it): not deleted again' };
      return deleteArchived(change, client, archive);
  }
}

/** What a change did: its status, a note for its line, the archive written before it. */
interface Outcome {
  /** `skipped`: interrupted before anything was sent. */
  status: 'done' | 'gone' | 'skipped';
  note?: string;
  archive?: string;
}

/** A delete, after its archive where the plan archives it first: no archive written, no delete sent. */
async function deleteArchived(change: DeleteChange, client: ServiceClient, archive: ExecuteOptions['archive']): Promise<Outcome> {
  let written: string | undefined;
  if (change.archive !== undefined) {
    if (!archive) throw new SitesyncError('not deleted: the plan archives its history first, and this apply writes no archives');
    try {
      written = await archive(change);
    } catch (error) {
      if (error instanceof SitesyncError && error.name === 'InterruptedError') return { status: 'skipped' };
      // Its own words: the archive was read whole, and found less than the plan showed.
      if (error instanceof HistoryShrunkError) throw error;
      throw new SitesyncError(`not deleted: its history could not be archived: ${messageOf(error)}`);
    }
  }
  const kept = written ? { archive: written } : {};
  // 404 on the first attempt: someone else (another run) deleted it; this run did not.
  return (await client.deleteWebsite(change.id, change.domain))
    ? { status: 'done', ...(written ? { note: `archived first: ${written}` } : {}), ...kept }
    : { status: 'gone', note: `already gone: deleted elsewhere since the plan was made${written ? `; archived first: ${written}` : ''}`, ...kept };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
