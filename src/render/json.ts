/**
 * The plan as JSON (`--format json`): the contract's shape, `format_version: 1`. Secrets are
 * `(sensitive)`; the references a saved plan needs are added only by `savePlan`.
 */
import type { Plan } from '../model.js';

export function renderJson(plan: Plan): string {
  const out = {
    ...plan,
    changes: plan.changes.map(({ secrets: _s, seen: _f, ...change }) => change),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}
