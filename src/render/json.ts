/**
 * The plan as JSON (`--format json`): the contract's shape, `format_version: 1`. Secrets are
 * `(sensitive)`; what a saved plan adds is added only by `savePlan`.
 */
import type { Plan } from '../model.js';

export function renderJson(plan: Plan): string {
  const out = {
    ...plan,
    changes: plan.changes.map(({ seen: _f, ...change }) => change),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}
