/**
 * Saved plans (`plan --out`, `apply PLANFILE`): the plan's JSON plus what applying it later
 * needs — a fingerprint of every website it touches as it was seen, and each secret as its
 * `${NAME}` reference, never in clear.
 */
import { interpolate, type Env } from '../config/interpolate.js';
import { readTextFile } from '../config/read.js';
import { ConfigError, SitesyncError } from '../errors.js';
import { writeAtomic } from '../files.js';
import type { Change, Plan } from '../model.js';
import { packageVersion } from '../paths.js';

export interface SavedPlan extends Plan {
  saved: {
    created_at: string;
    sitesync_version: string;
    config_file: string;
    /** How many websites the account held when the plan was made. */
    live_total: number;
  };
}

export async function savePlan(file: string, plan: Plan, meta: { configFile: string; liveTotal: number; now?: Date }): Promise<void> {
  const literal = plan.changes.filter((c) => c.secrets?.password !== undefined && !interpolate(c.secrets.password, {}).referenced);
  if (literal.length) {
    const error = new SitesyncError(
      `cannot save the plan: the password of ${literal.map((c) => c.domain).join(', ')} is written in the file, and a saved plan never holds a password in clear`,
    );
    error.details = ['Write it as password: ${NAME} and set NAME in the environment, then plan again.'];
    throw error;
  }
  const saved: SavedPlan = {
    ...plan,
    saved: {
      created_at: (meta.now ?? new Date()).toISOString(),
      sitesync_version: packageVersion(),
      config_file: meta.configFile,
      live_total: meta.liveTotal,
    },
  };
  await writeAtomic(file, `${JSON.stringify(saved, null, 2)}\n`);
}

export async function loadSavedPlan(file: string): Promise<SavedPlan> {
  const text = await readTextFile(file, 'saved plan');
  const fail = (message: string): never => {
    throw new ConfigError([{ file, line: 0, col: 0, message, severity: 'error' }]);
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return fail('this is not a saved plan (not JSON): make one with sitesync plan --out FILE');
  }
  const plan = data as Partial<SavedPlan>;
  if (!plan || typeof plan !== 'object' || !('saved' in plan) || !Array.isArray(plan.changes)) {
    return fail('this is not a saved plan: make one with sitesync plan --out FILE');
  }
  if (plan.format_version !== 1) return fail(`this plan has format_version ${String(plan.format_version)}; this sitesync reads 1`);
  plan.changes.forEach((c: Partial<Change>, i) => {
    const ok =
      (c.action === 'create' || c.action === 'update' || c.action === 'delete') &&
      typeof c.domain === 'string' &&
      (c.action === 'create' ? c.after : c.action === 'update' ? c.after && typeof c.id === 'number' && typeof c.seen === 'string' : typeof c.id === 'number' && typeof c.seen === 'string') &&
      Array.isArray(c.fields);
    if (!ok) fail(`change ${i + 1} (${String(c.domain)}) is incomplete: the file was edited or truncated; make the plan again`);
  });
  return plan as SavedPlan;
}

/**
 * The value of each secret a plan sends, read from the environment now. A missing variable is
 * an error before any write.
 */
export function resolveSecrets(plan: Plan, env: Env, source: string): Map<Change, { password?: string }> {
  const resolved = new Map<Change, { password?: string }>();
  const missing: string[] = [];
  for (const change of plan.changes) {
    const template = change.secrets?.password;
    if (template === undefined) continue;
    const r = interpolate(template, env);
    if (r.missing.length) {
      missing.push(`${change.domain}: the password needs ${r.missing.map((n) => `$${n}`).join(', ')}, which is not set`);
      continue;
    }
    resolved.set(change, { password: r.value });
  }
  if (missing.length) {
    const error = new SitesyncError(`${source}: ${missing.length === 1 ? missing[0] : `${missing.length} passwords cannot be read from the environment`}`);
    if (missing.length > 1) error.details = missing;
    error.details.push('Nothing was written to the service.');
    throw error;
  }
  return resolved;
}
