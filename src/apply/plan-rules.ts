/**
 * The rules a saved plan must follow beyond its schema: the config's own domain and list rules
 * for what would be sent, and agreement between the parts of each change, so that what a
 * reviewer sees is what is sent. Pure; every problem is reported, each with its JSON path.
 */
import { listValue } from '../config/file-values.js';
import { parseDomainInput } from '../domain.js';
import { FIELD, FIELDS } from '../fields.js';
import type { Change, WebsiteView } from '../model.js';
import { fingerprint } from '../planner/values.js';

export function ruleProblems(changes: readonly Change[]): string[] {
  const out: string[] = [];
  const byDomain = new Map<string, number>();
  const byId = new Map<number, number>();
  changes.forEach((change, i) => {
    const at = `changes[${i}]`;
    const problem = (path: string, message: string) => out.push(`${at}${path}: ${message}`);

    // A create sends its domain: it must be one the config would accept, in the stored form.
    if (change.action === 'create') {
      const parsed = parseDomainInput(change.domain);
      if (!parsed.domain) problem('.domain', parsed.problem!);
      else if (parsed.domain !== change.domain) problem('.domain', `"${change.domain}" is not written as the service stores it ("${parsed.domain}")`);
    }
    const twin = byDomain.get(change.domain);
    if (twin !== undefined) problem('.domain', `"${change.domain}" is changed twice (also changes[${twin}])`);
    else byDomain.set(change.domain, i);
    if (change.id !== null) {
      const sameId = byId.get(change.id);
      if (sameId !== undefined) problem('.id', `id ${change.id} is changed twice (also changes[${sameId}])`);
      else byId.set(change.id, i);
    }

    for (const [name, view] of [['before', change.before], ['after', change.after]] as const) {
      if (view && view.domain !== change.domain) problem(`.${name}.domain`, `"${view.domain}" is not the change's domain "${change.domain}"`);
    }
    // The fingerprint is what apply compares with the live website: `before` must be what it hashes.
    if (change.before && change.seen !== undefined && fingerprint(change.before) !== change.seen) {
      problem('.before', 'does not match the fingerprint in "seen" (the file was edited)');
    }
    if (change.after) out.push(...listProblems(change.after, `${at}.after`));

    for (const field of change.fields) {
      // A secret is sent from the config file; `after` holds only `(sensitive)` for it.
      const value = change.after?.[field];
      if (FIELD[field].compare === 'secret' ? value !== '(sensitive)' : value === undefined) {
        problem('.fields', `sends ${field}, but "after" holds no value for it`);
      }
    }
    const shown = change.details.map((d) => d.field);
    if (shown.join() !== change.fields.join()) {
      problem('.details', `shows ${shown.join(', ') || 'no field'}, but the change sends ${change.fields.join(', ') || 'no field'}`);
    }
    change.details.forEach((detail, k) => {
      for (const side of ['before', 'after'] as const) {
        const expected = change[side]?.[detail.field] ?? null;
        if (JSON.stringify(detail[side] ?? null) !== JSON.stringify(expected)) {
          problem(`.details[${k}].${side}`, `is not the value of ${side}.${detail.field}`);
        }
      }
    });
  });
  return out;
}

/** The config's list rules: entries as the config's reader leaves them, IP entries valid. */
function listProblems(view: WebsiteView, at: string): string[] {
  const out: string[] = [];
  for (const { name: field } of FIELDS.filter((f) => f.compare === 'set')) {
    const entries = view[field];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, k) => {
      const where = `${at}.${field}[${k}]`;
      // exclude_ips entries are not checked further: the service stores any, and the config
      // accepts one that never matches with a warning, so a plan may carry it too.
      if (listValue([entry])?.[0]?.value !== entry) out.push(`${where}: "${entry}" has blanks around it`);
    });
  }
  return out;
}
