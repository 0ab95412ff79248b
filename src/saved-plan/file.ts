/**
 * Saved plans (`plan --out`, `apply PLANFILE`): the JSON plan of a run, with a fingerprint of
 * every website a change touches as it was seen (`seen`), and what making it again needs: the
 * config file it was made from (its path in the repository and the SHA-256 of its text and of
 * every file it includes) and the options it was made with. No secret (a password's variable
 * by name only, in `password_from`, for the reviewer): apply takes each password from that config
 * file. apply does not trust what a saved plan says it does: it plans again (run/saved.ts) and
 * refuses anything that differs.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { interpolate } from '../config/interpolate.js';
import { readTextFile } from '../config/read.js';
import { repositoryOf } from '../config/source.js';
import { ConfigError, SitesyncError } from '../messages/errors.js';
import { jsonUnicodeEscapes } from '../messages/escape.js';
import { writeAtomic } from '../io/files.js';
import { FIELD_NAMES } from '../model/fields.js';
import type { AccountPlan, Change, Config, Plan, Summary, Workspace } from '../model/types.js';
import { packageVersion } from '../io/paths.js';
import { FORMAT_VERSION, runJson } from '../render/run.js';
import { schemaProblems } from './schema.js';

/** What a plan was made from and with, beyond its changes. */
export interface SavedMeta {
  created_at: string;
  sitesync_version: string;
  /** The config file, relative to the repository (see repositoryRoot), with `/`. */
  config_file: string;
  /** The SHA-256 of the config file's text and of every file it includes. */
  config_sha256: string;
  /** `--target`, `--exclude`, `--prune`, `--resend-write-only` as the plan was made with them. */
  targets: string[];
  excludes: string[];
  prune: boolean;
  resend_write_only: boolean;
}

export type SavedChange = Change & { account: string | null };

export interface SavedAccount {
  name: string | null;
  base_url: string;
  account: { id: number | string | null; name: string; email: string } | null;
}

export interface SavedPlan {
  format_version: typeof FORMAT_VERSION;
  changes: SavedChange[];
  accounts: SavedAccount[];
  saved: SavedMeta;
}

/**
 * A config file's name as a saved plan records it: its path from the top of its repository (the
 * git work tree; outside git, its own folder), with `/`. The same in every checkout of the
 * repository, wherever the checkout or the plan file is.
 */
export function repositoryPath(file: string): string {
  const real = realpathSync(file);
  return relative(repositoryOf(real), real).split(sep).join('/');
}

export interface SaveOptions {
  accounts: AccountPlan[];
  workspace: Workspace;
  /** The configs of the accounts planned. */
  configs: Config[];
  cwd: string;
  targets?: string[];
  excludes?: string[];
  prune?: boolean;
  resendWriteOnly?: boolean;
  now?: Date;
}

export async function savePlan(file: string, options: SaveOptions): Promise<void> {
  for (const a of options.accounts) {
    if (!a.plan) throw new SitesyncError(`the plan was not saved: it must cover every account, and ${a.name} could not be planned`);
  }
  assertNoLiteralPasswords(options);
  const saved: SavedMeta = {
    created_at: (options.now ?? new Date()).toISOString(),
    sitesync_version: packageVersion(),
    config_file: repositoryPath(options.workspace.file),
    config_sha256: options.workspace.sha256,
    targets: options.targets ?? [],
    excludes: options.excludes ?? [],
    prune: options.prune === true,
    resend_write_only: options.resendWriteOnly === true,
  };
  const plan = { ...runJson(options.accounts, { keepSeen: true }), saved };
  // As the JSON output: live text with DEL, C1 or bidi controls is escaped, so `cat plan.json` is safe.
  await writeAtomic(file, `${jsonUnicodeEscapes(JSON.stringify(plan, null, 2))}\n`);
}

/** A saved plan never holds a password in clear: one written literally in the file cannot be saved. */
function assertNoLiteralPasswords({ accounts, configs }: SaveOptions): void {
  const literal: string[] = [];
  accounts.forEach((a, i) => {
    const sites = new Map(configs[i]!.websites.map((w) => [w.domain, w]));
    for (const c of a.plan?.changes ?? []) {
      const password = sites.get(c.domain)?.password;
      if (c.fields.includes('password') && password !== undefined && !interpolate(password.template, {}).referenced) literal.push(c.domain);
    }
  });
  if (literal.length) {
    const error = new SitesyncError(
      `cannot save the plan: the password of ${literal.join(', ')} is written in the file, and a saved plan never holds a password in clear`,
    );
    error.details = ['Write it as password: ${NAME} and set NAME in the environment, then plan again.'];
    throw error;
  }
}

/**
 * Reads a saved plan and checks its shape against schemas/plan.schema.json, every problem at
 * once, before anything else happens. `shown` is the file's name as the user wrote it.
 */
export async function readSavedPlan(file: string, shown: string): Promise<SavedPlan> {
  const text = await readTextFile(file, 'saved plan');
  const fail = (messages: string[]): never => {
    throw new ConfigError(messages.map((message) => ({ file: shown, line: 0, col: 0, message, severity: 'error' as const })));
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // `sitesync apply sitesync.yaml`: a config file is given with -c.
    if (/\.ya?ml$/i.test(shown) || /^(version|websites|accounts):/m.test(text)) {
      return fail([`this is a config file, not a saved plan: to apply it, give it with -c (sitesync apply -c ${shown}); a saved plan is made with sitesync plan --out FILE`]);
    }
    return fail(['this is not a saved plan (not JSON): make one with sitesync plan --out FILE']);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data) || !('saved' in data) || !('changes' in data)) {
    return fail(['this is not a saved plan: make one with sitesync plan --out FILE']);
  }
  const version = (data as { format_version?: unknown }).format_version;
  if (version !== FORMAT_VERSION) fail([formatVersionProblem(version)]);
  const problems = await schemaProblems(data);
  const plan = data as SavedPlan;
  if (!problems.length) {
    const names = new Set(plan.accounts.map((a) => a.name));
    if (names.size !== plan.accounts.length) problems.push('accounts: an account is there twice');
    plan.changes.forEach((c, i) => {
      if (!names.has(c.account)) problems.push(`changes[${i}].account: ${JSON.stringify(c.account)} is not one of the plan's accounts`);
    });
    const file = plan.saved.config_file;
    if (isAbsolute(file) || file.split(/[\\/]/).includes('..')) {
      problems.push(`saved.config_file: "${file}" is not a path inside the repository; a saved plan names its config file from the repository's top`);
    }
  }
  if (problems.length) fail(problems);
  return plan;
}

function formatVersionProblem(version: unknown): string {
  if (version === undefined) return 'format_version is missing: this is not a saved plan of this sitesync; make the plan again';
  if (version === 1) return 'format_version is 1: the plan was saved by an older sitesync, whose plans this one does not apply; make the plan again';
  if (version === String(FORMAT_VERSION)) return `format_version is the string "${version}"; this sitesync reads format_version ${FORMAT_VERSION} (a number)`;
  return `format_version is ${JSON.stringify(version)}; this sitesync reads format_version ${FORMAT_VERSION}: make the plan again with this sitesync`;
}

/**
 * The accounts' plans as a saved plan holds them, for showing it (`sitesync show`). Nothing here
 * is trusted for applying: apply plans again. What the file leaves out reads as empty.
 */
export function savedAccounts(saved: SavedPlan): AccountPlan[] {
  return saved.accounts.map((a) => {
    const info = a as SavedAccount & Partial<Pick<Plan, 'warnings' | 'unverified' | 'safety' | 'limit'>> & { summary?: Partial<Summary> | null };
    const changes = saved.changes.filter((c) => c.account === a.name).map(({ account: _account, ...change }) => change as Change);
    const count = (action: Change['action']) => changes.filter((c) => c.action === action).length;
    const number = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0);
    const plan: Plan = {
      base_url: a.base_url,
      account: a.account,
      summary: { create: count('create'), update: count('update'), delete: count('delete'), unchanged: number(info.summary?.unchanged), unmanaged: number(info.summary?.unmanaged) },
      changes,
      warnings: Array.isArray(info.warnings) ? info.warnings.filter((w): w is string => typeof w === 'string') : [],
      unverified: Array.isArray(info.unverified) ? info.unverified.filter((f) => (FIELD_NAMES as readonly unknown[]).includes(f)) : [],
      safety: info.safety ?? { managed: 0, deletes: 0, percent: 0, max_delete_percent: 0, min_existing: 0, exceeded: false, empty_file: false },
      limit: info.limit ?? { limit: null, live: 0, after: 0, exceeded: false },
    };
    return { name: a.name ?? '', baseUrl: a.base_url, plan };
  });
}
