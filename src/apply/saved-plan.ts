/**
 * Saved plans (`plan --out`, `apply PLANFILE`): the plan's JSON plus what applying it later
 * needs — a fingerprint of every website it touches as it was seen, the account it was made
 * for, and the config file it was made from (path and SHA-256). No secret, and no name of one:
 * apply takes each password from that config file, re-read and checked unchanged.
 */
import { existsSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { Env } from '../config/interpolate.js';
import { interpolate } from '../config/interpolate.js';
import { loadWorkspace } from '../config/load.js';
import { readTextFile } from '../config/read.js';
import { globProblem } from '../domain.js';
import { ConfigError, SitesyncError } from '../errors.js';
import { writeAtomic } from '../files.js';
import type { Config, Plan, Workspace } from '../model.js';
import { packageVersion } from '../paths.js';
import { configProblems } from './plan-config.js';
import { ruleProblems } from './plan-rules.js';
import { schemaProblems } from './plan-schema.js';
import { jsonUnicodeEscapes } from '../render/escape.js';

export interface SavedPlan extends Plan {
  saved: {
    created_at: string;
    sitesync_version: string;
    /** The config file the plan was made from, relative to the plan file's folder. */
    config_file: string;
    /** The SHA-256 of that file's text. */
    config_sha256: string;
    /** How many websites the account held when the plan was made (informational). */
    live_total: number;
    /** The `--target` patterns the plan was made with. */
    targets: string[];
    /** The `--exclude` patterns the plan was made with. */
    excludes?: string[];
    /** Made with `--prune`: deletes are allowed even where the config file does not prune. */
    prune?: boolean;
  };
}

export interface SaveMeta {
  config: Config;
  configSha256: string;
  liveTotal: number;
  targets?: string[];
  excludes?: string[];
  /** `--prune`. */
  prune?: boolean;
  now?: Date;
}

export async function savePlan(file: string, plan: Plan, meta: SaveMeta): Promise<void> {
  assertNoLiteralPasswords(plan, meta.config);
  // As the JSON output: live text with DEL, C1 or bidi controls is escaped, so `cat plan.json` is safe.
  await writeAtomic(file, `${jsonUnicodeEscapes(JSON.stringify(savedPlanOf(file, plan, meta), null, 2))}\n`);
}

/** A saved plan never holds a password in clear: one written literally in the file cannot be saved. */
function assertNoLiteralPasswords(plan: Plan, config: Config): void {
  const sites = new Map(config.websites.map((w) => [w.domain, w]));
  const literal = plan.changes.filter((c) => {
    const password = sites.get(c.domain)?.password;
    return c.fields.includes('password') && password !== undefined && !interpolate(password.template, {}).referenced;
  });
  if (literal.length) {
    const error = new SitesyncError(
      `cannot save the plan: the password of ${literal.map((c) => c.domain).join(', ')} is written in the file, and a saved plan never holds a password in clear`,
    );
    error.details = ['Write it as password: ${NAME} and set NAME in the environment, then plan again.'];
    throw error;
  }
}

function savedPlanOf(file: string, plan: Plan, meta: SaveMeta): SavedPlan {
  return {
    ...plan,
    saved: {
      created_at: (meta.now ?? new Date()).toISOString(),
      sitesync_version: packageVersion(),
      config_file: relative(dirname(file), meta.config.file).split(sep).join('/'),
      config_sha256: meta.configSha256,
      live_total: meta.liveTotal,
      targets: meta.targets ?? [],
      ...(meta.excludes?.length ? { excludes: meta.excludes } : {}),
      prune: meta.prune === true,
    },
  };
}

/** A saved plan of a many-account file: one saved plan per account, made from one config file. */
export interface SavedAccountsPlan {
  format_version: 1;
  saved: Pick<SavedPlan['saved'], 'created_at' | 'sitesync_version' | 'config_file' | 'config_sha256'>;
  accounts: { name: string; plan: SavedPlan }[];
}

export type LoadedPlan = { multi: false; plan: SavedPlan } | { multi: true; plan: SavedAccountsPlan };

/** Saves the plan of every account of a many-account run, each as a saved plan of its own. */
export async function saveAccountsPlan(
  file: string,
  run: { workspace: Workspace; accounts: { name: string; config: Config; planned?: { plan: Plan; live: unknown[] } }[] },
  meta: Pick<SaveMeta, 'targets' | 'excludes' | 'prune' | 'now'>,
): Promise<void> {
  const now = meta.now ?? new Date();
  const accounts = run.accounts.map((a) => {
    if (!a.planned) throw new SitesyncError(`the plan was not saved: ${a.name} could not be planned`);
    assertNoLiteralPasswords(a.planned.plan, a.config);
    const saved = savedPlanOf(file, a.planned.plan, { ...meta, now, config: { ...a.config, file: run.workspace.file }, configSha256: run.workspace.sha256, liveTotal: a.planned.live.length });
    return { name: a.name, plan: saved };
  });
  const first = accounts[0]!.plan.saved;
  const out: SavedAccountsPlan = {
    format_version: 1,
    saved: { created_at: first.created_at, sitesync_version: first.sitesync_version, config_file: first.config_file, config_sha256: first.config_sha256 },
    accounts,
  };
  await writeAtomic(file, `${jsonUnicodeEscapes(JSON.stringify(out, null, 2))}\n`);
}

/**
 * Reads a saved plan of either form and checks all of it before anything else happens: its
 * format version, the schema, then the config's rules for what it would send, for every
 * account's plan. Every problem at once. `shown` is the file's name as the user wrote it.
 */
export async function loadAnySavedPlan(file: string, shown: string): Promise<LoadedPlan> {
  const text = await readTextFile(file, 'saved plan');
  const fail = (messages: string[]): never => {
    throw new ConfigError(messages.map((message) => ({ file: shown, line: 0, col: 0, message, severity: 'error' as const })));
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return fail(['this is not a saved plan (not JSON): make one with sitesync plan --out FILE']);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data) || !('saved' in data) || !('changes' in data || 'accounts' in data)) {
    return fail(['this is not a saved plan: make one with sitesync plan --out FILE']);
  }
  const version = (data as { format_version?: unknown }).format_version;
  if (version !== 1) fail([formatVersionProblem(version)]);
  if (!('accounts' in data)) {
    const problems = await planProblems(data);
    if (problems.length) fail(problems);
    return { multi: false, plan: data as SavedPlan };
  }

  const multi = data as SavedAccountsPlan;
  const problems: string[] = [];
  const extra = Object.keys(multi).filter((k) => !['format_version', 'saved', 'accounts'].includes(k));
  for (const key of extra) problems.push(`${key}: not a key of a saved plan of several accounts`);
  const top = multi.saved as unknown;
  if (!top || typeof top !== 'object' || typeof multi.saved.config_file !== 'string' || typeof multi.saved.config_sha256 !== 'string') {
    problems.push('saved: must hold config_file and config_sha256');
  }
  if (!Array.isArray(multi.accounts) || multi.accounts.length === 0) {
    problems.push('accounts: must be a list of the accounts planned');
    return fail(problems);
  }
  const names = new Set<string>();
  for (const [i, entry] of multi.accounts.entries()) {
    const at = `accounts[${i}]`;
    if (!entry || typeof entry !== 'object' || typeof entry.name !== 'string' || !entry.plan || typeof entry.plan !== 'object') {
      problems.push(`${at}: must be { name, plan }`);
      continue;
    }
    if (names.has(entry.name)) problems.push(`${at}: the account ${entry.name} is there twice`);
    names.add(entry.name);
    const own = entry.plan.saved as SavedPlan['saved'] | undefined;
    if (own && (own.config_file !== multi.saved?.config_file || own.config_sha256 !== multi.saved?.config_sha256)) {
      problems.push(`${at}.plan.saved: names another config file than the plan's`);
    }
    for (const p of await planProblems(entry.plan)) problems.push(`${at} (${entry.name}).plan.${p}`);
  }
  if (problems.length) fail(problems);
  return { multi: true, plan: multi };
}

/** Every problem of one account's saved plan: its schema, the rules of its changes, its patterns. */
async function planProblems(data: unknown): Promise<string[]> {
  const schema = await schemaProblems(data);
  const plan = data as SavedPlan;
  // The rules read only changes whose shape is right; the others already have their messages.
  const changes = Array.isArray(plan.changes) ? plan.changes : [];
  const wellFormed = changes.map((_, i) => !schema.some((p) => p.startsWith(`changes[${i}]`)));
  const rules = ruleProblems(changes.filter((_, i) => wellFormed[i])).map((p) =>
    p.replace(/^changes\[(\d+)\]/, (_, k: string) => `changes[${indexAmong(wellFormed, Number(k))}]`),
  );
  for (const key of ['targets', 'excludes'] as const) {
    const list = plan.saved?.[key];
    (Array.isArray(list) ? list : []).forEach((glob, k) => {
      const problem = typeof glob === 'string' ? globProblem(glob) : undefined;
      if (problem) rules.push(`saved.${key}[${k}]: ${problem}`);
    });
  }
  const problems = [...schema, ...rules].sort(byChange);
  if (!problems.length && plan.saved && !Array.isArray(plan.saved.targets)) plan.saved.targets = [];
  return problems;
}

function formatVersionProblem(version: unknown): string {
  if (version === undefined) return 'format_version is missing: this is not a saved plan of this sitesync; make the plan again';
  if (version === '1') return 'format_version is the string "1"; this sitesync reads format_version 1 (a number)';
  return `format_version is ${JSON.stringify(version)}; this sitesync reads format_version 1: make the plan again with this sitesync`;
}

/** The index in the whole list of the k-th well-formed change. */
function indexAmong(wellFormed: boolean[], k: number): number {
  let seen = -1;
  for (let i = 0; i < wellFormed.length; i++) if (wellFormed[i] && ++seen === k) return i;
  return k;
}

/** Problems in the file's order: by change index, then as found. */
function byChange(a: string, b: string): number {
  const index = (p: string) => Number(/^changes\[(\d+)\]/.exec(p)?.[1] ?? -1);
  return index(a) - index(b);
}

/**
 * The config file a saved plan was made from, re-read with every file it includes: they must be
 * there and unchanged (same SHA-256), and are loaded with the normal loader, `${NAME}` taken
 * from the environment now.
 */
export async function loadPlanWorkspace(
  saved: Pick<SavedPlan['saved'], 'config_file' | 'config_sha256'>,
  planFile: string,
  shownPlan: string,
  cwd: string,
  env: Env,
): Promise<{ workspace: Workspace; shown: string }> {
  const file = resolve(dirname(planFile), saved.config_file);
  const shown = relative(cwd, file) || file;
  const again = `Make the plan again: sitesync plan${shown === 'sitesync.yaml' ? '' : ` -c ${shown}`} --out ${shownPlan}`;
  const refuse = (message: string): never => {
    const error = new SitesyncError(`${message}; nothing was written`);
    error.details = [`A saved plan takes its passwords only from the config file it was made from. ${again}`];
    throw error;
  };
  if (!existsSync(file)) refuse(`${shown}, which ${shownPlan} was made from, cannot be read: no such file`);
  let workspace: Workspace | undefined;
  try {
    workspace = await loadWorkspace(file, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const first = error.diagnostics[0];
    refuse(`${shown}, which ${shownPlan} was made from, cannot be read: ${first?.message ?? error.message}`);
  }
  if (workspace!.sha256 !== saved.config_sha256) {
    refuse(`${shown}${workspace!.files.length > 1 ? ' or a file it includes' : ''} changed since ${shownPlan} was made from it (its SHA-256 differs)`);
  }
  return { workspace: workspace!, shown };
}

/** A one-account saved plan's config: the file unchanged, and every change one it asks for. */
export async function loadPlanConfig(
  plan: SavedPlan,
  planFile: string,
  shownPlan: string,
  cwd: string,
  env: Env,
): Promise<{ config: Config; shown: string }> {
  const { workspace, shown } = await loadPlanWorkspace(plan.saved, planFile, shownPlan, cwd, env);
  if (workspace.multi) throw new SitesyncError(`${shownPlan} was made for one account, and ${shown} holds accounts; nothing was written`);
  const config = workspace.configs[0]!;
  assertPlanMatchesConfig(plan, config, shown, shownPlan);
  return { config, shown };
}

/** The file is unchanged, so every change must be one it asks for: nothing edited in. */
export function assertPlanMatchesConfig(plan: SavedPlan, config: Config, shown: string, shownPlan: string, prefix = ''): void {
  const problems = configProblems(plan, config, shown);
  if (problems.length) {
    throw new ConfigError(problems.map((message) => ({ file: shownPlan, line: 0, col: 0, message: `${prefix}${message}`, severity: 'error' as const })));
  }
}

/**
 * The password each change sends, from the config it was planned from: the website's own
 * `${NAME}` there, resolved when the file was loaded. Never from a name written in a plan.
 * Refuses, before any write, a plan that sends a password the file does not set.
 */
export function passwordsFromConfig(plan: Plan, config: Config, shownConfig: string): (domain: string) => string | undefined {
  const sites = new Map(config.websites.map((w) => [w.domain, w]));
  const passwordFor = (domain: string) => sites.get(domain)?.password?.value;
  const missing = plan.changes.filter((c) => c.fields.includes('password') && passwordFor(c.domain) === undefined).map((c) => c.domain);
  if (missing.length) {
    const error = new SitesyncError(
      `the plan sends a password for ${missing.join(', ')}, but ${shownConfig} sets none for ${missing.length === 1 ? 'it' : 'them'}; nothing was written`,
    );
    error.details = ['Make the plan again from the file.'];
    throw error;
  }
  return passwordFor;
}
