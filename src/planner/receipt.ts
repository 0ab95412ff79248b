/**
 * A plan's receipt, and the one comparison of two of them. A receipt is what a reviewed plan
 * promised: the config files' SHA-256, each account's changes by digest (digest.ts) and, where it
 * was recorded, what each change saw at the service (the website's fingerprint, and for a delete
 * whether it was quiet). A saved plan (`plan --out`) records all of it; an approved plan comment's
 * hidden block records the digests alone. apply plans again and compares the receipt with the plan
 * made now: each change that departs is named, with its cause — the service moved since (what the
 * change saw is not what is there now), or the plan is not the one this config makes. Pure.
 */
import type { AccountPlan, Action, ApprovalCheck, ApprovalDifference, ApprovedPlan, Change, DeleteChange, LiveWebsite, Plan } from '../model/types.js';
import { changeDigest, changesDigest, unarchived } from './digest.js';
import { fingerprint, liveView } from './values.js';

/** One change of a receipt. */
export interface ReceiptChange {
  action: Action;
  domain: string;
  digest: string;
  /** The change itself, where the receipt holds it (a saved plan): what it saw at the service, for naming what moved. */
  change?: Change;
}

export interface ReceiptAccount {
  /** '' for the one account of a single-account file. */
  name: string;
  /** The account could not be planned then. */
  failed?: true;
  count: number;
  digest: string;
  /** Each change; left out of an approved block too large to list them. */
  changes?: ReceiptChange[];
}

export interface Receipt {
  config_sha256: string;
  accounts: ReceiptAccount[];
}

/** The receipt of plans made now (or saved): every change listed, each with what it saw. */
export function receiptOf(accounts: readonly AccountPlan[], configSha256: string): Receipt {
  return {
    config_sha256: configSha256,
    accounts: accounts.map((a): ReceiptAccount => {
      if (!a.plan) return { name: a.name, failed: true, count: 0, digest: changesDigest([]) };
      const changes = a.plan.changes;
      return { name: a.name, count: changes.length, digest: changesDigest(changes), changes: changes.map((c) => ({ action: c.action, domain: c.domain, digest: changeDigest(c), change: c })) };
    }),
  };
}

/** The receipt an approved plan comment's block holds: digests, and nothing of what each change saw. */
export function receiptOfBlock(block: ApprovedPlan): Receipt {
  return {
    config_sha256: block.config_sha256,
    accounts: block.accounts.map((a) => ({
      name: a.name ?? '',
      ...(a.failed ? { failed: true as const } : {}),
      count: a.count,
      digest: a.digest,
      ...(a.changes ? { changes: a.changes.map(([action, domain, digest]) => ({ action, domain, digest })) } : {}),
    })),
  };
}

/** The approved block of a receipt (render/markdown.ts writes it into a plan comment): each change listed while `listed`. */
export function blockOf(receipt: Receipt, listed = true): ApprovedPlan {
  return {
    version: 1,
    config_sha256: receipt.config_sha256,
    accounts: receipt.accounts.map((a) => ({
      name: a.name || null,
      ...(a.failed ? { failed: true as const } : {}),
      count: a.count,
      digest: a.digest,
      ...(listed && a.changes ? { changes: a.changes.map((c): [Action, string, string] => [c.action, c.domain, c.digest]) } : {}),
    })),
  };
}

/** An account as planned now: its plan (or why there is none), and the websites read from the service. */
export interface PlannedNow {
  name: string;
  plan?: Plan;
  failure?: { message: string };
  /** The websites read now (all of them, or those a saved plan touches). */
  live?: readonly LiveWebsite[];
}

/**
 * How the service moved under a change since it was planned: a website to create that exists now,
 * one to update or delete that is gone or is not as the change saw it, or a quiet website to
 * delete that has had traffic since (`now`: its delete planned now).
 */
export type Moved =
  | { kind: 'exists'; live: LiveWebsite }
  | { kind: 'gone' }
  | { kind: 'changed'; live: LiveWebsite }
  | { kind: 'active'; now: DeleteChange };

/** A change of either receipt that the other does not hold as it is. */
export interface Departure extends ApprovalDifference {
  /** Why: the service moved since (stale), or the plan is not what this config makes now. */
  cause: 'service' | 'config';
  /** The receipt's change (where the receipt holds it) and the change planned now. */
  then?: ReceiptChange;
  now?: Change;
  moved?: Moved;
}

/**
 * The one comparison: each change planned now that the receipt does not hold (added), each it
 * holds that is not planned now (missing), each planned otherwise or whose website moved at the
 * service (different). A receipt that records what its changes saw names the cause of each; one
 * that does not (an approved block) is "config" when the config files are not those it was made
 * from, else "service".
 */
export function compareReceipts(then: Receipt, now: readonly PlannedNow[], configSha256: string): Departure[] {
  const unseenCause = then.config_sha256 !== configSha256 ? 'config' : 'service';
  const out: Departure[] = [];
  const thenByName = new Map(then.accounts.map((a) => [a.name, a]));
  for (const a of now) {
    const was = thenByName.get(a.name);
    thenByName.delete(a.name);
    out.push(...accountDepartures(a, was, unseenCause));
  }
  // Accounts of the receipt this run does not plan: what they promised is not applied.
  for (const [name, was] of thenByName) if (was.count > 0) out.push(...missingOf(name, was, 'the account is not in this run', unseenCause));
  return out;
}

/**
 * The plan apply runs compared with the approved plan: the one comparison of receipts
 * (planner/receipt.ts), the block's receipt against the plans made now. Why they differ: the
 * config files are not those the approved plan was made from (merged without a new plan), else
 * the service changed since.
 */
export function compareApproved(approved: ApprovedPlan | string, accounts: readonly AccountPlan[], configSha256: string, shown: string): ApprovalCheck {
  const count = accounts.reduce((n, a) => n + (a.plan?.changes.length ?? 0), 0);
  if (typeof approved === 'string') return { file: shown, unavailable: approved, count, differences: [] };
  const departures = compareReceipts(receiptOfBlock(approved), accounts, configSha256);
  const differences = departures.map(({ account, kind, change, note }): ApprovalDifference => ({ account, kind, ...(change ? { change } : {}), ...(note !== undefined ? { note } : {}) }));
  const why = departures[0]?.cause === 'config' ? 'merged without a new plan' : 'changed at the service since the plan';
  return { file: shown, count, differences, ...(differences.length ? { why } : {}) };
}

function accountDepartures(a: PlannedNow, was: ReceiptAccount | undefined, unseenCause: Departure['cause']): Departure[] {
  const account = a.name;
  if (!a.plan) return was && was.count > 0 ? missingOf(account, was, `not planned now: ${a.failure?.message ?? 'failed'}`, unseenCause) : [];
  const changes = a.plan.changes;
  const added = (c: Change): Departure => ({ account, kind: 'added', change: named(c), now: c, cause: was?.changes?.some((r) => r.change) ? 'config' : unseenCause });
  if (!was || was.failed) return changes.map(added);
  if (!was.changes) {
    // A block too large to list each change: the account's digest alone.
    if (changesDigest(changes) === was.digest || changesDigest(changes.map((c) => unarchived(c) ?? c)) === was.digest) return [];
    return [{ account, kind: 'different', note: `${changes.length} changes planned now, ${was.count} approved (the approved plan was too large to list them one by one)`, cause: unseenCause }];
  }
  const nowByDomain = new Map<string, Change>();
  for (const c of changes) if (!nowByDomain.has(c.domain)) nowByDomain.set(c.domain, c);
  const live = sightOf(a.live ?? []);
  const out: Departure[] = [];
  const matched = new Set<Change>();
  for (const r of was.changes) {
    const c = nowByDomain.get(r.domain);
    const fresh = c && !matched.has(c) ? c : undefined;
    if (fresh) matched.add(fresh);
    const moved = r.change ? movedUnder(r.change, fresh, live) : undefined;
    const cause = moved ? 'service' : r.change ? 'config' : unseenCause;
    if (!fresh) out.push({ account, kind: 'missing', change: { action: r.action, domain: r.domain }, then: r, cause, ...(moved ? { moved } : {}) });
    else if (moved || !approves(r.digest, fresh)) {
      out.push({ account, kind: 'different', change: named(fresh), then: r, now: fresh, cause, ...(moved ? { moved } : {}) });
    }
  }
  // Planned now, not in the receipt: listed where the plan orders them, before what is missing.
  const extra = changes.filter((c) => !matched.has(c)).map(added);
  const different = out.filter((d) => d.kind === 'different');
  const missing = out.filter((d) => d.kind === 'missing');
  return [...interleave(changes, different, extra), ...missing];
}

/** The differing and added changes in the order the plan made now lists them. */
function interleave(changes: readonly Change[], different: Departure[], added: Departure[]): Departure[] {
  const all = [...different, ...added];
  return changes.flatMap((c) => all.filter((d) => d.now === c));
}

const named = (c: Change) => ({ action: c.action, domain: c.domain, id: c.id });

/** Whether a receipt's digest is the change's: as planned now, or (a delete archived now) as a plan that did not archive it. */
function approves(digest: string, change: Change): boolean {
  const without = unarchived(change);
  return digest === changeDigest(change) || (without !== undefined && digest === changeDigest(without));
}

/** A receipt's account whose changes will not be applied, one by one where it lists them. */
function missingOf(account: string, was: ReceiptAccount, note: string, cause: Departure['cause']): Departure[] {
  if (!was.changes) return [{ account, kind: 'missing', note: `${was.count} approved changes: ${note}`, cause }];
  return was.changes.map((r) => ({ account, kind: 'missing', change: { action: r.action, domain: r.domain }, note, then: r, cause }));
}

interface Sight {
  byId: Map<number, LiveWebsite>;
  byDomain: Map<string, LiveWebsite>;
}

function sightOf(live: readonly LiveWebsite[]): Sight {
  const sight: Sight = { byId: new Map(), byDomain: new Map() };
  for (const site of live) {
    sight.byId.set(site.id, site);
    if (!sight.byDomain.has(site.domain)) sight.byDomain.set(site.domain, site);
  }
  return sight;
}

/** How the service moved under a change since it was planned; undefined when it still holds. */
export function movedUnder(change: Change, fresh: Change | undefined, live: Sight): Moved | undefined {
  if (change.action === 'create') {
    const existing = live.byDomain.get(change.domain);
    return existing ? { kind: 'exists', live: existing } : undefined;
  }
  const current = live.byId.get(change.id);
  if (!current || current.domain !== change.domain) return { kind: 'gone' };
  if (fingerprint(liveView(current)) !== change.seen) return { kind: 'changed', live: current };
  if (change.action === 'delete' && fresh?.action === 'delete' && quiet(change) && active(fresh)) return { kind: 'active', now: fresh };
  return undefined;
}

/** A delete of a website with neither pageviews nor events in its window, as read. */
const quiet = (d: DeleteChange) => !!d.traffic && d.traffic.pageviews_recent === 0 && !(d.traffic.events_recent! > 0);
const active = (d: DeleteChange) => !!d.traffic && (d.traffic.pageviews_recent > 0 || d.traffic.events_recent! > 0);
