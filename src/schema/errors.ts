/**
 * Data checked against one of sitesync's schemas, and ajv's errors in words, each once, in the
 * file's order: a config file's at their path (for FILE:LINE:COL), a saved plan's as `changes[3].id: …`.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { fieldOf } from '../model/fields.js';
import { orList, suggest } from '../messages/suggest.js';
import { schemaValidator, type SchemaName } from './validators.js';

/** Where in the data: keys and list indexes. */
export type Path = ReadonlyArray<string | number>;

/** The part of a JSON Schema that fmt's layout and these words follow: which keys, in which order, what is under them. */
export interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode | boolean;
  $defs?: Record<string, SchemaNode>;
}

export interface SchemaIssue {
  path: Path;
  /** Point at the key (unknown key) rather than at the value. */
  atKey: boolean;
  message: string;
}

/** Every way the data departs from the schema; none when it matches. `json`: worded for a JSON file. */
export function schemaIssues(name: SchemaName, data: unknown, words: 'yaml' | 'json'): SchemaIssue[] {
  const validate = schemaValidator(name);
  if (validate(data)) return [];
  const errors = validate.errors ?? [];
  const issues = new Map<string, SchemaIssue>();
  // Inside "null or an object": when the value is an object, what is wrong inside it is the news.
  // The paths that hold an error below them, gathered once (a saved plan may hold 20,000 changes).
  const above = new Set<string>();
  for (const o of errors) for (let i = o.instancePath.indexOf('/'); i >= 0; i = o.instancePath.indexOf('/', i + 1)) above.add(o.instancePath.slice(0, i));
  for (const error of errors) {
    // "must match the then schema", "property name must be valid": only the errors found inside them, again.
    if (error.keyword === 'if' || error.keyword === 'propertyNames') continue;
    if (error.keyword === 'type' && error.schema === 'null' && above.has(error.instancePath)) continue;
    // ajv's JSON pointer as keys and indexes.
    const path = error.instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
    const issue = describe(error, path, words === 'json');
    // One type message per value: a plan's `id` fails both its own type and the action's.
    const id = `${issue.path.join('/')}|${error.keyword === 'type' ? 'type' : issue.message}`;
    if (!issues.has(id)) issues.set(id, issue);
  }
  return [...issues.values()];
}

/** `websites[3].privacy` */
export function pathName(path: Path): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${key}` : key), '') || 'the file';
}

/** Keys under which people write an API key: `api_key`, `apikey`, `token`, `secret`, `key`… */
const API_KEY_LIKE = /(^|[_-])(api[_-]?)?(key|token|secret)$|^apikey$/i;

/** " (drop the quotes: true)" when a quoted string, unquoted, is a value the schema accepts: YAML reads `"true"` as text. */
function unquoteHint(value: unknown, accepts: (v: unknown) => boolean): string {
  if (typeof value !== 'string') return '';
  const invisible = INVISIBLE.exec(value);
  if (invisible) return ` (it holds an invisible character, ${codePoint(invisible[0])}, that YAML does not take for a blank: delete it)`;
  const unquoted = value === 'true' || value === 'false' ? value === 'true' : /^[-+]?[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : undefined;
  return unquoted !== undefined && accepts(unquoted) ? ` (drop the quotes: ${value})` : '';
}

/** Characters that look like a blank (or nothing) on screen but are text to YAML. */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/u;

/** A JSON type in words, as a JSON file holds it… */
const JSON_TYPE_WORDS: Record<string, string> = {
  array: 'a list',
  string: 'a string',
  null: 'null',
  object: 'an object',
  boolean: 'true or false',
  integer: 'a whole number',
  number: 'a number',
};

/** …and as a YAML file does. */
const FILE_TYPE_WORDS: Record<string, string> = { ...JSON_TYPE_WORDS, null: 'empty', object: 'a mapping' };

/** An error in the words of a config file (YAML), at the path it points to, or of a JSON file (`json`), after its path. */
function describe(error: ErrorObject, path: Path, json: boolean): SchemaIssue {
  const name = pathName(path);
  const data = error.data;
  const words = json ? JSON_TYPE_WORDS : FILE_TYPE_WORDS;
  const issue = (message: string, atKey = false): SchemaIssue => ({ path, atKey, message: `${name}${json ? ':' : ''} ${message}` });
  const atKey = (key: string, message: string): SchemaIssue => ({ path: [...path, key], atKey: true, message });
  // A config file's password is never shown.
  const value = !json && path.includes('password') ? 'the value given' : shown(data, words);
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      if (json) return issue(`unknown key "${key}"`);
      const known = Object.keys((error.parentSchema as SchemaNode | undefined)?.properties ?? {}).filter((k) => k !== '$schema');
      if (path.at(-1) === 'defaults' && (key === 'domain' || fieldOf(key)?.inDefaults === false)) return atKey(key, `${key} cannot be a default: set it on each website`);
      const inAccount = path.length === 2 && path[0] === 'accounts';
      if (API_KEY_LIKE.test(key) && (inAccount ? key !== 'api_key_env' : path.length === 0 || (path.length === 1 && path[0] === 'api'))) {
        // The value is never repeated: it is likely a real key.
        const instead = inAccount ? 'write the NAME of the environment variable that holds it as api_key_env, and remove the key' : 'put it in SITESYNC_API_KEY or in a file named by --api-key-file, and remove it';
        return atKey(key, `"${key}": the API key never goes in the file; ${instead} from this file (and from git history)`);
      }
      const close = suggest(key, known);
      const hint = close ? ` (did you mean "${close}"?)` : ` (known keys: ${known.join(', ')})`;
      return atKey(key, `unknown key "${key}"${path.length ? ` in ${name}` : ''}${hint}`);
    }
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return json ? issue(`"${missing}" is missing`) : issue(`has no "${missing}", which is required`, true);
    }
    case 'false schema':
      return issue('has no place here');
    case 'const':
    case 'enum': {
      const allowed = error.keyword === 'const' ? [error.schema] : (error.schema as unknown[]);
      if (json) return issue(`must be ${allowed.map((v) => JSON.stringify(v)).join(' or ')}, not ${value}`);
      const texts = allowed.filter((v) => typeof v !== 'number').map(String);
      const numbers = allowed.filter((v) => typeof v === 'number').map(String);
      const list = texts.length && numbers.length ? `${orList(texts)} (or ${numbers.join(', ')})` : orList(allowed.map(String));
      return issue(`must be ${list}, not ${value}${unquoteHint(data, (v) => allowed.includes(v))}`);
    }
    case 'type': {
      const types = ([] as string[]).concat(error.schema as string | string[]);
      const named = types.map((t) => words[t] ?? t);
      if (json) return issue(`must be ${named.join(' or ')}, not ${value}`);
      const expected = types.includes('array') && types.includes('string') ? 'a list, or a string with one entry per line' : orList(named);
      const quote = !types.includes('string') || !(typeof data === 'number' || typeof data === 'boolean') ? '' : path.includes('password') ? ' (quote it)' : ` (quote it: "${String(data)}")`;
      const hint = path.includes('password') ? '' : unquoteHint(data, (v) => types.includes(typeof v) || (types.includes('integer') && Number.isInteger(v)));
      const kind = typeof data === 'string' || typeof data === 'number' ? words[typeof data] : shown(data, words);
      return issue(`must be ${expected}, not ${kind}${quote}${hint}`);
    }
  }
  // The rest are the config file's: a JSON file says them in ajv's words.
  if (json) return issue(error.message ?? 'is invalid');
  switch (error.keyword) {
    case 'pattern': {
      const property = error.propertyName;
      if (property !== undefined) return atKey(property, `the account name "${property}" may hold only letters, digits, ".", "-" and "_", and starts with a letter or digit`);
      const env = path[path.length - 2] === 'password_env' ? ', or a glob of names with * (ACME_*)' : path[path.length - 1] === 'api_key_env' ? ', like ACME_STATS_KEY; the key itself never goes in the file' : undefined;
      // The value is not repeated: a key written as api_key_env by mistake must not be printed.
      if (env) return issue(`must be the NAME of an environment variable (letters, digits and _, not starting with a digit)${env}`);
      // A list field itself is its string form, one entry per line.
      const control = typeof data === 'string' ? controlCharacterIn(data, path.length > 0 && path[path.length - 1] !== 'domain' && typeof path[path.length - 1] === 'string') : undefined;
      if (control) return issue(control);
      break;
    }
    case 'minProperties':
      return issue('must hold at least one account');
    case 'minLength':
      // Every minLength of the file's schema is 1.
      return issue('must not be empty');
    case 'maxLength':
      return issue(`must be at most ${String(error.schema)} characters`);
    case 'minimum':
    case 'maximum':
      return issue(`must be at ${error.keyword === 'minimum' ? 'least' : 'most'} ${String(error.schema)}, not ${value}`);
  }
  return issue(error.message ?? 'is invalid');
}

const CONTROL_NAMES: Record<string, string> = { '\t': 'a tab', '\r': 'a carriage return', '\n': 'a line break', '\u001b': 'an escape' };

/**
 * The control character (C0, DEL, C1) a domain or list entry holds, which the schema's patterns
 * refuse, in words after its name; `lineBreaks`: a list's string form, one entry per line.
 */
export function controlCharacterIn(text: string, lineBreaks = false): string | undefined {
  const found = (lineBreaks ? /[\u0000-\u0009\u000b-\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/ : /[\u0000-\u001f\u007f-\u009f]/).exec(text);
  if (!found) return undefined;
  const ch = found[0];
  const split = ch === '\r' || ch === '\n' ? ', where the service would start another entry' : '';
  return `holds ${CONTROL_NAMES[ch] ?? 'a control character'} (${codePoint(ch)}) at character ${found.index + 1}${split}: an entry is one line of printable text (write each entry as its own list item)`;
}

/** `U+00A0` */
const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** A value as a message shows it: text quoted (its first 40 characters), null, a list or a mapping by its kind. */
function shown(value: unknown, words: Record<string, string>): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return words === FILE_TYPE_WORDS ? 'empty (null)' : 'null';
  return typeof value === 'object' ? words[Array.isArray(value) ? 'array' : 'object']! : String(value);
}
