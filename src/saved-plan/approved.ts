/**
 * "As approved" (`apply --approved FILE`): the plan apply is about to run, compared with the plan
 * a pull request's comment approved — the hidden block that `plan --format markdown` ends with
 * (render/markdown.ts). Compared only: apply never takes a change from the block, so nothing
 * written into it (the comment is fetched by CI, but a file is data) can make a write; a forged
 * block is at worst a false "differs".
 */
import { resolve } from 'node:path';
import { ConfigError, SitesyncError } from '../messages/errors.js';
import { readTextFile } from '../config/read.js';
import type { Context } from '../io/context.js';
import type { AccountPlan, Action, ApprovalCheck, ApprovalDifference, ApprovedAccount, ApprovedPlan, Change } from '../model/types.js';
import { changeDigest, changesDigest, unarchived } from '../planner/digest.js';
import { APPROVED_BLOCK } from '../render/markdown.js';

/** `--approved FILE`: the run's plans (as apply will run them) compared with the approved plan FILE holds; undefined without the flag. */
export async function checkApproved(file: string | undefined, plans: AccountPlan[], configSha256: string, ctx: Pick<Context, 'cwd'>): Promise<ApprovalCheck | undefined> {
  if (file === undefined) return undefined;
  return compareApproved(await readApproved(resolve(ctx.cwd, file), file), plans, configSha256, file);
}

/** The approved plan FILE holds, or why there is none to compare with. */
export async function readApproved(file: string, shown: string): Promise<ApprovedPlan | string> {
  let text: string;
  try {
    text = await readTextFile(file, 'approved plan');
  } catch (error) {
    if (error instanceof ConfigError) return `${shown}: ${error.diagnostics[0]?.message ?? error.message}`;
    throw error;
  }
  const found = [...text.matchAll(APPROVED_BLOCK)].at(-1);
  if (!found) return `${shown} holds no approved plan (the <!-- sitesync-approved: … --> block that sitesync plan --format markdown ends its plan with)`;
  let data: unknown;
  try {
    data = JSON.parse(found[1]!);
  } catch {
    data = undefined;
  }
  return isApprovedPlan(data) ? data : `${shown}: its approved block cannot be read (not one that this sitesync writes)`;
}

const HEX = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`);
const ACTIONS: readonly unknown[] = ['create', 'update', 'delete'] satisfies Action[];

/** The block's shape, checked as data from outside. */
function isApprovedPlan(data: unknown): data is ApprovedPlan {
  const plan = data as Partial<ApprovedPlan> | undefined;
  if (!plan || plan.version !== 1 || typeof plan.config_sha256 !== 'string' || !HEX(64).test(plan.config_sha256) || !Array.isArray(plan.accounts)) return false;
  return plan.accounts.every((a: Partial<ApprovedAccount>) => {
    if (!a || (a.name !== null && typeof a.name !== 'string') || !Number.isInteger(a.count) || a.count! < 0 || typeof a.digest !== 'string' || !HEX(16).test(a.digest)) return false;
    if (a.failed !== undefined && a.failed !== true) return false;
    if (a.changes === undefined) return true;
    return Array.isArray(a.changes) && a.changes.every((c) => Array.isArray(c) && c.length === 3 && ACTIONS.includes(c[0]) && typeof c[1] === 'string' && typeof c[2] === 'string' && HEX(12).test(c[2]));
  });
}

/**
 * Each change of `accounts` (the plan apply runs) that the approved plan does not hold (added),
 * each approved change not planned now (missing), and each planned otherwise (different); why they
 * differ: the config files are not those the approved plan was made from (merged without a new
 * plan), else the service changed since.
 */
export function compareApproved(approved: ApprovedPlan | string, accounts: AccountPlan[], configSha256: string, shown: string): ApprovalCheck {
  const count = accounts.reduce((n, a) => n + (a.plan?.changes.length ?? 0), 0);
  if (typeof approved === 'string') return { file: shown, unavailable: approved, count, differences: [] };
  const differences: ApprovalDifference[] = [];
  const then = new Map(approved.accounts.map((a) => [a.name ?? '', a]));
  for (const a of accounts) {
    const was = then.get(a.name);
    then.delete(a.name);
    differences.push(...accountDifferences(a, was));
  }
  // Approved accounts this run does not plan: what they approved is not applied.
  for (const [name, was] of then) if (was.count > 0) differences.push(...missingOf(name, was, 'the account is not in this run'));
  const why = approved.config_sha256 !== configSha256 ? 'merged without a new plan' : 'changed at the service since the plan';
  return { file: shown, count, differences, ...(differences.length ? { why } : {}) };
}

function accountDifferences(a: AccountPlan, was: ApprovedAccount | undefined): ApprovalDifference[] {
  const account = a.name;
  if (!a.plan) return was && was.count > 0 ? missingOf(account, was, `not planned now: ${a.failure?.message ?? 'failed'}`) : [];
  const changes = a.plan.changes;
  const added = (c: (typeof changes)[number]): ApprovalDifference => ({ account, kind: 'added', change: { action: c.action, domain: c.domain, id: c.id } });
  if (!was || was.failed) return changes.map(added);
  if (!was.changes) {
    // A block too large to list each change: the account's digest alone.
    if (changesDigest(changes) === was.digest || changesDigest(changes.map((c) => unarchived(c) ?? c)) === was.digest) return [];
    return [{ account, kind: 'different', note: `${changes.length} changes planned now, ${was.count} approved (the approved plan was too large to list them one by one)` }];
  }
  const approvedByDomain = new Map(was.changes.map(([action, domain, digest]) => [domain, { action, digest }]));
  const out: ApprovalDifference[] = [];
  for (const c of changes) {
    const approvedChange = approvedByDomain.get(c.domain);
    approvedByDomain.delete(c.domain);
    if (!approvedChange) out.push(added(c));
    else if (!approves(approvedChange.digest, c)) out.push({ account, kind: 'different', change: { action: c.action, domain: c.domain, id: c.id } });
  }
  for (const [domain, { action }] of approvedByDomain) out.push({ account, kind: 'missing', change: { action, domain } });
  return out;
}

/** Whether an approved digest is the change's: as planned now, or (a delete archived now) as a plan that did not archive it. */
function approves(digest: string, change: Change): boolean {
  const without = unarchived(change);
  return digest === changeDigest(change) || (without !== undefined && digest === changeDigest(without));
}

/** An approved account's changes that will not be applied, one by one where the block lists them. */
function missingOf(account: string, was: ApprovedAccount, note: string): ApprovalDifference[] {
  if (!was.changes) return [{ account, kind: 'missing', note: `${was.count} approved changes: ${note}` }];
  return was.changes.map(([action, domain]) => ({ account, kind: 'missing', change: { action, domain }, note }));
}
