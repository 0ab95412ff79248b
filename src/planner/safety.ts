/**
 * Safety is a property of the plan: computed here, shown by `plan` as warnings, enforced by
 * `apply` before any write.
 */
import { SafetyError } from '../messages/errors.js';
import type { LimitCheck, Plan, Safety, SafetyCheck } from '../model/types.js';
import { describeTraffic } from './traffic-words.js';

export function checkSafety(deletes: number, managed: number, fileIsEmpty: boolean, safety: Safety): SafetyCheck {
  const percent = managed === 0 ? 0 : (deletes / managed) * 100;
  return {
    managed,
    deletes,
    percent: Math.round(percent * 10) / 10,
    max_delete_percent: safety.max_delete_percent,
    min_existing: safety.min_existing,
    exceeded: managed >= safety.min_existing && percent > safety.max_delete_percent,
    empty_file: fileIsEmpty && deletes > 0,
  };
}

/** Live websites − planned deletes + planned creates must not pass the plan's limit. */
export function checkLimit(limit: number | null, live: number, creates: number, deletes: number): LimitCheck {
  const after = live - deletes + creates;
  return { limit, live, after, exceeded: limit !== null && creates > 0 && after > limit };
}

/** "15 of 21 managed websites, 71 % > 30 %" */
export function describeShare(s: SafetyCheck): string {
  return `${s.deletes} of ${s.managed} managed websites, ${Math.round(s.percent)} % > ${s.max_delete_percent} %`;
}

export function safetyWarnings(safety: SafetyCheck, limit: LimitCheck): string[] {
  const out: string[] = [];
  if (safety.exceeded) {
    out.push(`this plan deletes ${describeShare(safety)}: apply will refuse without --force`);
  }
  if (safety.empty_file) {
    out.push(`the file lists no websites but this plan deletes ${safety.deletes}: apply will refuse without --force`);
  }
  if (limit.exceeded) {
    out.push(
      `the account's plan allows ${limit.limit} websites; after this plan it would hold ${limit.after} (${limit.live} now): apply will refuse`,
    );
  }
  return out;
}

/**
 * Before any write: refuse what the plan's safety checks flag. `--force` overrides the
 * thresholds; only `retire:` in the file lets recent history go. `retireIn` says where that
 * `retire:` goes: `sitesync.yaml`, or `sitesync.yaml under accounts.alpha` (elsewhere it is an error).
 */
export function assertSafe(plan: Pick<Plan, 'safety' | 'limit' | 'changes'>, force: boolean, retireIn = 'the file'): void {
  const { safety, limit } = plan;
  if (safety.exceeded && !force) {
    const error = new SafetyError(`refusing to delete ${describeShare(safety)}`, { nothingWritten: true });
    error.details = ['Check the file and the plan; pass --force if this is intended (safety.max_delete_percent, safety.min_existing).'];
    throw error;
  }
  if (safety.empty_file && !force) {
    const error = new SafetyError(`the file lists no websites, and the plan would delete ${safety.deletes}`, { nothingWritten: true });
    error.details = ['An empty file never deletes anything without --force.'];
    throw error;
  }
  if (limit.exceeded) {
    throw new SafetyError(
      `the account's plan allows ${limit.limit} websites, and after this plan it would hold ${limit.after}`, { nothingWritten: true },
    );
  }
  const active = plan.changes.filter((c) => c.action === 'delete' && safety.active?.includes(c.domain));
  if (active.length) {
    const one = active.length === 1;
    const error = new SafetyError(
      `refusing to delete ${one ? 'a website' : `${active.length} websites`} with recent traffic, and ${one ? 'its' : 'their'} history with ${one ? 'it' : 'them'}`, { nothingWritten: true },
    );
    error.details = [
      ...active.map((c) => `${c.domain}: ${c.action === 'delete' ? describeTraffic(c) : ''}`),
      `To delete ${one ? 'it' : 'them'} with ${one ? 'its' : 'their'} history, list ${one ? 'it' : 'them'} in ${retireIn}: retire: [${active.map((c) => `"${c.domain}"`).join(', ')}]`,
    ];
    throw error;
  }
}
