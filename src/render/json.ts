/**
 * The plan as JSON (`--format json`): the contract's shape, `format_version: 1`. Secrets are
 * `(sensitive)`; what a saved plan adds is added only by `savePlan`.
 */
import type { Plan } from '../model.js';
import { jsonUnicodeEscapes } from './escape.js';

export function renderJson(plan: Plan): string {
  // JSON already escapes C0; DEL, C1 and bidi controls too, so the file is safe to `cat`.
  return `${jsonUnicodeEscapes(JSON.stringify(jsonPlan(plan), null, 2))}\n`;
}

/** The plan as the JSON output holds it. */
export function jsonPlan(plan: Plan): object {
  return {
    ...plan,
    // `seen` belongs to saved plans only.
    changes: plan.changes.map((change) => {
      if (change.action === 'create') return change;
      const { seen: _seen, ...shown } = change;
      return shown;
    }),
  };
}
