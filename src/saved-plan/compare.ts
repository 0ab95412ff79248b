/**
 * A saved plan is checked by planning again, as octoDNS does with its plan files: the config
 * file is the one it was made from (same SHA-256), the websites it touches are read again, and
 * the changes planned now from that file and those websites must be the saved ones. A plan file
 * therefore cannot ask for anything the config would not. This module compares, purely: what
 * changed at the service since (stale), and what the saved plan asks that the file does not.
 */
import { GlobSet } from '../model/domain.js';
import { FIELDS, sameValue } from '../model/fields.js';
import type { Change, Config, LiveWebsite, Plan } from '../model/types.js';
import type { Scope } from '../planner/scope.js';
import { desiredView, enforcedValues } from '../planner/values.js';
import { formatValue, passwordShown } from '../render/values.js';
import type { SavedChange } from './file.js';
import { staleLine } from './staleness.js';

/** The websites a saved plan touches, as the service has them now. */
export interface Touched {
  byId: Map<number, LiveWebsite>;
  byDomain: Map<string, LiveWebsite>;
}

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

/** Compares one account's saved changes with the plan made again from its config and the websites as they are now. */
export function compareSaved(saved: readonly Numbered[], fresh: Plan, now: Touched, scope: SavedScope): Comparison {
  const out: Comparison = { stale: [], problems: [] };
  const freshByDomain = new Map(fresh.changes.map((c) => [c.domain, c]));
  const seen = new Map<string, number>();
  for (const { index, change } of saved) {
    const at = `changes[${index}]`;
    const twin = seen.get(change.domain);
    if (twin !== undefined) {
      out.problems.push(`${at}.domain: "${change.domain}" is changed twice (also changes[${twin}])`);
      continue;
    }
    seen.set(change.domain, index);
    const fresh = freshByDomain.get(change.domain);
    const stale = staleLine(change, now) ?? newHistory(change, fresh);
    if (stale) {
      out.stale.push(stale);
      continue;
    }
    out.problems.push(...differences(at, change, fresh, scope));
  }
  return out;
}

/** A delete of a website that was quiet when the plan was made and has had traffic since: the plan showed less than it destroys. */
function newHistory(saved: Change, fresh: Change | undefined): string | undefined {
  if (saved.action !== 'delete' || fresh?.action !== 'delete') return undefined;
  const then = saved.traffic;
  const now = fresh.traffic;
  if (!then || !now || then.pageviews_recent > 0 || now.pageviews_recent === 0) return undefined;
  return `${saved.domain} (id ${saved.id}): had no pageviews in the last ${then.recent_days} days when the plan was made, and has ${now.pageviews_recent.toLocaleString('en-US')} now`;
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

