/**
 * A saved plan may only do what the config file it was made from asks for. That file is read
 * again and checked unchanged, so every change can be held against it: a create or update of a
 * website it lists, sending the values it sets; a delete only of a website it does not list,
 * does not ignore or protect, when it (or the plan's `--prune`) prunes. An edited plan cannot
 * delete a protected website, create one the file never named, or send another value. Pure.
 */
import { GlobSet } from '../domain.js';
import { FIELD, FIELDS, sameValue } from '../fields.js';
import type { Config, FieldName, WebsiteView } from '../model.js';
import { desiredView, enforcedValues, fileSets } from '../planner/values.js';
import { formatValue } from '../render/values.js';
import type { SavedPlan } from './saved-plan.js';

/** Every change that departs from the config file, one message each, as `changes[3]…: …`. */
export function configProblems(plan: SavedPlan, config: Config, shownConfig: string): string[] {
  const out: string[] = [];
  const ignore = new GlobSet(config.ignore.map((p) => p.glob));
  const protect = new GlobSet(config.protect.map((p) => p.glob));
  const targets = plan.saved.targets.length ? new GlobSet(plan.saved.targets) : undefined;
  const excludes = new GlobSet(plan.saved.excludes ?? []);
  const prune = config.prune || plan.saved.prune === true;
  const sites = new Map(config.websites.map((w) => [w.domain, w]));

  plan.changes.forEach((change, i) => {
    const at = `changes[${i}]`;
    const domain = formatValue('domain', change.domain);
    const site = sites.get(change.domain);
    const outOfScope = (): string | undefined => {
      const ignoredBy = ignore.indexOf(change.domain);
      if (ignoredBy >= 0) return `${shownConfig} ignores it ("${config.ignore[ignoredBy]!.glob}")`;
      if (targets && !targets.matches(change.domain)) return `no --target of the plan (${plan.saved.targets.join(', ')}) matches it`;
      const excludedBy = excludes.indexOf(change.domain);
      if (excludedBy >= 0) return `the plan's --exclude "${excludes.globs[excludedBy]}" matches it`;
      return undefined;
    };

    if (change.action === 'delete') {
      const protectedBy = protect.indexOf(change.domain);
      const why = site
        ? `${shownConfig} lists it`
        : protectedBy >= 0
          ? `${shownConfig} protects it ("${config.protect[protectedBy]!.glob}")`
          : (outOfScope() ?? (prune ? undefined : `neither ${shownConfig} (prune: true) nor the plan (--prune) prunes`));
      if (why) out.push(`${at}: deletes ${domain}, but ${why}`);
      return;
    }
    if (!site) {
      out.push(`${at}: ${change.action === 'create' ? 'creates' : 'updates'} ${domain}, but ${shownConfig} does not list it`);
      return;
    }
    const scope = outOfScope();
    if (scope) out.push(`${at}: ${change.action === 'create' ? 'creates' : 'updates'} ${domain}, but ${scope}`);

    // What is sent is `after`: it must be what the file sets, value for value.
    const wanted = desiredView(site.domain, enforcedValues(site, config.defaults));
    for (const spec of FIELDS) {
      const field = spec.name;
      const sent = change.after?.[field];
      if (!sameValue(spec, sent, wanted[field])) {
        const sets = wanted[field] === undefined ? `does not set ${field}` : `sets ${formatValue(field, wanted[field])}`;
        out.push(`${at}.after.${field}: sends ${formatValue(field, sent)}, but ${shownConfig} ${sets} for ${domain}`);
      }
    }
    // A field the service does not show is sent only where the file sets it: the service's
    // default would silently replace a value nobody can read.
    if (change.action === 'update') {
      for (const field of change.fields) {
        if (unread(change.before, field) && !fileSets(site, config.defaults, field)) {
          out.push(`${at}.fields: sends ${field}, which the service does not show and ${shownConfig} does not set for ${domain}`);
        }
      }
    }
  });
  return out;
}

function unread(before: WebsiteView | null, field: FieldName): boolean {
  return FIELD[field].writeOnly || before?.[field] === undefined;
}
