/** The pure half of loading: YAML text → the normalized `Config`, or a `ConfigError` of every problem, each at its line and column. */
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isSeq, type Document } from 'yaml';
import { ConfigError, refuseFile, type Diagnostic } from '../messages/errors.js';
import { globProblem, parseDomainInput } from '../model/domain.js';
import { FIELDS, type Field } from '../model/fields.js';
import { addressProblem, BASE_URL_RULE } from '../model/address.js';
import { DEFAULT_SAFETY, type ArchiveFolder, type Config, type DefaultSettings, type DesiredWebsite, type Position } from '../model/types.js';
import { Secret } from '../secrets/secret.js';
import { listValue } from '../model/field-values.js';
import { passwordRuleProblem, passwordRuleWords } from '../model/password-rule.js';
import { interpolate, passwordSource } from './interpolate.js';
import type { Env } from '../io/context.js';
import { Locator, readDocument, type TokenBudget } from './document.js';
import { controlCharacterIn, pathName, schemaIssues, type Path } from '../schema/errors.js';
import { MAX_WILDCARD_GLOBS, MAX_YAML_ALIAS_EXPANSIONS } from '../caps.js';

/** The fields `defaults` may carry, and those a website entry sets from the file (a secret: by its `${NAME}`). */
const IN_DEFAULTS = FIELDS.filter((f) => f.inDefaults);
const FROM_FILE = FIELDS.filter((f) => f.fromFile);

export interface ParseOptions {
  env: Env;
  /** The YAML tokens this file and the rest of its workspace may still hold (see readDocument). */
  tokens?: TokenBudget;
  /** Leave `${NAME}` in place when NAME is not set instead of failing: a baseline's variables may since have been renamed. */
  lenientEnv?: boolean;
  /** A variable that is not set is a warning (validate in a fork's pull request, which gets no secrets), its value unchecked. */
  missingEnvAsWarning?: boolean;
}

type Raw = Record<string, unknown>;

/** What one file says: one account, several, or (an included file) websites only. */
export interface ParsedFile {
  /** The file holds `accounts:`. */
  multi: boolean;
  /** One per account (a single-account file: one, without `account`); an included file's websites in one. */
  configs: Config[];
  /** The `include:` globs of each config, with where each is written. */
  includes: { config: Config; glob: string; pos: Position }[];
}

/** What a file is to the one who reads it: the main config file, or one it includes. */
export type FileRole = 'main' | 'include';

/** A config that lists nothing: no file at all (an account from the flags alone), or a file a revision did not hold. */
export function emptyConfig(file: string): Config {
  return { file, defaults: {}, prune: false, protect: [], ignore: [], retire: [], safety: { ...DEFAULT_SAFETY }, websites: [], warnings: [] };
}

export function parseFile(text: string, file: string, options: ParseOptions, role: FileRole = 'main'): ParsedFile & { warnings: Diagnostic[] } {
  const { parsed, problems } = readFileCollecting(text, file, options, role);
  if (problems.some((d) => d.severity === 'error')) throw new ConfigError(problems);
  return { ...parsed, warnings: problems };
}

/** As far as the data goes, all its problems, errors too (the loader still reads its includes, to say all at once); not YAML: throws. */
export function readFileCollecting(text: string, file: string, options: ParseOptions, role: FileRole = 'main', read = readDocument(text, file, options.tokens)): { parsed: ParsedFile; problems: Diagnostic[] } {
  const { doc, lines } = read;
  const at = new Locator(doc as Document, lines);
  const needs = role === 'include' ? '"websites:"' : '"version: 1" and "websites:"';
  if (doc.contents === null) refuseFile(file, `the file is empty: it needs at least ${needs}`, { line: 1, col: 1 });
  if (!isMap(doc.contents)) refuseFile(file, `the top level is ${isSeq(doc.contents) ? 'a list' : 'a single value'}; it must be a mapping with ${needs}`, at.value([]));
  let raw: Raw = {};
  try {
    raw = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_EXPANSIONS }) as Raw;
  } catch (e) {
    refuseFile(file, `the file expands aliases too often (${(e as Error).message.replace(/\.$/, '')}); write the values out`, { line: 1, col: 1 });
  }
  const diagnostics: Diagnostic[] = [];
  const error = (pos: Position, message: string) => diagnostics.push({ file, ...pos, message, severity: 'error' });
  const warn = (pos: Position, message: string) => diagnostics.push({ file, ...pos, message, severity: 'warning' });
  const parsed: ParsedFile = { multi: false, configs: [], includes: [] };
  const done = () => ({ parsed, problems: diagnostics.sort((a, b) => a.line - b.line || a.col - b.col) });

  // Passwords stay as written (`${NAME}`) for the schema; the value is kept beside, for the request alone.
  const passwords = new WeakMap<object, string>();
  // What is said of a value in an account's block belongs to that account.
  const saying = (path: Path, say: () => void) => {
    const said = diagnostics.length;
    say();
    if (path[0] === 'accounts' && typeof path[1] === 'string') for (const d of diagnostics.slice(said)) d.account ??= path[1];
  };
  // ${NAME} is read in a password alone: elsewhere a stranger's file would show it in plans and comments, or send it.
  const unknown = new Set<string>();
  eachString(raw, [], (where, template, entry) => {
    // (Accounts written as a list hold no account: their websites are not read.)
    if (!isPasswordPath(where) || typeof where[where.length - 4] === 'number' || !template.includes('$')) return;
    saying(where, () => {
      const r = interpolate(template, options.env);
      for (const bad of r.malformed) error(at.value(where), malformedReference(where, bad));
      if (r.missing.length && options.missingEnvAsWarning) {
        unknown.add(pathName(where));
        for (const name of r.missing) warn(at.value(where), `${pathName(where)}: environment variable ${name} is not set; plan and apply need it`);
      } else if (!options.lenientEnv) {
        for (const name of r.missing) diagnostics.push({ file, ...at.value(where), message: `${pathName(where)}: environment variable ${name} is not set`, severity: 'error', missing: name });
      }
      // Held to the product's rules before anything is sent, named by its variables, never shown.
      const problem = r.referenced && !r.missing.length && !r.malformed.length ? passwordRuleProblem(r.value) : undefined;
      const names = passwordSource(template).variables.map((name) => `\${${name}}`).join(', ');
      if (problem) error(at.value(where), `${pathName(where)}: the value read from ${names} ${passwordRuleWords(problem)}`);
      passwords.set(entry, r.value);
    });
  });

  // A string the schema refuses for its `${` is said once, in words, and left out of what is read below.
  const refused = new Map<string, { path: Path; r: ReturnType<typeof interpolate> }>();
  const refuse = (path: Path, text: string) => {
    const r = interpolate(text, {});
    if (!isPasswordPath(path) && (r.referenced || r.malformed.length > 0)) refused.set(pathName(path), { path, r });
  };
  for (const issue of schemaIssues('config', raw, 'yaml')) {
    // What the schema refuses for its shape (an unknown key) it does not look into: a reference in there is refused too.
    const value = valueAt(raw, issue.path);
    if (typeof value === 'string') refuse(issue.path, value);
    else eachString(value, issue.path, refuse);
    const name = pathName(issue.path);
    if (issue.atKey) error(at.key(issue.path), issue.message);
    else if (!unknown.has(name) && !refused.has(name)) error(at.value(issue.path), issue.message);
  }
  for (const { path, r } of refused.values()) {
    saying(path, () => {
      for (const bad of r.malformed) error(at.value(path), malformedReference(path, bad));
      if (r.referenced) error(at.value(path), referenceOutsidePassword(path));
    });
    // Left out of the data: a key is removed, an item of a list left blank (the others keep their places).
    const holder = valueAt(raw, path.slice(0, -1));
    if (Array.isArray(holder)) holder[path.at(-1) as number] = '';
    else if (isRecord(holder)) delete holder[path.at(-1)!];
  }
  // `$${` is a literal `${` in every other string, which may hold one written so or escaped (`"\x24{"`).
  if (text.includes('${') || text.includes('\\')) {
    eachString(raw, [], (path, text, holder) => {
      if (path.at(-1) !== 'password' && text.includes('$${')) holder[path.at(-1)!] = interpolate(text, {}).value;
    });
  }

  if (role === 'include') {
    for (const key of Object.keys(raw)) {
      if (key === 'websites' || key === 'version' || key === '$schema') continue;
      error(at.key([key]), `"${key}" cannot be in an included file: it holds only websites: (the file that includes it says the rest)`);
    }
    if (!('websites' in raw)) error(at.value([]), 'an included file needs "websites:", the websites it adds');
    parsed.configs.push(normalize({ websites: raw.websites }, passwords, file, at, error, warn, parsed.includes));
    return done();
  }

  if (!('version' in raw)) error(at.key([]), NO_VERSION);
  if (!('accounts' in raw)) {
    if (!('websites' in raw)) error(at.key([]), NO_WEBSITES);
    parsed.configs.push(normalize(raw, passwords, file, at, error, warn, parsed.includes));
    return done();
  }

  parsed.multi = true;
  for (const key of ACCOUNT_LEVEL) {
    if (key in raw) error(at.key([key]), `"${key}" belongs in an account: a file with accounts: holds only version, defaults, archive and accounts at its top`);
  }
  const topDefaults = isRecord(raw.defaults) ? (settings(raw.defaults, ['defaults'], at, warn, IN_DEFAULTS) as DefaultSettings) : {};
  const topArchive = archiveFolder(raw, at, file, error);
  const accounts = isRecord(raw.accounts) ? (Object.entries(raw.accounts).filter(([, a]) => isRecord(a)) as [string, Raw][]) : [];
  for (const [name, data] of accounts) {
    const base = ['accounts', name];
    const said = diagnostics.length;
    const config = normalize({ ...data, api: undefined }, passwords, file, at.under(base), error, warn, parsed.includes);
    config.defaults = { ...topDefaults, ...config.defaults };
    if (!config.archive && topArchive) config.archive = topArchive;
    config.account = { name, apiKeyEnv: typeof data.api_key_env === 'string' ? data.api_key_env : '', pos: at.key(base) };
    setBaseUrl(config, data, base, at, error);
    if (!('websites' in data) && !('include' in data)) error(at.key(base), `account ${name} lists no websites: give it websites: (may be empty) or include:`);
    parsed.configs.push(config);
    for (const d of diagnostics.slice(said)) d.account ??= name;
  }
  return done();
}

/** A main config file's two required keys, missing: validate tells an included file by the first (commands/validate.ts). */
export const NO_VERSION = 'the file has no "version", which is required';
export const NO_WEBSITES = 'the file has no "websites", which is required';

/** Top-level keys of a single-account file that belong in an account when the file has accounts. */
const ACCOUNT_LEVEL = ['api', 'password_env', 'prune', 'protect', 'ignore', 'retire', 'safety', 'include', 'websites'];

function isRecord(value: unknown): value is Raw {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

/** Whether a path is a website's password (`websites[3].password`; `websites: {x: {password: …}}` is no website). */
function isPasswordPath(path: Path): boolean {
  const n = path.length;
  return n >= 3 && path[n - 1] === 'password' && typeof path[n - 2] === 'number' && path[n - 3] === 'websites' && (n === 3 || (n === 5 && path[0] === 'accounts'));
}

/** Why `${NAME}` is refused at `path`, and what to write instead. */
function referenceOutsidePassword(path: Path): string {
  const where = pathName(path);
  const last = path[path.length - 1];
  if (last === 'api_key_env') return `${where} is the NAME of the variable that holds the key: write NAME, without \${…}`;
  const why = `${where}: \${NAME} is read from the environment only in a website's password; here its value would show in plans and pull-request comments`;
  if (last === 'base_url') {
    return path[0] === 'accounts'
      ? `${why}, and the key would be sent to it: write the address itself`
      : `${why}, and the key would be sent to it: give the address with --base-url or SITESYNC_BASE_URL, or write it here`;
  }
  return `${why}: write the value itself`;
}

function malformedReference(path: Path, bad: string): string {
  return `${pathName(path)}: "${bad}" is not a valid reference (use \${NAME}; write $\${ for a literal "\${")`;
}

function valueAt(data: unknown, path: Path): unknown {
  return path.reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string | number, unknown>)[key] : undefined), data);
}

/** Each string under `value` (at `path` of the data), with its path and the mapping or list that holds it. */
function eachString(value: unknown, path: Path, visit: (path: Path, text: string, holder: Record<string | number, unknown>) => void): void {
  if (!value || typeof value !== 'object') return;
  for (const [key, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof v === 'string') visit([...path, key], v, value as Record<string | number, unknown>);
    else eachString(v, [...path, key], visit);
  }
}

type Report = (pos: { line: number; col: number }, message: string) => void;

/** `data` as a Config, its `include:` globs added to `includes`; `passwords`: each website's password now, by its entry, where written with `${NAME}`. */
function normalize(data: Raw, passwords: WeakMap<object, string>, file: string, at: Locator, error: Report, warn: Report, includes: ParsedFile['includes']): Config {
  const config = emptyConfig(file);
  config.prune = data.prune === true;

  if (isRecord(data.api)) setBaseUrl(config, data.api, ['api'], at, error);

  const safety = data.safety as Raw | undefined;
  if (safety && typeof safety === 'object') {
    // Where each is written: --trusted-config points a looser value out at its line.
    config.safetyAt = { safety: at.key(['safety']) };
    for (const key of ['max_delete_percent', 'min_existing', 'active_days'] as const) {
      if (typeof safety[key] !== 'number') continue;
      config.safety[key] = safety[key];
      config.safetyAt[key] = at.value(['safety', key]);
    }
  }
  // Past MAX_WILDCARD_GLOBS globs with `*`, a list is an error at the first one too many, the rest not kept.
  const wildcards = (key: string) => {
    let seen = 0;
    return (glob: string, i: number): boolean => {
      if (!glob.includes('*') || ++seen <= MAX_WILDCARD_GLOBS) return true;
      if (seen === MAX_WILDCARD_GLOBS + 1) {
        error(at.value([key, i]), `${key}[${i}]: more than ${MAX_WILDCARD_GLOBS.toLocaleString('en-US')} patterns with "*" in one list (names written out in full, any number): each website is tested against each of them`);
      }
      return false;
    };
  };
  if (Array.isArray(data.password_env)) {
    const kept = wildcards('password_env');
    config.passwordEnv = data.password_env.flatMap((glob, i) => (typeof glob === 'string' && kept(glob, i) ? [{ glob, pos: at.value(['password_env', i]) }] : []));
  }

  for (const key of ['protect', 'ignore', 'retire'] as const) {
    const list = data[key];
    if (!Array.isArray(list)) continue;
    const kept = wildcards(key);
    list.forEach((glob, i) => {
      if (typeof glob !== 'string') return;
      const problem = globProblem(glob);
      if (problem) error(at.value([key, i]), `${key}[${i}]: ${problem}`);
      else if (kept(glob, i)) config[key].push({ glob: glob.trim().toLowerCase(), pos: at.value([key, i]) });
    });
  }

  config.archive = archiveFolder(data, at, file, error);
  if (Array.isArray(data.include)) {
    data.include.forEach((glob, i) => {
      if (typeof glob === 'string' && glob.trim()) includes.push({ config, glob: glob.trim(), pos: at.value(['include', i]) });
    });
  }

  if (isRecord(data.defaults)) config.defaults = settings(data.defaults, ['defaults'], at, warn, IN_DEFAULTS) as DefaultSettings;

  const websites = data.websites;
  if (!Array.isArray(websites)) return config;
  websites.forEach((entry, i) => {
    if (!isRecord(entry)) return;
    const path = ['websites', i];
    // Every field is checked whatever is wrong with the domain: all of a website's problems at once.
    const checked = settings(entry, path, at, warn, FROM_FILE) as Omit<DesiredWebsite, 'domain' | 'written' | 'pos'>;
    // A control character is the schema's error, at the domain.
    if (typeof entry.domain !== 'string' || controlCharacterIn(entry.domain)) return;
    const pos = at.value([...path, 'domain']);
    const parsed = parseDomainInput(entry.domain);
    if (!parsed.domain) {
      error(pos, `websites[${i}].domain: ${parsed.problem}`);
      return;
    }
    if (parsed.strippedWww) warn(pos, `"${entry.domain}": the service stores this website as "${parsed.domain}"; write the bare form`);
    const website: DesiredWebsite = { domain: parsed.domain, written: entry.domain, pos, ...checked };
    if (typeof entry.password === 'string') {
      const where = [...path, 'password'];
      const value = passwords.get(entry) ?? entry.password;
      website.password = new Secret(entry.password, value, at.value(where));
      if (!interpolate(entry.password, {}).referenced) {
        // Its length is the schema's; "0" is within it, and only the product's answer refuses it.
        if (passwordRuleProblem(value) === 'reads back as not set') error(at.value(where), `${pathName(where)}: the password ${passwordRuleWords('reads back as not set')}`);
        warn(at.value(where), `the password of ${parsed.domain} is written in the file: use \${NAME} and set NAME in the environment`);
      }
    }
    config.websites.push(website);
  });
  return config;
}

/** Sets `config`'s base URL to the `base_url` of `holder` (at `path`: `api`, or an account), once checked; none when it is wrong (said). */
function setBaseUrl(config: Config, holder: Raw, path: Path, at: Locator, error: Report): void {
  const written = holder.base_url;
  if (typeof written !== 'string') return;
  // Plain http:// is checked when connecting, where --insecure-http is known.
  const problem = addressProblem(written, { ...BASE_URL_RULE, insecureHttp: true });
  if (problem) error(at.value([...path, 'base_url']), `${pathName([...path, 'base_url'])} ${problem}`);
  else config.baseUrl = written;
}

/** `archive:` of `holder`, relative to the config file (kept inside the repository by the loader); undefined when none or unusable (said). */
function archiveFolder(holder: Raw, at: Locator, file: string, error: Report): ArchiveFolder | undefined {
  const written = holder.archive;
  if (typeof written !== 'string' || written.trim() === '' || written.includes('${')) return undefined;
  const pos = at.value(['archive']);
  const folder = written.trim();
  if (/[\u0000-\u001f\u007f]/.test(folder)) error(pos, 'archive: a folder name cannot hold control characters');
  else if (isAbsolute(folder) || /^[A-Za-z]:[\\/]/.test(folder)) error(pos, `archive: "${folder}" is an absolute path; write a folder relative to this file, inside its repository`);
  else return { dir: resolve(dirname(file), folder), shown: folder, pos };
  return undefined;
}

/** The settings of `entry` the rows of `which` read, each as its row reads the file; list entries a row suspects are warned about. */
function settings(entry: Raw, path: Path, at: Locator, warn: Report, which: readonly Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of which) {
    const written = entry[field.name];
    const value = field.fromFile?.(written);
    if (value === undefined) continue;
    if (field.entryWarning) {
      for (const { value: item, index } of listValue(written) ?? []) {
        // A control character is the schema's error.
        const reason = controlCharacterIn(item) ? undefined : field.entryWarning(item);
        if (!reason) continue;
        const where = index === undefined ? [...path, field.name] : [...path, field.name, index];
        warn(at.value(where), `${pathName(where)}: ${reason}`);
      }
    }
    out[field.name] = value;
  }
  return out;
}
