/**
 * The plan as JSON (`--format json`): the contract's shape, `format_version: 1`. Secrets are
 * `(sensitive)`; what a saved plan adds is added only by `savePlan`.
 */
import type { Plan } from '../model.js';
import { jsonUnicodeEscapes } from './escape.js';

export function renderJson(plan: Plan): string {
  const out = {
    ...plan,
    changes: plan.changes.map(({ seen: _f, ...change }) => change),
  };
  // JSON already escapes C0; DEL, C1 and bidi controls too, so the file is safe to `cat`.
  return `${jsonUnicodeEscapes(JSON.stringify(out, null, 2))}\n`;
}
