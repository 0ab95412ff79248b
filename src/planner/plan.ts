/**
 * The planner: (desired config, live websites, options) → Plan. Pure and deterministic: no
 * I/O, no clock, the same inputs give the same plan, byte for byte.
 */
import { dirname, relative, sep } from 'node:path';
import { GlobSet, parseDomainInput } from '../model/domain.js';
import { FIELD, FIELDS, fieldOrder, sameSecret, sameValue } from '../model/fields.js';
import { SitesyncError } from '../messages/errors.js';
import type {
  Account,
  Change,
  Config,
  CreateChange,
  DefaultSettings,
  DesiredWebsite,
  FieldChange,
  FieldName,
  LiveWebsite,
  PasswordSource,
  Plan,
  UpdateChange,
  WebsiteView,
  WriteOnlyReason,
} from '../model/types.js';
import { passwordSource } from '../config/interpolate.js';
import { checkLimit, checkSafety, safetyWarnings } from './safety.js';
import { Scope, type ScopeOptions } from './scope.js';
import { desiredView, enforcedValues, fileSets, fingerprint, liveView, type Enforced } from './values.js';

export interface PlanOptions extends ScopeOptions {
  /** `--prune` (the file's `prune: true` counts too). */
  prune?: boolean;
  /**
   * Check here that every --target and --exclude matches some website (default). A many-account
   * run checks across all its accounts instead: a pattern need only match in one of them.
   */
  checkPatterns?: boolean;
  /** `--baseline OLDFILE`: the config as it was. */
  baseline?: Config;
  /** `--resend-write-only`. */
  resendWriteOnly?: boolean;
  /**
   * Why a write-only field of a website is sent again, where the plan is made anew from a saved
   * one: the reasons the saved plan gave (its baseline is gone). Only a field the file sets is
   * ever sent, with the file's value.
   */
  sendAgain?: (domain: string, field: FieldName) => WriteOnlyReason | undefined;
  /**
   * Plan changes of these domains alone (a saved plan made again): the other websites are still
   * counted in the summary, from `live` when it holds the whole account, else from the census.
   */
  only?: ReadonlySet<string>;
}

/**
 * The whole account's counts, where `live` holds only part of it: the websites a plan narrowed
 * by --target found through searches, or those a saved plan touches, read one by one.
 */
export interface Census {
  /** Websites the account holds: what its website limit counts. */
  total: number;
  /**
   * Managed websites (not ignored, within the targets): what the delete threshold counts.
   * Undefined: every managed website is in `live` (a plan read through searches for its targets).
   */
  managed?: number;
  /**
   * With `only`, where `live` holds only those websites: the unmanaged websites as counted when
   * the plan was first made (a narrowed plan cannot count them again without the whole list).
   * Undefined: the account's total less the managed websites.
   */
  unmanaged?: number;
}

export interface PlanInput {
  config: Config;
  live: LiveWebsite[];
  account: Account | null;
  baseUrl: string;
  options?: PlanOptions;
  census?: Census;
}

/** The plan cannot be made as the file stands (e.g. privacy password without a password). */
export class PlanningError extends SitesyncError {
  override name = 'PlanningError';
}

/** The fields whose live value the service may show, compared with what the file enforces. */
const COMPARED = FIELDS.filter((f) => !f.writeOnly);

const REASON_RANK: Record<WriteOnlyReason, number> = { create: 0, missing: 1, baseline: 2, resend: 3, 'with-update': 4 };

export function planChanges(input: PlanInput): Plan {
  const { config, live, account, baseUrl } = input;
  const options = input.options ?? {};
  const protect = new GlobSet(config.protect.map((p) => p.glob));
  const scope = new Scope(config, options);
  const only = options.only;
  // `live` holds only the websites of `only` (read one by one): no other is planned or counted.
  const partial = only !== undefined && input.census !== undefined;
  const warnings: string[] = [];
  const problems: string[] = [];

  // Live websites by key. Several share one key when the service holds the same name twice,
  // or in two spellings (`x.org` and `x.org.`, unicode and punycode): one is managed, the
  // others are left alone with a warning, never deleted.
  const liveByDomain = new Map<string, LiveWebsite[]>();
  for (const site of live) {
    const group = liveByDomain.get(site.domain);
    if (group) group.push(site);
    else liveByDomain.set(site.domain, [site]);
  }
  let writtenByDomain: Map<string, string> | undefined; // only where the service holds a name twice
  const liveTwins = new Map<string, LiveWebsite>();
  const twins: [string, string][] = [];
  // The spellings the file's ignore: names (`ignore: ["x.org."]`): those twins are left alone knowingly, unwarned.
  const named = new Set((config.twinSpellings ?? []).map((p) => p.glob));
  for (const [domain, all] of liveByDomain) {
    const unnamed = all.length > 1 && named.size ? all.filter((s) => !named.has(s.stored ?? s.domain)) : all;
    const group = unnamed.length ? unnamed : all;
    const chosen = group.length === 1 ? group[0]! : chooseTwin(group, (writtenByDomain ??= new Map(config.websites.map((w) => [w.domain, w.written]))).get(domain));
    liveTwins.set(domain, chosen);
    if (group.length > 1) twins.push([domain, twinWarning(domain, group, chosen)]);
  }
  // By domain, whatever order the service listed them in.
  for (const [, warning] of twins.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) warnings.push(warning);
  if (options.checkPatterns !== false) {
    assertPatternsMatch(options, [config.websites.map((w) => w.domain), live.map((w) => w.domain)], 'in the file or the account');
  }
  const baseline = options.baseline;
  const baselineSites = baseline
    ? new Map(baseline.websites.map((w) => [w.domain, { values: enforcedValues(w, baseline.defaults), site: w }]))
    : undefined;

  const changes: Change[] = [];
  const unverified = new Set<FieldName>();
  const listed = new Set<string>();
  let unchanged = 0;

  for (const site of config.websites) {
    listed.add(site.domain);
    if (!scope.includes(site.domain)) continue;
    // Not one of `only`: counted in the summary (unchanged or not), never planned or warned about.
    const counted = only !== undefined && !only.has(site.domain);
    if (counted && partial) continue;
    const values = enforcedValues(site, config.defaults);
    const current = liveTwins.get(site.domain);
    if (counted) {
      if (current && !updateChange(config, { site, values, defaults: config.defaults }, current, undefined, () => undefined).change) unchanged++;
      continue;
    }
    if (site.written.toLowerCase().startsWith('www.') && current) {
      warnings.push(`"${site.written}" (line ${site.pos.line}) is matched to the live ${current.domain}: write the bare form`);
    }
    if (!current) {
      if (values.privacy === 2 && !values.password) {
        problems.push(`${site.domain} (line ${site.pos.line}): privacy is password, but the file sets no password for this new website`);
      }
      changes.push(createChange(site, values, config));
      continue;
    }
    const was = baselineSites?.get(site.domain);
    const old: FileWebsite | null | undefined = baseline ? (was ? { ...was, defaults: baseline.defaults } : null) : undefined;
    const file = { site, values, defaults: config.defaults };
    const again = (field: FieldName): WriteOnlyReason | undefined =>
      options.sendAgain?.(site.domain, field) ?? (options.resendWriteOnly ? 'resend' : undefined);
    const found = updateChange(config, file, current, old, again);
    problems.push(...found.problems);
    warnings.push(...found.warnings);
    for (const field of found.unverified) unverified.add(field);
    if (found.change) changes.push(found.change);
    else unchanged++;
  }

  const prune = options.prune === true || config.prune;
  let unmanaged = 0;
  for (const site of liveTwins.values()) {
    // Outside the targets nothing is planned, or counted.
    if (listed.has(site.domain) || !scope.targeted(site.domain)) continue;
    if (prune && scope.includes(site.domain) && !protect.matches(site.domain)) {
      const before = liveView(site);
      changes.push({ action: 'delete', domain: site.domain, id: site.id, before, after: null, fields: [], details: [], seen: fingerprint(before) });
    } else {
      unmanaged++;
    }
  }

  // A retire: pattern that names no live website is probably a typo (read only where the whole account was).
  if (!options.targets?.length && !only) {
    for (const pattern of config.retire) {
      if (!live.some((w) => new GlobSet([pattern.glob]).matches(w.domain))) {
        // Said so that it can be acted on: it stops with the line (a retired website, once deleted, needs it no more).
        warnings.push(`retire: "${pattern.glob}" (line ${pattern.pos.line}) matches no live website: a typo? If its website is deleted, the line has done its work: remove it`);
      }
    }
  }

  if (problems.length) {
    const error = new PlanningError(problems.length === 1 ? problems[0]! : `${problems.length} websites cannot be planned`);
    if (problems.length > 1) error.details = problems;
    throw error;
  }

  const order = { create: 0, update: 1, delete: 2 } as const;
  const planned = (only ? changes.filter((c) => only.has(c.domain)) : changes).sort(
    (a, b) => order[a.action] - order[b.action] || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0),
  );

  const summary = { create: 0, update: 0, delete: 0, unchanged, unmanaged };
  for (const change of planned) summary[change.action]++;
  if (partial) {
    // Only the websites the plan touches were read: the listed websites in scope that it does
    // not change exist, unchanged; the rest of the account is unmanaged.
    summary.unchanged = Math.max(0, config.websites.filter((w) => scope.includes(w.domain)).length - summary.create - summary.update);
    summary.unmanaged = input.census!.unmanaged ?? Math.max(0, input.census!.total - summary.unchanged - summary.update - summary.delete);
  }
  const managed = input.census?.managed ?? live.filter((s) => scope.includes(s.domain)).length;
  const safety = checkSafety(summary.delete, managed, config.websites.length === 0, config.safety);
  const limit = checkLimit(account?.websiteLimit ?? null, input.census?.total ?? live.length, summary.create, summary.delete);
  warnings.push(...safetyWarnings(safety, limit));
  if (account?.emailReports === false) {
    const reported = config.websites.filter((w) => scope.includes(w.domain) && enforcedValues(w, config.defaults).email === 1);
    if (reported.length) warnings.push(noReportsWarning(reported.map((w) => w.domain), account.plan));
  }
  return {
    base_url: baseUrl,
    account: account ? { id: account.id, name: account.name, email: account.email } : null,
    summary,
    changes: planned,
    warnings,
    unverified: [...unverified].sort(),
    safety,
    limit,
  };
}

/** `email: true` stored on a plan without e-mail reports: the service keeps it and never acts on it. */
function noReportsWarning(domains: string[], plan: string): string {
  const shown = domains.slice(0, 5).join(', ') + (domains.length > 5 ? ` and ${domains.length - 5} more` : '');
  const whose = plan ? `the account's plan ("${plan}")` : "the account's plan";
  return `email: true on ${domains.length === 1 ? '1 website' : `${domains.length} websites`} (${shown}), but ${whose} has no e-mail reports: none will be sent`;
}

/**
 * Which of the live websites that share a key sitesync manages: the one stored exactly as the
 * file writes it, else the oldest.
 */
/** Of live websites sharing one key (a name held twice, or in two spellings), the one sitesync manages: the one spelled as the file writes it, else the oldest. */
export function chooseTwin(group: LiveWebsite[], written: string | undefined): LiveWebsite {
  const spelled = written?.trim().toLowerCase();
  const exact = group.filter((s) => (s.stored ?? s.domain) === spelled);
  return (exact.length ? exact : group).reduce((a, b) => (b.id < a.id ? b : a));
}

function twinWarning(domain: string, group: LiveWebsite[], chosen: LiveWebsite): string {
  const ids = group.map((s) => (s.stored === undefined ? `${s.id}` : `${s.id} as ${JSON.stringify(s.stored)}`));
  const others = group.filter((s) => s !== chosen).map((s) => s.id);
  const times = group.length === 2 ? `twice (ids ${ids.join(' and ')})` : `${group.length} times (ids ${ids.join(', ')})`;
  return `the service holds ${domain} ${times}; sitesync manages id ${chosen.id} and leaves id ${others.join(', ')} alone`;
}

/** The included file a website is in, relative to the config's folder (where a reader of the plan finds it). */
function where(site: DesiredWebsite, config: Config): { file?: string } {
  return site.file ? { file: relative(dirname(config.file), site.file).split(sep).join('/') } : {};
}

function createChange(site: DesiredWebsite, values: Enforced, config: Config): CreateChange {
  const after = desiredView(site.domain, values);
  // Every enforced field. One the service cannot take on create (favorite) only when it differs
  // from the service's default: apply stores the website, then updates it.
  const fields = FIELDS.filter((f) => {
    const value = values[f.name];
    return value !== undefined && (f.onCreate || value !== f.serviceDefault);
  }).map((f) => f.name);
  return {
    action: 'create',
    domain: site.domain,
    id: null,
    before: null,
    after,
    fields,
    details: fields.map((field) => ({ field, before: null, after: after[field as keyof typeof after] ?? null })),
    line: site.pos.line,
    ...where(site, config),
    ...sourceOf(values),
  };
}

/** Where the password a change sends comes from (by name), shown by every output so a reviewer sees which variable it reads. */
function sourceOf(values: Enforced): { password_from?: PasswordSource } {
  return values.password ? { password_from: passwordSource(values.password.template) } : {};
}

/** A website as a file (the config or the baseline) has it: what it sets, and the values enforced. */
interface FileWebsite {
  site: DesiredWebsite;
  values: Enforced;
  defaults: DefaultSettings;
}

/** What comparing one listed website with its live twin found. */
interface UpdateFindings {
  /** Undefined when the website already is as the file wants it. */
  change?: UpdateChange;
  /** Reasons the plan cannot be made. */
  problems: string[];
  warnings: string[];
  /** Fields sent whose live value could not be read. */
  unverified: FieldName[];
}

function updateChange(
  config: Config,
  { site, values, defaults }: FileWebsite,
  current: LiveWebsite,
  /** Undefined without --baseline; null when the baseline lacks the website. */
  old: FileWebsite | null | undefined,
  /** Why a write-only field is sent again regardless (--resend-write-only, a saved plan's reasons). */
  again: (field: FieldName) => WriteOnlyReason | undefined,
): UpdateFindings {
  const report: UpdateFindings = { problems: [], warnings: [], unverified: [] };
  // The two views are made only for a website that changes: most of a large file does not.
  let views: { before: WebsiteView; after: WebsiteView } | undefined;
  const view = () => (views ??= { before: liveView(current), after: desiredView(site.domain, values) });
  const differing: FieldChange[] = [];
  const writeOnly: FieldName[] = [];

  for (const spec of COMPARED) {
    const field = spec.name;
    // A field enforced only where the website sets it, and it does not.
    if (!spec.inDefaults && values[field] === undefined) continue;
    if (current[field] === undefined) {
      // The service does not show this field. Only a value the file itself sets may be sent:
      // the service default would silently replace what the website holds (an export, which
      // cannot know the value, would wipe it on the next update).
      if (fileSets(site, defaults, field)) {
        writeOnly.push(field);
        report.unverified.push(field);
      } else if (old && fileSets(old.site, old.defaults, field)) {
        const clear = spec.compare === 'set' ? `; write "${field}: []" to clear it` : '';
        report.warnings.push(
          `${site.domain} (line ${site.pos.line}): ${field} is no longer in the file, so the service keeps the value it holds, which sitesync cannot read${clear}`,
        );
      }
      continue;
    }
    if (!sameValue(spec, current[field], values[field])) differing.push({ field, before: view().before[field] ?? null, after: view().after[field] ?? null });
  }
  // A field the service never shows (the password) is sent wherever the file sets it.
  for (const spec of FIELDS) {
    if (!spec.writeOnly || values[spec.name] === undefined) continue;
    writeOnly.push(spec.name);
    report.unverified.push(spec.name);
  }

  // Why each write-only field would be sent on its own account.
  const reasons = new Map<FieldName, WriteOnlyReason>();
  for (const field of writeOnly) {
    if (field === 'password' && values.privacy === 2 && current.password === false) reasons.set(field, 'missing');
    else if (old !== undefined && (old === null || !sameEnforced(field, old.values, values))) reasons.set(field, 'baseline');
    else if (again(field)) reasons.set(field, again(field)!);
  }
  if (values.privacy === 2 && current.password === false && !values.password) {
    const where = `${site.domain} (line ${site.pos.line})`;
    if (current.privacy !== 2) {
      report.problems.push(`${where}: privacy is password, but the service has no password for it and the file sets none`);
    } else {
      report.warnings.push(`${where}: privacy is password, but the service reports no password set; add one to the file`);
    }
  }

  if (differing.length === 0 && reasons.size === 0) return report;
  const { before, after } = view();
  const sent: FieldChange[] = [...differing];
  for (const field of writeOnly) {
    const reason = reasons.get(field) ?? 'with-update';
    const detail: FieldChange = { field, before: field === 'password' ? (current.password ?? null) : null, after: after[field] ?? null, write_only: reason };
    // Sending it replaces whatever the service holds, unseen; only a password known to be unset replaces nothing.
    if (!(field === 'password' && current.password === false)) detail.overwrites_unread = true;
    sent.push(detail);
  }
  sent.sort((a, b) => fieldOrder(a.field) - fieldOrder(b.field) || REASON_RANK[a.write_only ?? 'create'] - REASON_RANK[b.write_only ?? 'create']);
  report.change = {
    action: 'update',
    domain: site.domain,
    id: current.id,
    before,
    after,
    fields: sent.map((d) => d.field),
    details: sent,
    line: site.pos.line,
    ...where(site, config),
    ...sourceOf(values),
    seen: fingerprint(before),
  };
  return report;
}

/** Whether two files enforce the same value of a field. */
function sameEnforced(field: FieldName, a: Enforced, b: Enforced): boolean {
  const spec = FIELD[field];
  return spec.compare === 'secret' ? sameSecret(a.password, b.password) : sameValue(spec, a[spec.name], b[spec.name]);
}

/**
 * Every --target and --exclude must match a website of the file or of the account: a typo would
 * otherwise narrow the plan to nothing (or leave out nothing), and a drift check with it would
 * always pass. `where` says where they were looked for, for the message.
 */
export function assertPatternsMatch(options: ScopeOptions, domains: Iterable<string>[], where: string): void {
  const lines: string[] = [];
  const flags = new Set<string>();
  // With --target, an --exclude must leave out one of the targeted websites: else it excludes nothing.
  const targeted = options.targets?.length ? new GlobSet([...options.targets]) : undefined;
  for (const [flag, globs] of [['--target', options.targets ?? []], ['--exclude', options.excludes ?? []]] as const) {
    let pending = globs.map((glob) => ({ glob, set: new GlobSet([glob]) }));
    const among = flag === '--exclude' && targeted ? (domain: string) => targeted.matches(domain) : () => true;
    for (const list of domains) {
      for (const domain of list) {
        if (pending.length === 0) break;
        if (among(domain)) pending = pending.filter((t) => !t.set.matches(domain));
      }
    }
    for (const { glob } of pending) {
      // A URL or host:port is a common slip: say which bare domain was meant.
      const problem = /[:/]/.test(glob) ? parseDomainInput(glob).problem : undefined;
      flags.add(flag);
      const scope = flag === '--exclude' && targeted ? `that --target selects, ${where}` : where;
      lines.push(`${flag} "${glob}" matches no website ${scope}${problem ? `; ${problem}` : ''}`);
    }
  }
  if (lines.length === 0) return;
  const error = new PlanningError(lines.length === 1 ? lines[0]! : `${lines.length} ${flags.size === 1 ? `${[...flags][0]} ` : ''}patterns match no website ${where}`);
  if (lines.length > 1) error.details = lines;
  throw error;
}
