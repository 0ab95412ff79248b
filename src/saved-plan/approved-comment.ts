/**
 * "As approved" (`apply --approved FILE`): the plan apply is about to run, compared with the plan
 * a pull request's comment approved — the hidden block that `plan --format markdown` ends with
 * (render/markdown.ts). Compared only: apply never takes a change from the block, so nothing
 * written into it (the comment is fetched by CI, but a file is data) can make a write; a forged
 * block is at worst a false "differs".
 */
import { resolve } from 'node:path';
import { ConfigError } from '../messages/errors.js';
import { readTextFile } from '../config/read.js';
import type { Context } from '../io/context.js';
import type { AccountPlan, Action, ApprovalCheck, ApprovedAccount, ApprovedPlan } from '../model/types.js';
import { compareApproved } from '../planner/receipt.js';
import { lastApprovedBlock } from '../render/markdown.js';

/** `--approved FILE`: the run's plans (as apply will run them) compared with the approved plan FILE holds; undefined without the flag. */
export async function checkApproved(file: string | undefined, plans: readonly AccountPlan[], configSha256: string, ctx: Pick<Context, 'cwd'>): Promise<ApprovalCheck | undefined> {
  if (file === undefined) return undefined;
  const approved = await readApproved(resolve(ctx.cwd, file), file);
  return compareApproved(approved, plans, configSha256, file);
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
  const found = lastApprovedBlock(text);
  if (!found) return `${shown} holds no approved plan (the <!-- sitesync-approved: … --> block that sitesync plan --format markdown ends its plan with)`;
  let data: unknown;
  try {
    data = JSON.parse(found.json);
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
