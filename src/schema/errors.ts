/**
 * The one worder of schema errors: validates data against one of sitesync's schemas
 * (validators.ts) and turns ajv's errors into messages a person can act on, in the file's order,
 * each once. A config file's (YAML) are worded at the path they point to, for its FILE:LINE:COL;
 * a JSON file's (a saved plan) as `changes[3].id: …`.
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
  // The paths that hold an error below them, gathered once: a stranger's saved plan of 20,000
  // changes, each error looked for among all the others, held apply for minutes.
  let above: Set<string> | undefined;
  const within = (e: ErrorObject) => {
    if (!above) {
      above = new Set();
      for (const o of errors) for (let i = o.instancePath.indexOf('/'); i >= 0; i = o.instancePath.indexOf('/', i + 1)) above.add(o.instancePath.slice(0, i));
    }
    return above.has(e.instancePath);
  };
  for (const error of errors) {
    // "must match the then schema" only repeats the errors found inside it.
    if (error.keyword === 'if') continue;
    if (error.keyword === 'type' && error.schema === 'null' && within(error)) continue;
    const path = parsePointer(error.instancePath);
    const issue = words === 'json' ? { path, atKey: false, message: `${pathName(path)}: ${jsonMessage(error)}` } : describeInFile(error, path);
    // One type message per value: a plan's `id` fails both its own type and the action's.
    const id = `${issue.path.join('/')}|${error.keyword === 'type' ? 'type' : issue.message}`;
    if (!issues.has(id)) issues.set(id, issue);
  }
  return [...issues.values()];
}

function parsePointer(pointer: string): (string | number)[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** `websites[3].privacy` */
export function pathName(path: Path): string {
  let out = '';
  for (const segment of path) {
    out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  }
  return out || 'the file';
}

function fileTypeName(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (typeof value === 'boolean') return `${value}`;
  return FILE_TYPE_WORDS[Array.isArray(value) ? 'array' : typeof value] ?? typeof value;
}

function shownInFile(value: unknown, path: Path): string {
  if (path.includes('password')) return 'the value given';
  return typeof value === 'string' ? shownInJson(value) : value === null || typeof value === 'object' ? fileTypeName(value) : String(value);
}

/** Keys under which people write an API key: `api_key`, `apikey`, `token`, `secret`, `key`… */
const API_KEY_LIKE = /(^|[_-])(api[_-]?)?(key|token|secret)$|^apikey$/i;

/**
 * " (drop the quotes: true)" when a quoted string would, unquoted, be a value the schema
 * accepts: `email: "true"`, `version: "1"`. YAML reads `"true"` as text, `true` as a boolean.
 */
function unquoteHint(value: unknown, accepts: (v: unknown) => boolean): string {
  if (typeof value !== 'string') return '';
  const invisible = INVISIBLE.exec(value);
  if (invisible) {
    const code = invisible[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return ` (it holds an invisible character, U+${code}, that YAML does not take for a blank: delete it)`;
  }
  const unquoted = value === 'true' || value === 'false' ? value === 'true' : /^[-+]?[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : undefined;
  return unquoted !== undefined && accepts(unquoted) ? ` (drop the quotes: ${value})` : '';
}

/** Characters that look like a blank (or nothing) on screen but are text to YAML. */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/u;

function acceptsType(types: string[], v: unknown): boolean {
  if (typeof v === 'boolean') return types.includes('boolean');
  if (typeof v === 'number') return types.includes('number') || (types.includes('integer') && Number.isInteger(v));
  return false;
}

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

/** An error of the config file's schema, in the words of a YAML file, at the path it points to. */
function describeInFile(error: ErrorObject, path: Path): SchemaIssue {
  const name = pathName(path);
  const data = error.data;
  const parent = error.parentSchema as SchemaNode | undefined;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys(parent?.properties ?? {}).filter((k) => k !== '$schema');
      const keyPath = [...path, key];
      const where = path.length ? ` in ${name}` : '';
      if (path[path.length - 1] === 'defaults' && (key === 'domain' || fieldOf(key)?.inDefaults === false)) {
        return { path: keyPath, atKey: true, message: `${key} cannot be a default: set it on each website` };
      }
      const inAccount = path.length === 2 && path[0] === 'accounts';
      if (API_KEY_LIKE.test(key) && (inAccount ? key !== 'api_key_env' : path.length === 0 || (path.length === 1 && path[0] === 'api'))) {
        // The value is never repeated: it is likely a real key.
        const instead = inAccount ? 'write the NAME of the environment variable that holds it as api_key_env, and remove the key' : 'put it in SITESYNC_API_KEY or in a file named by --api-key-file, and remove it';
        return { path: keyPath, atKey: true, message: `"${key}": the API key never goes in the file; ${instead} from this file (and from git history)` };
      }
      const close = suggest(key, known);
      const hint = close ? ` (did you mean "${close}"?)` : ` (known keys: ${known.join(', ')})`;
      return { path: keyPath, atKey: true, message: `unknown key "${key}"${where}${hint}` };
    }
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      const what = path.length ? `${name} has no "${missing}"` : `the file has no "${missing}"`;
      return { path, atKey: true, message: `${what}, which is required` };
    }
    case 'const':
    case 'enum': {
      const allowed = error.keyword === 'const' ? [error.schema] : (error.schema as unknown[]);
      const words = allowed.filter((v) => typeof v !== 'number').map(String);
      const numbers = allowed.filter((v) => typeof v === 'number').map(String);
      const list = words.length && numbers.length ? `${orList(words)} (or ${numbers.join(', ')})` : orList(allowed.map(String));
      const hint = unquoteHint(data, (v) => allowed.includes(v));
      return { path, atKey: false, message: `${name} must be ${list}, not ${shownInFile(data, path)}${hint}` };
    }
    case 'type': {
      const types = ([] as string[]).concat(error.schema as string | string[]);
      const isList = types.includes('array') && types.includes('string');
      const expected = isList ? 'a list, or a string with one entry per line' : orList(types.map((t) => FILE_TYPE_WORDS[t] ?? t));
      const scalar = typeof data === 'number' || typeof data === 'boolean';
      const quote = !types.includes('string') || !scalar ? '' : path.includes('password') ? ' (quote it)' : ` (quote it: "${String(data)}")`;
      const hint = path.includes('password') ? '' : unquoteHint(data, (v) => acceptsType(types, v));
      return { path, atKey: false, message: `${name} must be ${expected}, not ${fileTypeName(data)}${quote}${hint}` };
    }
    case 'propertyNames':
    case 'pattern': {
      const property = error.propertyName ?? (error.params as { propertyName?: string }).propertyName;
      if (property !== undefined) {
        const message = `the account name "${property}" may hold only letters, digits, ".", "-" and "_", and starts with a letter or digit`;
        return { path: [...path, property], atKey: true, message };
      }
      const env = path[path.length - 2] === 'password_env' ? ', or a glob of names with * (ACME_*)' : path[path.length - 1] === 'api_key_env' ? ', like ACME_STATS_KEY; the key itself never goes in the file' : undefined;
      // The value is not repeated: a key written as api_key_env by mistake must not be printed.
      if (env) return { path, atKey: false, message: `${name} must be the NAME of an environment variable (letters, digits and _, not starting with a digit)${env}` };
      // A list field itself is its string form, one entry per line.
      const control = typeof data === 'string' ? controlCharacterIn(data, path.length > 0 && path[path.length - 1] !== 'domain' && typeof path[path.length - 1] === 'string') : undefined;
      if (control) return { path, atKey: false, message: `${name} ${control}` };
      break;
    }
    case 'minProperties':
      return { path, atKey: false, message: `${name} must hold at least one account` };
    case 'minLength':
      // Every minLength of the file's schema is 1.
      return { path, atKey: false, message: `${name} must not be empty` };
    case 'maxLength':
      return { path, atKey: false, message: `${name} must be at most ${String(error.schema)} characters` };
    case 'minimum':
    case 'maximum':
      return { path, atKey: false, message: `${name} must be at ${error.keyword === 'minimum' ? 'least' : 'most'} ${String(error.schema)}, not ${shownInFile(data, path)}` };
  }
  return { path, atKey: false, message: `${name} ${error.message ?? 'is invalid'}` };
}

const CONTROL_NAMES: Record<string, string> = { '\t': 'a tab', '\r': 'a carriage return', '\n': 'a line break', '\u001b': 'an escape' };

/**
 * What the control character (C0, DEL, C1) in a domain or list entry does, in words after its
 * name; undefined when it holds none. The schema's patterns refuse them; `lineBreaks`: the
 * string form of a list, one entry per line (`\n` or `\r\n`).
 */
export function controlCharacterIn(text: string, lineBreaks = false): string | undefined {
  const found = (lineBreaks ? /[\u0000-\u0009\u000b-\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/ : /[\u0000-\u001f\u007f-\u009f]/).exec(text);
  if (!found) return undefined;
  const ch = found[0];
  const code = `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  const split = ch === '\r' || ch === '\n' ? ', where the service would start another entry' : '';
  return `holds ${CONTROL_NAMES[ch] ?? 'a control character'} (${code}) at character ${found.index + 1}${split}: an entry is one line of printable text (write each entry as its own list item)`;
}

/** An error of a JSON file's schema, in its words (after its path: `changes[3].id: …`). */
function jsonMessage(error: ErrorObject): string {
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown key "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `"${(error.params as { missingProperty: string }).missingProperty}" is missing`;
    case 'false schema':
      return 'has no place here';
    case 'type': {
      const types = ([] as string[]).concat(error.schema as string | string[]);
      return `must be ${types.map((t) => JSON_TYPE_WORDS[t] ?? t).join(' or ')}, not ${shownInJson(error.data)}`;
    }
    case 'const':
    case 'enum': {
      const allowed = error.keyword === 'const' ? [error.schema] : (error.schema as unknown[]);
      return `must be ${allowed.map((v) => JSON.stringify(v)).join(' or ')}, not ${shownInJson(error.data)}`;
    }
    default:
      return error.message ?? 'is invalid';
  }
}

/** A value as a message shows it: text quoted (its first 40 characters), a list or an object by its kind. */
function shownInJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return value && typeof value === 'object' ? JSON_TYPE_WORDS[Array.isArray(value) ? 'array' : 'object']! : String(value);
}
