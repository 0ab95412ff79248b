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
import { readConfigText } from '../config/load.js';
import { parseConfig } from '../config/parse.js';
import { readTextFile } from '../config/read.js';
import { globProblem } from '../domain.js';
import { ConfigError, SitesyncError } from '../errors.js';
import { writeAtomic } from '../files.js';
import type { Config, Plan } from '../model.js';
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
    /** Made with `--prune`: deletes are allowed even where the config file does not prune. */
    prune?: boolean;
  };
}

export interface SaveMeta {
  config: Config;
  configSha256: string;
  liveTotal: number;
  targets?: string[];
  /** `--prune`. */
  prune?: boolean;
  now?: Date;
}

export async function savePlan(file: string, plan: Plan, meta: SaveMeta): Promise<void> {
  const sites = new Map(meta.config.websites.map((w) => [w.domain, w]));
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
  const saved: SavedPlan = {
    ...plan,
    saved: {
      created_at: (meta.now ?? new Date()).toISOString(),
      sitesync_version: packageVersion(),
      config_file: relative(dirname(file), meta.config.file).split(sep).join('/'),
      config_sha256: meta.configSha256,
      live_total: meta.liveTotal,
      targets: meta.targets ?? [],
      prune: meta.prune === true,
    },
  };
  // As the JSON output: live text with DEL, C1 or bidi controls is escaped, so `cat plan.json` is safe.
  await writeAtomic(file, `${jsonUnicodeEscapes(JSON.stringify(saved, null, 2))}\n`);
}

/**
 * Reads a saved plan and checks all of it before anything else happens: its format version,
 * the schema, then the config's rules for what it would send. Every problem at once.
 * `shown` is the file's name as the user wrote it, for messages.
 */
export async function loadSavedPlan(file: string, shown: string): Promise<SavedPlan> {
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
  if (!data || typeof data !== 'object' || Array.isArray(data) || !('saved' in data) || !('changes' in data)) {
    return fail(['this is not a saved plan: make one with sitesync plan --out FILE']);
  }
  const version = (data as { format_version?: unknown }).format_version;
  if (version !== 1) fail([formatVersionProblem(version)]);

  const schema = await schemaProblems(data);
  const plan = data as SavedPlan;
  // The rules read only changes whose shape is right; the others already have their messages.
  const changes = Array.isArray(plan.changes) ? plan.changes : [];
  const wellFormed = changes.map((_, i) => !schema.some((p) => p.startsWith(`changes[${i}]`)));
  const rules = ruleProblems(changes.filter((_, i) => wellFormed[i])).map((p) =>
    p.replace(/^changes\[(\d+)\]/, (_, k: string) => `changes[${indexAmong(wellFormed, Number(k))}]`),
  );
  const targets = Array.isArray(plan.saved?.targets) ? plan.saved.targets : [];
  targets.forEach((glob, k) => {
    const problem = typeof glob === 'string' ? globProblem(glob) : undefined;
    if (problem) rules.push(`saved.targets[${k}]: ${problem}`);
  });
  const problems = [...schema, ...rules].sort(byChange);
  if (problems.length) fail(problems);
  plan.saved.targets = targets;
  return plan;
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
 * The config file a saved plan was made from, re-read: it must be there and unchanged (same
 * SHA-256), and it is loaded with the normal loader, `${NAME}` taken from the environment now.
 * Every change of the plan must be one that file asks for.
 */
export async function loadPlanConfig(
  plan: SavedPlan,
  planFile: string,
  shownPlan: string,
  cwd: string,
  env: Env,
): Promise<{ config: Config; shown: string }> {
  const file = resolve(dirname(planFile), plan.saved.config_file);
  const shown = relative(cwd, file) || file;
  const again = `Make the plan again: sitesync plan${shown === 'sitesync.yaml' ? '' : ` -c ${shown}`} --out ${shownPlan}`;
  const refuse = (message: string): never => {
    const error = new SitesyncError(`${message}; nothing was written`);
    error.details = [`A saved plan takes its passwords only from the config file it was made from. ${again}`];
    throw error;
  };
  let read: { text: string; sha256: string } | undefined;
  try {
    if (!existsSync(file)) refuse(`${shown}, which ${shownPlan} was made from, cannot be read: no such file`);
    read = await readConfigText(file);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    refuse(`${shown}, which ${shownPlan} was made from, cannot be read: ${error.diagnostics[0]?.message ?? error.message}`);
  }
  if (read!.sha256 !== plan.saved.config_sha256) refuse(`${shown} changed since ${shownPlan} was made from it (its SHA-256 differs)`);
  const config = parseConfig(read!.text, file, { env });
  // The file is unchanged, so every change must be one it asks for: nothing edited in.
  const problems = configProblems(plan, config, shown);
  if (problems.length) {
    throw new ConfigError(problems.map((message) => ({ file: shownPlan, line: 0, col: 0, message, severity: 'error' as const })));
  }
  return { config, shown };
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
