/**
 * The pure half of loading: YAML text → the normalized `Config`, or a `ConfigError` holding
 * every problem found, each with the line and column it is about.
 */
import { isMap, isSeq, type Document } from 'yaml';
import { ConfigError, type Diagnostic } from '../errors.js';
import { globProblem, GlobSet, parseDomainInput } from '../domain.js';
import { FIELDS, type Field } from '../fields.js';
import { addressProblem, BASE_URL_RULE } from '../service/connection.js';
import {
  DEFAULT_SAFETY,
  type Config,
  type DefaultSettings,
  type DesiredWebsite,
  type Position,
  type Secret,
} from '../model.js';
import { listValue } from './file-values.js';
import { interpolate, type Env } from './interpolate.js';
import { MAX_DEPTH, readDocument, readDocumentYielding, type ReadDocument } from './document.js';
import { Locator, type Path, type Positions } from './locate.js';
import { checkShape, pathName } from './shape.js';

/** The fields `defaults` may carry, and those a website entry sets from the file (a secret: by its `${NAME}`, below). */
const IN_DEFAULTS = FIELDS.filter((f) => f.inDefaults);
const FROM_FILE = FIELDS.filter((f) => f.fromFile);

/** Each alias may be expanded at most this often: enough for real files, fatal to alias bombs. */
const MAX_ALIAS_COUNT = 100;

export interface ParseOptions {
  env: Env;
  /**
   * Leave `${NAME}` in place when NAME is not set instead of failing: for a baseline file,
   * whose variables may since have been renamed.
   */
  lenientEnv?: boolean;
}

type Raw = Record<string, unknown>;

/**
 * Every file is read by the `yaml` package alone (YAML 1.2, core schema), the reader editors'
 * YAML language server uses too: what the file means on screen is what sitesync does.
 */
export function parseConfig(text: string, file: string, options: ParseOptions): Config {
  return fromDocument(readDocument(text), file, options, mayReference(text));
}

/** The same, letting the event loop run while the text is parsed (plan lists the service meanwhile). */
export async function parseConfigYielding(text: string, file: string, options: ParseOptions): Promise<Config> {
  return fromDocument(await readDocumentYielding(text), file, options, mayReference(text));
}

/** Whether any string may hold `${`: written so, or through a double-quoted escape (`\x24{`). */
function mayReference(text: string): boolean {
  return text.includes('${') || text.includes('\\');
}

function fromDocument(read: ReadDocument, file: string, options: ParseOptions, references: boolean): Config {
  const fail = (pos: Position, message: string): never => {
    throw new ConfigError([{ file, ...pos, message, severity: 'error' }]);
  };
  if (read.tooDeepAt !== undefined) {
    const { line, col } = read.lines.linePos(read.tooDeepAt);
    fail({ line, col }, `the file nests more than ${MAX_DEPTH} levels deep here; a config file needs 4`);
  }
  const doc = read.doc!;
  const at = new Locator(doc as Document, read.lines);

  if (doc.errors.length) {
    throw new ConfigError(
      doc.errors.map((e) => ({ file, ...at.pos(e.pos[0]), message: yamlMessage(e.code, e.message), severity: 'error' as const })),
    );
  }
  if (doc.contents === null) fail({ line: 1, col: 1 }, 'the file is empty: it needs at least "version: 1" and "websites:"');
  if (!isMap(doc.contents)) {
    const what = isSeq(doc.contents) ? 'a list' : 'a single value';
    fail(at.value([]), `the top level is ${what}; it must be a mapping with "version: 1" and "websites:"`);
  }
  let raw: Raw = {};
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as Raw;
  } catch (e) {
    fail({ line: 1, col: 1 }, `the file expands aliases too often (${(e as Error).message.replace(/\.$/, '')}); write the values out`);
  }
  const { config, diagnostics } = build(raw, at, file, options, references);
  if (diagnostics.some((d) => d.severity === 'error')) throw new ConfigError(sortDiagnostics(diagnostics));
  config.warnings = sortDiagnostics(diagnostics);
  return config;
}

/** From the parsed data to the model: `${NAME}`, the schema, then every rule of the contract. */
function build(raw: Raw, at: Positions, file: string, options: ParseOptions, references: boolean): { config: Config; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const error = (pos: Position, message: string) => diagnostics.push({ file, ...pos, message, severity: 'error' });
  const warn = (pos: Position, message: string) => diagnostics.push({ file, ...pos, message, severity: 'warning' });

  // Passwords keep their template (`${NAME}`): a saved plan refers to it, never to the value.
  const templates = passwordTemplates(raw);
  // ${NAME} in every string, before the shape check, so that types are checked on real values.
  if (references) substitute(raw, [], (path, text) => {
    const r = interpolate(text, options.env);
    for (const bad of r.malformed) {
      error(at.value(path), `${pathName(path)}: "${bad}" is not a valid reference (use \${NAME}; write $\${ for a literal "\${")`);
    }
    if (!options.lenientEnv) {
      for (const name of r.missing) error(at.value(path), `${pathName(path)}: environment variable ${name} is not set`);
    }
    return r.value;
  });

  for (const issue of checkShape(raw)) {
    error(issue.atKey ? at.key(issue.path) : at.value(issue.path), issue.message);
  }
  return { config: normalize(raw, templates, file, at, error, warn), diagnostics };
}

export function yamlMessage(code: string, message: string): string {
  if (code === 'MULTIPLE_DOCS') return 'the file holds more than one YAML document (---): sitesync reads one';
  if (code === 'DUPLICATE_KEY') return 'this key is written twice in the same mapping';
  const first = message.split('\n', 1)[0] ?? message;
  return `YAML: ${first.replace(/ at line \d+, column \d+:?$/, '')}`;
}

function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => a.line - b.line || a.col - b.col);
}

/** Replaces, in place, every string that holds `$` by `fn(path, string)`. */
function substitute(value: unknown, path: (string | number)[], fn: (path: Path, text: string) => string): void {
  if (!value || typeof value !== 'object') return;
  const container = value as Record<string | number, unknown>;
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  for (const key of keys) {
    const v = container[key];
    if (typeof v === 'string') {
      if (v.includes('$')) container[key] = fn([...path, key], v);
    } else if (v && typeof v === 'object') {
      path.push(key);
      substitute(v, path, fn);
      path.pop();
    }
  }
}

/** Each website's password as written, before `${NAME}` is replaced. */
function passwordTemplates(raw: Raw): (string | undefined)[] {
  const sites = Array.isArray(raw.websites) ? raw.websites : [];
  return sites.map((site: unknown) =>
    site && typeof site === 'object' && typeof (site as Raw).password === 'string' ? ((site as Raw).password as string) : undefined,
  );
}

type Report = (pos: { line: number; col: number }, message: string) => void;

function normalize(data: Raw, templates: (string | undefined)[], file: string, at: Positions, error: Report, warn: Report): Config {
  const config: Config = {
    file,
    defaults: {},
    prune: data.prune === true,
    protect: [],
    ignore: [],
    safety: { ...DEFAULT_SAFETY },
    websites: [],
    warnings: [],
  };

  const api = data.api as Raw | undefined;
  if (api && typeof api.base_url === 'string') {
    // Plain http:// is checked when connecting, where --insecure-http is known.
    const problem = addressProblem(api.base_url, { ...BASE_URL_RULE, insecureHttp: true });
    if (problem) error(at.value(['api', 'base_url']), `api.base_url ${problem}`);
    else config.baseUrl = api.base_url;
  }

  const safety = data.safety as Raw | undefined;
  if (safety && typeof safety === 'object') {
    if (typeof safety.max_delete_percent === 'number') config.safety.max_delete_percent = safety.max_delete_percent;
    if (typeof safety.min_existing === 'number') config.safety.min_existing = safety.min_existing;
  }

  for (const key of ['protect', 'ignore'] as const) {
    const list = data[key];
    if (!Array.isArray(list)) continue;
    list.forEach((glob, i) => {
      if (typeof glob !== 'string') return;
      const problem = globProblem(glob);
      if (problem) error(at.value([key, i]), `${key}[${i}]: ${problem}`);
      else config[key].push({ glob: glob.trim().toLowerCase(), pos: at.value([key, i]) });
    });
  }

  const defaults = data.defaults as Raw | undefined;
  if (defaults && typeof defaults === 'object') {
    config.defaults = settings(defaults, ['defaults'], at, warn, IN_DEFAULTS) as DefaultSettings;
  }

  const websites = data.websites;
  if (!Array.isArray(websites)) return config;
  const ignore = new GlobSet(config.ignore.map((p) => p.glob));
  const byDomain = new Map<string, DesiredWebsite>();
  const domainPositions = at.itemValues(['websites'], 'domain');
  websites.forEach((site, i) => {
    if (!site || typeof site !== 'object' || Array.isArray(site)) return;
    const entry = site as Raw;
    const path = ['websites', i];
    // Every field is checked whatever is wrong with the domain: all of a website's problems at once.
    const checked = settings(entry, path, at, warn, FROM_FILE) as Omit<DesiredWebsite, 'domain' | 'written' | 'pos'>;
    if (typeof entry.domain !== 'string') return;
    const pos = domainPositions[i] ?? at.value([...path, 'domain']);
    const parsed = parseDomainInput(entry.domain);
    if (!parsed.domain) {
      error(pos, `websites[${i}].domain: ${parsed.problem}`);
      return;
    }
    if (parsed.strippedWww) {
      warn(pos, `"${entry.domain}": the service stores this website as "${parsed.domain}"; write the bare form`);
    }
    const first = byDomain.get(parsed.domain);
    if (first) {
      const same = first.written === entry.domain ? `"${entry.domain}"` : `"${entry.domain}" (as "${parsed.domain}")`;
      error(pos, `${same} is listed twice: at line ${first.pos.line} and at line ${pos.line}`);
      return;
    }
    const ignoredBy = ignore.indexOf(parsed.domain);
    if (ignoredBy >= 0) {
      const pattern = config.ignore[ignoredBy]!;
      error(
        pos,
        `"${entry.domain}" is listed at line ${pos.line} but ignored by "${pattern.glob}" at line ${pattern.pos.line}: remove one of them`,
      );
    }
    const website: DesiredWebsite = {
      domain: parsed.domain,
      written: entry.domain,
      pos,
      ...checked,
    };
    const template = templates[i];
    if (typeof entry.password === 'string' && template !== undefined) {
      const secret: Secret = { template, value: entry.password };
      website.password = secret;
      if (!interpolate(template, {}).referenced) {
        warn(
          at.value([...path, 'password']),
          `the password of ${parsed.domain} is written in the file: use \${NAME} and set NAME in the environment`,
        );
      }
    }
    byDomain.set(parsed.domain, website);
    config.websites.push(website);
  });
  return config;
}

/** The settings of `entry` the rows of `which` read, each as its row reads the file; list entries a row suspects are warned about. */
function settings(entry: Raw, path: Path, at: Positions, warn: Report, which: readonly Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of which) {
    const written = entry[field.name];
    const value = field.fromFile?.(written);
    if (value === undefined) continue;
    if (field.entryWarning) {
      for (const { value: item, index } of listValue(written) ?? []) {
        const reason = field.entryWarning(item);
        if (!reason) continue;
        const where = index === undefined ? [...path, field.name] : [...path, field.name, index];
        warn(at.value(where), `${pathName(where)}: ${reason}`);
      }
    }
    out[field.name] = value;
  }
  return out;
}
