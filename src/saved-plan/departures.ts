/**
 * A saved plan is checked by planning again, as octoDNS does with its plan files: the config
 * file is the one it was made from (same SHA-256), the websites it touches are read again, and
 * the plan made now from that file and those websites is compared with the saved one by the one
 * comparison of receipts (planner/receipt.ts). This module says, per change that departs, what
 * changed at the service since (stale), or what the saved plan asks that the file does not.
 */
import { GlobSet } from '../model/domain.js';
import { FIELD_NAMES, FIELDS, sameValue } from '../model/fields.js';
import type { Change, Config, LiveWebsite, Plan, WebsiteView } from '../model/types.js';
import { compareReceipts, receiptOf, type Moved } from '../planner/receipt.js';
import type { Scope } from '../planner/scope.js';
import { desiredView, enforcedValues, liveView } from '../planner/values.js';
import { formatValue, passwordShown } from '../render/values.js';
import type { SavedChange } from './file.js';

/** A saved change and its place in the plan file, for messages (`changes[3]`). */
export interface Numbered {
  index: number;
  change: SavedChange;
}

/** The options a saved plan was made with, and the config it was made from. */
export interface SavedScope {
  config: Config;
  shownConfig: string;
  /** The websites the plan covers (the file's ignore, the plan's --target and --exclude). */
  scope: Scope;
  prune: boolean;
}

export interface Comparison {
  /** What changed at the service since the plan was made, one line per website. */
  stale: string[];
  /** What the plan asks that the config file does not, as `changes[3]…: …`. */
  problems: string[];
}

/**
 * Compares one account's saved changes with the plan made again from its config and `live`, the
 * websites as they are now: their receipts, each departure said in words.
 */
export function compareSaved(saved: readonly Numbered[], fresh: Plan, live: readonly LiveWebsite[], scope: SavedScope): Comparison {
  const out: Comparison = { stale: [], problems: [] };
  const at = new Map<Change, number>();
  const twins = new Set<Change>();
  const seen = new Map<string, number>();
  for (const { index, change } of saved) {
    const twin = seen.get(change.domain);
    if (twin === undefined) {
      seen.set(change.domain, index);
      at.set(change, index);
      continue;
    }
    twins.add(change);
    out.problems.push(`changes[${index}].domain: "${change.domain}" is changed twice (also changes[${twin}])`);
  }
  const then = receiptOf([{ name: '', baseUrl: '', plan: { ...fresh, changes: saved.map((n) => n.change).filter((c) => !twins.has(c)) } }], '');
  const departures = compareReceipts(then, [{ name: '', plan: fresh, live }], '');
  const said: { index: number; stale?: string; problems?: string[] }[] = [];
  for (const d of departures) {
    const change = d.then?.change;
    if (!change) {
      // Planned now, not saved: a plan of the file made now changes more than the saved plan.
      if (d.now) out.problems.push(`${VERB[d.now.action]} ${formatValue('domain', d.now.domain)}: a plan of ${scope.shownConfig} made now does, and the saved plan does not`);
      continue;
    }
    const index = at.get(change)!;
    if (d.moved) said.push({ index, stale: staleLine(change, d.moved) });
    else said.push({ index, problems: differences(`changes[${index}]`, change, d.now, scope) });
  }
  said.sort((a, b) => a.index - b.index);
  for (const s of said) {
    if (s.stale) out.stale.push(s.stale);
    out.problems.push(...(s.problems ?? []));
  }
  out.problems.sort((a, b) => indexIn(a) - indexIn(b));
  return out;
}

/** `changes[3]…` → 3, for the file's order. */
const indexIn = (problem: string) => Number(/^changes\[(\d+)\]/.exec(problem)?.[1] ?? Infinity);

/** What changed at the service under a saved change, as one line. */
function staleLine(change: Change, moved: Moved): string {
  switch (moved.kind) {
    case 'exists':
      return `${change.domain}: now exists at the service (id ${moved.live.id}); the plan would create it`;
    case 'gone':
      return `${change.domain} (id ${change.id}): no longer exists at the service`;
    case 'changed':
      return `${change.domain} (id ${change.id}): ${describeDifference(change, moved.live)}`;
    case 'active': {
      const then = (change as Extract<Change, { action: 'delete' }>).traffic!;
      const now = moved.now.traffic!;
      // A quiet website that has had pageviews since, or (no pageviews) events: a delete destroys more than the plan showed.
      if (now.pageviews_recent > 0) return `${change.domain} (id ${change.id}): had no pageviews in the last ${then.recent_days} days when the plan was made, and has ${now.pageviews_recent.toLocaleString('en-US')} now`;
      return `${change.domain} (id ${change.id}): had no pageviews or events in the last ${then.recent_days} days when the plan was made, and has ${now.events_recent!.toLocaleString('en-US')} events now`;
    }
  }
}

function describeDifference(change: Change, live: LiveWebsite): string {
  const before: Partial<WebsiteView> = change.before ?? { domain: change.domain };
  const now = liveView(live);
  const parts: string[] = [];
  for (const field of FIELD_NAMES) {
    const a = before[field];
    const b = now[field];
    const same = Array.isArray(a) && Array.isArray(b) ? [...a].sort().join('\n') === [...b].sort().join('\n') : a === b;
    if (!same) parts.push(`${field} ${formatValue(field, a)} → ${formatValue(field, b)}`);
  }
  return parts.length ? `changed since the plan: ${parts.join('; ')}` : 'changed since the plan';
}

const VERB = { create: 'creates', update: 'updates', delete: 'deletes' } as const;

/** How a saved change departs from the change planned now (undefined: none planned now). */
function differences(at: string, saved: Change, fresh: Change | undefined, scope: SavedScope): string[] {
  const { config, shownConfig } = scope;
  const domain = formatValue('domain', saved.domain);
  const site = config.websites.find((w) => w.domain === saved.domain);
  if (saved.action === 'delete') {
    if (fresh?.action === 'delete') return fresh.id === saved.id ? [] : [`${at}.id: deletes id ${saved.id}, but ${domain} is id ${fresh.id} at the service`];
    return [`${at}: deletes ${domain}, but ${whyNotDeleted(saved.domain, scope) ?? `a plan of ${shownConfig} made now does not delete it`}`];
  }
  if (!site) return [`${at}: ${VERB[saved.action]} ${domain}, but ${shownConfig} does not list it`];
  const scopeProblem = scope.scope.whyOut(saved.domain, shownConfig);
  if (scopeProblem) return [`${at}: ${VERB[saved.action]} ${domain}, but ${scopeProblem}`];
  if (fresh && fresh.action !== saved.action) return [`${at}: ${VERB[saved.action]} ${domain}, but a plan of ${shownConfig} made now ${VERB[fresh.action].slice(0, -1)}s it`];

  // What is sent is `after`, field by field: it must be what the file sets.
  const out: string[] = [];
  const wanted = fresh?.after ?? desiredView(site.domain, enforcedValues(site, config.defaults));
  const valueDiffers = new Set<string>();
  for (const spec of FIELDS) {
    const field = spec.name;
    const sent = saved.after?.[field];
    if (!sameValue(spec, sent, wanted[field])) {
      valueDiffers.add(field);
      const sets = wanted[field] === undefined ? `does not set ${field}` : `sets ${formatValue(field, wanted[field])}`;
      out.push(`${at}.after.${field}: sends ${formatValue(field, sent)}, but ${shownConfig} ${sets} for ${domain}`);
    }
  }
  // Which fields go: said only where the value itself is right (else that was said above).
  const freshFields = new Set(fresh?.fields ?? []);
  for (const field of saved.fields) {
    if (!freshFields.has(field) && !valueDiffers.has(field)) out.push(`${at}.fields: sends ${field}, which a plan of ${shownConfig} made now does not send to ${domain}`);
  }
  for (const field of fresh?.fields ?? []) {
    if (!saved.fields.includes(field) && !valueDiffers.has(field)) out.push(`${at}.fields: leaves out ${field}, which a plan of ${shownConfig} made now sends to ${domain}`);
  }
  // Where the password comes from is shown to reviewers (`sitesync show`): it must be what the file says (older plans do not say).
  const from = saved.password_from;
  if (from && fresh && JSON.stringify(from) !== JSON.stringify(fresh.password_from)) {
    out.push(`${at}.password_from: says ${passwordShown(from)}, but ${shownConfig} gives ${fresh.password_from ? passwordShown(fresh.password_from) : 'no password'} for ${domain}`);
  }
  if (!fresh && out.length === 0) out.push(`${at}: ${VERB[saved.action]} ${domain}, but a plan of ${shownConfig} made now finds nothing to change`);
  return out;
}

/** Why a plan of the file would not delete a website. */
function whyNotDeleted(domain: string, scope: SavedScope): string | undefined {
  const { config, shownConfig, prune } = scope;
  if (config.websites.some((w) => w.domain === domain)) return `${shownConfig} lists it`;
  const protectedBy = new GlobSet(config.protect.map((p) => p.glob)).indexOf(domain);
  if (protectedBy >= 0) return `${shownConfig} protects it ("${config.protect[protectedBy]!.glob}")`;
  return scope.scope.whyOut(domain, shownConfig) ?? (config.prune || prune ? undefined : `neither ${shownConfig} (prune: true) nor the plan (--prune) prunes`);
}
