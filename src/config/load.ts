/** Loading a config file and the files it includes: read them (I/O), then parse them (pure). */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { installationOf } from '../model/address.js';
import { ConfigError, refuseFile, type Diagnostic } from '../messages/errors.js';
import { domainKey, GlobSet, namesTwinSpelling, wildcardMatches } from '../model/domain.js';
import { type Config, type DesiredWebsite, type Pattern, type Position, type Workspace } from '../model/types.js';
import { envValue, passwordSource } from './interpolate.js';
import type { Env } from '../io/context.js';
import { parseFile, readFileCollecting, type ParsedFile, type ParseOptions } from './parse.js';
import { foldersUp } from './read.js';
import { folderOutside, realOrSelf, WORK_TREE, type FileSource } from './source.js';
import { openRevision } from './git-revision.js';
import { MAX_CONFIG_FILE_BYTES, MAX_YAML_TOKENS } from '../caps.js';

/** What to do about an include that matches no file: the layout is entered by a file to fill, or by init. */
const NO_FILE_HINT = ': create the file (websites: [] is enough, and import --unmanaged fills it), or leave include: out of an account that lists no websites yet and let sitesync init write its folder';

export interface LoadOptions extends Pick<ParseOptions, 'lenientEnv' | 'missingEnvAsWarning'> {
  /** What the file is to the user, for messages: a config file, or a baseline file. */
  what?: 'config file' | 'baseline file';
  /** Where the files are read from: the work tree (default), or a git revision (git-revision.ts). */
  source?: FileSource;
  /** Errors do not throw but are among the `warnings`: for checks said beside them (the trusted copy's pins, unset keys), never to run on. */
  keepErrors?: boolean;
}

/** The file and its includes at `ref` (--baseline-ref), a baseline: ${NAME}s need not be set (passwords compare as written); undefined if not there. */
export async function loadWorkspaceAt(file: string, ref: string, env: Env): Promise<Workspace | undefined> {
  const source = await openRevision(file, ref, env);
  if (!source.has(file)) return undefined;
  return loadWorkspace(file, env, { lenientEnv: true, what: 'baseline file', source });
}

/** Every account a config file describes, with the files it includes: the problems of all of them at once, each at its FILE:LINE:COL. */
export async function loadWorkspace(file: string, env: Env, options: LoadOptions = {}): Promise<Workspace> {
  const source = options.source ?? WORK_TREE;
  // One file's caps hold for the config and its includes together: a thousand files would take a thousand times as long.
  const tokens = { left: MAX_YAML_TOKENS };
  const parseOptions = { env, lenientEnv: options.lenientEnv, missingEnvAsWarning: options.missingEnvAsWarning, tokens };
  let text: string;
  let read: ReturnType<typeof readFileCollecting>;
  try {
    const outside = source.refused(file);
    if (outside) refuseFile(file, outside);
    text = await source.read(file, options.what ?? 'config file');
    read = readFileCollecting(text, file, parseOptions);
  } catch (error) {
    throw error instanceof ConfigError ? new ConfigError(error.diagnostics.map((d) => ({ ...d, file: source.shown(d.file) }))) : error;
  }
  const { parsed, problems } = read;
  let bytes = MAX_CONFIG_FILE_BYTES - Buffer.byteLength(text);
  let over = false;
  // What the SHA-256 covers: a file without includes, its text alone (a saved plan of it stays valid).
  const hash = createHash('sha256').update(parsed.includes.length === 0 ? text : `${basename(file)}\0${text}\0`);
  const walked = await walkIncludes(file, parsed, source, options.what);
  const files = [file, ...walked.matches.map((m) => m.path)];
  problems.push(...walked.problems);
  for (const { config, glob, pos, path: match } of walked.matches) {
    // Past either cap, said once (below): nothing more is read.
    if (over) continue;
    try {
      const included = await source.read(match, 'included file');
      bytes -= Buffer.byteLength(included);
      if (bytes < 0) {
        over = true;
        problems.push({ file, ...pos, severity: 'error', message: `include "${glob}": with ${source.shown(match)}, the config and the files it includes hold more than ${MAX_CONFIG_FILE_BYTES / 1048576} MiB together, more than any config (100,000 websites take at most about 15 MiB); nothing more is read` });
        continue;
      }
      hash.update(`${relative(dirname(file), match)}\0${included}\0`);
      const one = parseFile(included, match, parseOptions, 'include');
      problems.push(...one.warnings.map((d) => ofAccount(d, config)));
      for (const site of one.configs[0]!.websites) config.websites.push({ ...site, file: match });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.diagnostics.map((d) => ofAccount(d, config)));
      over ||= tokens.left <= 0;
    }
  }
  problems.push(
    ...listingProblems(parsed.configs, file, source.shown),
    ...passwordsFromKeyVariables(parsed.configs, file, keyVariables(parsed.configs)),
    ...ownPasswordEnvProblems(parsed.configs, file),
    ...archiveProblems(parsed.configs, file, options.what, source),
  );
  // By file, then line; each file named as its source does (a revision's: REF:PATH), the data keeps the paths.
  const rank = (d: Diagnostic) => (files.includes(d.file) ? files.indexOf(d.file) : files.length);
  problems.sort((a, b) => rank(a) - rank(b) || a.line - b.line || a.col - b.col);
  const ordered = problems.map((d) => ({ ...d, file: source.shown(d.file) }));
  if (!options.keepErrors && ordered.some((d) => d.severity === 'error')) throw new ConfigError(ordered);
  for (const config of parsed.configs) separateTwinSpellings(config);
  const byFile = Object.fromEntries(walked.matches.map(({ path, config }) => [path, config.account?.name ?? '']));
  return { file, multi: parsed.multi, configs: parsed.configs, warnings: ordered, sha256: hash.digest('hex'), files, includedBy: byFile };
}

/** The config file (absolute) that includes a file, the account that does ('' in a single-account file), and its workspace, problems kept. */
export type Includer = { config: string; account: string; workspace: Workspace };

/** The `sitesync.yaml` in the folder of `file` or a folder above it whose includes match the file; undefined when none does. */
export async function includerOf(file: string, env: Env): Promise<Includer | undefined> {
  const real = realOrSelf(file);
  for (const dir of foldersUp(dirname(file))) {
    const candidate = join(dir, 'sitesync.yaml');
    if (candidate === file || !existsSync(candidate)) continue;
    const workspace = await loadWorkspace(candidate, env, { lenientEnv: true, missingEnvAsWarning: true, keepErrors: true }).catch(() => undefined);
    const match = Object.entries(workspace?.includedBy ?? {}).find(([path]) => realOrSelf(path) === real);
    if (workspace && match) return { config: candidate, account: match[1], workspace };
  }
  return undefined;
}

/** The files `file`'s include: globs match, each once, and the globs' problems: outside the repository, matching nothing or itself, in two accounts. */
export async function walkIncludes(file: string, parsed: ParsedFile, source: FileSource, what?: LoadOptions['what']): Promise<{ matches: (ParsedFile['includes'][number] & { path: string })[]; problems: Diagnostic[] }> {
  const matches: (ParsedFile['includes'][number] & { path: string })[] = [];
  const problems: Diagnostic[] = [];
  const includedBy = new Map<string, Config>();
  const piped = parsed.includes.length > 0 && source.hasNoFolder(file);
  const root = parsed.includes.length > 0 && !piped ? source.repositoryOf(file) : '';
  for (const { config, glob, pos } of parsed.includes) {
    const problem = (message: string) => problems.push({ file, ...pos, severity: 'error', message });
    if (piped) {
      const copy = what === 'baseline file' ? 'or read it and its includes from git: --baseline-ref origin/main' : 'with the files it includes';
      problem(`include "${glob}": this file was read from a pipe or standard input, which has no folder to find included files in; give the file in its folder (${copy})`);
      continue;
    }
    const { inside, outside } = await source.include(glob, dirname(file), root);
    if (outside) problem(`include "${glob}": ${outside}; sitesync reads no file outside the repository that holds the config (${root})`);
    else if (inside.length === 0) problem(`include "${glob}" matches no file (globs are relative to ${source.shown(dirname(file))})${NO_FILE_HINT}`);
    for (const path of inside) {
      const other = includedBy.get(path);
      if (path === file) problem(`include "${glob}" matches this file itself`);
      else if (other && other !== config) {
        problem(`include "${glob}": ${source.shown(path)} is already included by account ${other.account?.name ?? '(the file)'}; a file belongs to one account`);
      } else if (!other) {
        includedBy.set(path, config);
        matches.push({ config, glob, pos, path });
      }
    }
  }
  return { matches, problems };
}

/** A problem of a file included by an account: it names the account (the file itself cannot). */
function ofAccount(d: Diagnostic, config: Config): Diagnostic {
  return config.account ? { ...d, account: config.account.name } : d;
}

/** Moves the `ignore:` entries that name another spelling of a listed website to `twinSpellings`: that twin is left alone, the listed website managed. */
function separateTwinSpellings(config: Config): void {
  if (config.ignore.every((p) => p.glob.includes('*'))) return;
  // Each listed domain's spellings, looked up per entry: thousands tested against every website held a job for minutes.
  const spellings = new Map<string, string[]>();
  for (const w of config.websites) {
    const written = spellings.get(w.domain);
    if (written) written.push(w.written);
    else spellings.set(w.domain, [w.written]);
  }
  const twin = (glob: string) => !glob.includes('*') && (spellings.get(domainKey(glob)) ?? []).some((written) => namesTwinSpelling(glob, written));
  const twins = config.ignore.map((p) => twin(p.glob));
  if (!twins.includes(true)) return;
  config.twinSpellings = config.ignore.filter((_, i) => twins[i]);
  config.ignore = config.ignore.filter((_, i) => !twins[i]);
}

/** `archive:` folders, inside the repository as includes are: the file may be a stranger's (a baseline's archive: is never used). */
function archiveProblems(configs: Config[], file: string, what: LoadOptions['what'], source: FileSource): Diagnostic[] {
  // Said once, however many accounts share it (the file's own archive:, or one through an alias).
  const archives = new Map(configs.flatMap(({ archive }) => (archive?.pos ? [[`${archive.pos.line}:${archive.pos.col}`, archive] as const] : [])));
  return [...archives.values()].flatMap((archive) => {
    const problem = (message: string): Diagnostic[] => [{ file, ...archive.pos!, severity: 'error', message }];
    if (source.hasNoFolder(file)) {
      const message = `archive "${archive.shown}": this file was read from a pipe or standard input, which has no folder to hold it; give the file in its folder, or apply --archive DIR`;
      return what === 'baseline file' ? [] : problem(message);
    }
    // The repository as the source has it: the work tree, or (ci plan-open) a top that exists nowhere.
    const root = source.repositoryOf(file);
    const outside = folderOutside(archive.dir, root);
    return outside ? problem(`archive "${archive.shown}": ${outside}; sitesync writes no archive outside the repository that holds the config (${root})`) : [];
  });
}

/** A domain listed twice in an account (a second listing in one file left out), listed and ignored or retired, or in two accounts of one installation. */
function listingProblems(configs: Config[], main: string, shown: (path: string) => string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const place = (pos: Position, file: string, oneFile: boolean) => (oneFile ? `line ${pos.line}` : `${shown(file)}:${pos.line}:${pos.col}`);
  // Each domain listed in an account with a base_url, by its installation: the first account to list it.
  const owners = new Map<string, { site: DesiredWebsite; config: Config }>();
  for (const config of configs) {
    const seen = new Map<string, DesiredWebsite>();
    const ignore = new GlobSet(config.ignore.map((p) => p.glob));
    const retire = new GlobSet(config.retire.map((p) => p.glob));
    config.websites = config.websites.filter((site) => {
      const file = site.file ?? main;
      // Said within one file, the problem belongs to the account (an included file cannot name it).
      const error = (message: string, oneFile: boolean) => {
        const d: Diagnostic = { file, ...site.pos, severity: 'error', message };
        out.push(oneFile ? ofAccount(d, config) : d);
      };
      const first = seen.get(site.domain);
      const one = first !== undefined && (first.file ?? main) === file;
      if (first) {
        const spelled = one && first.written !== site.written ? `"${site.written}" (as "${site.domain}")` : `"${site.written}"`;
        error(`${spelled} is listed twice: at ${place(first.pos, first.file ?? main, one)} and at ${place(site.pos, file, one)}`, one);
        if (one) return false;
      } else {
        seen.set(site.domain, site);
      }
      const inMain = file === main;
      const listed = inMain ? `at line ${site.pos.line}` : 'here';
      const ignored = config.ignore[ignore.indexOf(site.domain)];
      if (ignored && !namesTwinSpelling(ignored.glob, site.written)) {
        error(`"${site.written}" is listed ${listed} but ignored by "${ignored.glob}" at ${place(ignored.pos, main, inMain)}: remove one of them`, inMain);
      }
      const retired = config.retire[retire.indexOf(site.domain)];
      if (retired) {
        error(`"${site.written}" is listed ${listed} and retired by "${retired.glob}" at ${place(retired.pos, main, inMain)}: a retired website is deleted; remove one of them`, inMain);
      }
      return true;
    });
    if (!config.account || !config.baseUrl) continue;
    const origin = installationOf(config.baseUrl);
    for (const site of seen.values()) {
      const other = owners.get(`${origin} ${site.domain}`);
      if (!other) {
        owners.set(`${origin} ${site.domain}`, { site, config });
        continue;
      }
      const at = place(other.site.pos, other.site.file ?? main, false);
      const message = `"${site.written}" is listed in account ${config.account.name} and in account ${other.config.account!.name} (at ${at}), on the same installation, which holds a domain once: keep it in one`;
      out.push({ file: site.file ?? main, ...site.pos, severity: 'error', message });
    }
  }
  return out;
}

/** Variables that hold keys (api_key_env, SITESYNC_API_KEY, CI tokens: never a password) and what each holds, by name in upper case (as Windows reads). */
export function keyVariables(configs: Config[]): Map<string, string> {
  const held = new Map<string, string>([['SITESYNC_API_KEY', 'the API key']]);
  for (const c of configs) if (c.account?.apiKeyEnv) held.set(c.account.apiKeyEnv.toUpperCase(), `the API key of account ${c.account.name} (its api_key_env)`);
  for (const token of ['GITHUB_TOKEN', 'GITLAB_TOKEN', 'CI_JOB_TOKEN']) held.set(token, "the CI's token");
  return held;
}

/** An error at each password reading a `held` variable (the service shows it with the statistics): by name, offline; apply refuses by value too. */
export function passwordsFromKeyVariables(configs: Config[], main: string, held: Map<string, string>): Diagnostic[] {
  return configs.flatMap(passwordReads).flatMap(({ name, site }) => {
    const what = held.get(name.toUpperCase());
    if (!what) return [];
    const message = `the password of ${site.written} is \${${name}}, which holds ${what}: the service would store it where anyone who opens the website's statistics can read it; give the website a password of its own`;
    return [{ file: site.file ?? main, ...site.password!.pos, severity: 'error' as const, message }];
  });
}

/** What is wrong when the variable an account's `api_key_env` names is not set; undefined when it is. */
export function unsetKeyVariable(config: Config, env: Env): string | undefined {
  const account = config.account;
  if (!account || envValue(env, account.apiKeyEnv)?.trim()) return undefined;
  return `account ${account.name}: environment variable ${account.apiKeyEnv} (its api_key_env) is not set`;
}

/** The test of whether a `password_env:` list (its own, or the trusted copy's: run/trust.ts) holds a name: a name by a lookup, then each glob with `*`. */
export function listedIn(list: readonly Pattern[]): (name: string) => boolean {
  const names = new Set(list.filter((p) => !p.glob.includes('*')).map((p) => p.glob));
  const globs = list.filter((p) => p.glob.includes('*')).map((p) => p.glob);
  return (name) => names.has(name) || globs.some((glob) => wildcardMatches(glob, name));
}

/** One `${NAME}` a website's password reads. */
type PasswordRead = { name: string; site: DesiredWebsite };

/** Every variable the passwords of `config`'s websites read, each with its website. */
export function passwordReads(config: Config): PasswordRead[] {
  return config.websites.flatMap((site) => (site.password ? passwordSource(site.password.template).variables.map((name) => ({ name, site })) : []));
}

/** How messages name an account: `account acme`, or the file for a single-account file. */
export function accountWords(config: Config): string {
  return config.account ? `account ${config.account.name}` : 'the file';
}

/** An error at the password that reads `name`, saying why it may not. */
export function passwordProblem({ name, site }: PasswordRead, main: string, why: string): Diagnostic {
  return { file: site.file ?? main, ...site.password!.pos, severity: 'error', message: `the password of ${site.written} reads \${${name}}, ${why}` };
}

/** Each password that reads a variable its own account's `password_env` does not list. */
export function ownPasswordEnvProblems(configs: Config[], main: string): Diagnostic[] {
  return configs.flatMap((config) => {
    const list = config.passwordEnv;
    if (!list) return [];
    const names = list.length ? list.map((p) => p.glob).join(', ') : 'none';
    const listed = listedIn(list);
    return passwordReads(config)
      .filter((read) => !listed(read.name))
      .map((read) => passwordProblem(read, main, `which the password_env of ${accountWords(config)} does not list (${names}): a password reads only the variables of its own account`));
  });
}
