/**
 * The planner: (desired config, live websites, options) → Plan. Pure and deterministic: no
 * I/O, no clock, the same inputs give the same plan, byte for byte.
 */
import { GlobSet } from '../domain.js';
import { SitesyncError } from '../errors.js';
import type {
  Account,
  Change,
  Config,
  DesiredWebsite,
  FieldChange,
  FieldName,
  LiveWebsite,
  Plan,
  WriteOnlyReason,
} from '../model.js';
import { checkLimit, checkSafety, safetyWarnings } from './safety.js';
import { desiredView, enforcedValues, fingerprint, liveView, sameList, type Enforced } from './values.js';

export interface PlanOptions {
  /** `--prune` (the file's `prune: true` counts too). */
  prune?: boolean;
  /** `--target GLOB`…: only these domains. */
  targets?: string[];
  /** `--baseline OLDFILE`: the config as it was. */
  baseline?: Config;
  /** `--resend-write-only`. */
  resendWriteOnly?: boolean;
}

export interface PlanInput {
  config: Config;
  live: LiveWebsite[];
  account: Account | null;
  baseUrl: string;
  options?: PlanOptions;
}

/** The plan cannot be made as the file stands (e.g. privacy password without a password). */
export class PlanningError extends SitesyncError {
  override name = 'PlanningError';
}

const COMPARED = ['privacy', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips', 'favorite'] as const;
type Compared = (typeof COMPARED)[number];

const REASON_RANK: Record<WriteOnlyReason, number> = { create: 0, missing: 1, baseline: 2, resend: 3, 'with-update': 4 };

export function planChanges(input: PlanInput): Plan {
  const { config, live, account, baseUrl } = input;
  const options = input.options ?? {};
  const ignore = new GlobSet(config.ignore.map((p) => p.glob));
  const protect = new GlobSet(config.protect.map((p) => p.glob));
  const targets = options.targets?.length ? new GlobSet(options.targets) : undefined;
  const inScope = (domain: string) => !ignore.matches(domain) && (!targets || targets.matches(domain));
  const warnings: string[] = [];
  const problems: string[] = [];

  const liveByDomain = new Map<string, LiveWebsite>();
  for (const site of live) {
    const twin = liveByDomain.get(site.domain);
    if (twin) {
      warnings.push(`the service holds ${site.domain} twice (ids ${twin.id} and ${site.id}); sitesync manages id ${twin.id}`);
      continue;
    }
    liveByDomain.set(site.domain, site);
  }
  const baseline = options.baseline;
  const baselineValues = baseline
    ? new Map(baseline.websites.map((w) => [w.domain, enforcedValues(w, baseline.defaults)]))
    : undefined;

  const changes: Change[] = [];
  const unverified = new Set<FieldName>();
  const listed = new Set<string>();
  let unchanged = 0;

  for (const site of config.websites) {
    listed.add(site.domain);
    if (!inScope(site.domain)) continue;
    const values = enforcedValues(site, config.defaults);
    const current = liveByDomain.get(site.domain);
    if (site.written.toLowerCase().startsWith('www.') && current) {
      warnings.push(`"${site.written}" (line ${site.pos.line}) is matched to the live ${current.domain}: write the bare form`);
    }
    if (!current) {
      if (values.privacy === 2 && !values.password) {
        problems.push(`${site.domain} (line ${site.pos.line}): privacy is password, but the file sets no password for this new website`);
      }
      changes.push(createChange(site, values));
      continue;
    }
    const old = baselineValues ? (baselineValues.get(site.domain) ?? null) : undefined;
    const update = updateChange(site, values, current, old, options.resendWriteOnly === true, unverified, { problems, warnings });
    if (update) changes.push(update);
    else unchanged++;
  }

  const prune = options.prune === true || config.prune;
  let unmanaged = 0;
  for (const site of liveByDomain.values()) {
    if (listed.has(site.domain)) continue;
    if (prune && inScope(site.domain) && !protect.matches(site.domain)) {
      const before = liveView(site);
      changes.push({ action: 'delete', domain: site.domain, id: site.id, before, after: null, fields: [], details: [], seen: fingerprint(before) });
    } else {
      unmanaged++;
    }
  }

  if (problems.length) {
    const error = new PlanningError(problems.length === 1 ? problems[0]! : `${problems.length} websites cannot be planned`);
    if (problems.length > 1) error.details = problems;
    throw error;
  }

  const order = { create: 0, update: 1, delete: 2 } as const;
  changes.sort((a, b) => order[a.action] - order[b.action] || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));

  const summary = { create: 0, update: 0, delete: 0, unchanged, unmanaged };
  for (const change of changes) summary[change.action]++;
  const managed = live.filter((s) => inScope(s.domain)).length;
  const safety = checkSafety(summary.delete, managed, config.websites.length === 0, config.safety);
  const limit = checkLimit(account?.websiteLimit ?? null, live.length, summary.create, summary.delete);
  warnings.push(...safetyWarnings(safety, limit));
  return {
    format_version: 1,
    base_url: baseUrl,
    account: account ? { id: account.id, name: account.name, email: account.email } : null,
    summary,
    changes,
    warnings,
    unverified: [...unverified].sort(),
    safety,
    limit,
  };
}

function createChange(site: DesiredWebsite, values: Enforced): Change {
  const after = desiredView(site.domain, values);
  const fields: FieldName[] = ['privacy', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips'];
  if (values.password) fields.splice(1, 0, 'password');
  // favorite cannot be set on create: apply stores the website, then updates it.
  if (values.favorite === true) fields.push('favorite');
  const change: Change = {
    action: 'create',
    domain: site.domain,
    id: null,
    before: null,
    after,
    fields,
    details: fields.map((field) => ({ field, before: null, after: after[field as keyof typeof after] ?? null })),
    line: site.pos.line,
  };
  return change;
}

function updateChange(
  site: DesiredWebsite,
  values: Enforced,
  current: LiveWebsite,
  /** The baseline's values: undefined without --baseline; null when the baseline lacks the website. */
  old: Enforced | null | undefined,
  resend: boolean,
  unverified: Set<FieldName>,
  report: { problems: string[]; warnings: string[] },
): Change | undefined {
  const before = liveView(current);
  const after = desiredView(site.domain, values);
  const differing: FieldChange[] = [];
  const writeOnly: FieldName[] = [];

  for (const field of COMPARED) {
    if (field === 'favorite' && values.favorite === undefined) continue;
    if (current[field] === undefined) {
      writeOnly.push(field);
      unverified.add(field);
      continue;
    }
    if (!same(field, current, values)) differing.push({ field, before: before[field] ?? null, after: after[field] ?? null });
  }
  if (values.password) {
    writeOnly.push('password');
    unverified.add('password');
  }

  // Why each write-only field would be sent on its own account.
  const reasons = new Map<FieldName, WriteOnlyReason>();
  for (const field of writeOnly) {
    if (field === 'password' && values.privacy === 2 && current.password === false) reasons.set(field, 'missing');
    else if (old !== undefined && (old === null || !sameEnforced(field, old, values))) reasons.set(field, 'baseline');
    else if (resend) reasons.set(field, 'resend');
  }
  if (values.privacy === 2 && current.password === false && !values.password) {
    const where = `${site.domain} (line ${site.pos.line})`;
    if (current.privacy !== 2) {
      report.problems.push(`${where}: privacy is password, but the service has no password for it and the file sets none`);
    } else {
      report.warnings.push(`${where}: privacy is password, but the service reports no password set; add one to the file`);
    }
  }

  if (differing.length === 0 && reasons.size === 0) return undefined;
  const sent: FieldChange[] = [...differing];
  for (const field of writeOnly) {
    const reason = reasons.get(field) ?? 'with-update';
    sent.push({ field, before: field === 'password' ? (current.password ?? null) : null, after: after[field] ?? null, write_only: reason });
  }
  sent.sort((a, b) => fieldOrder(a.field) - fieldOrder(b.field) || REASON_RANK[a.write_only ?? 'create'] - REASON_RANK[b.write_only ?? 'create']);
  const change: Change = {
    action: 'update',
    domain: site.domain,
    id: current.id,
    before,
    after,
    fields: sent.map((d) => d.field),
    details: sent,
    line: site.pos.line,
    seen: fingerprint(before),
  };
  return change;
}

function same(field: Compared, current: LiveWebsite, values: Enforced): boolean {
  switch (field) {
    case 'exclude_params':
    case 'exclude_ips':
      return sameList(current[field] ?? [], values[field]);
    default:
      return current[field] === values[field];
  }
}

function sameEnforced(field: FieldName, a: Enforced, b: Enforced): boolean {
  switch (field) {
    case 'password':
      return a.password?.value === b.password?.value;
    case 'exclude_params':
    case 'exclude_ips':
      return sameList(a[field], b[field]);
    default:
      return a[field] === b[field];
  }
}

const FIELD_ORDER: FieldName[] = ['privacy', 'password', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips', 'favorite'];
function fieldOrder(field: FieldName): number {
  return FIELD_ORDER.indexOf(field);
}
