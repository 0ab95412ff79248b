/**
 * Checks the shape of the data against `schemas/sitesync.schema.json`, the one source of truth
 * for keys, types and allowed values, and turns ajv's errors into messages a person can act on.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { fieldOf } from '../model/fields.js';
import { schemaPath } from '../io/paths.js';
import { configValidator } from './schema-validator.js';
import { suggest } from './suggest.js';
import type { Path } from './locate.js';

export interface ShapeIssue {
  path: Path;
  /** Point at the key (unknown key) rather than at the value. */
  atKey: boolean;
  message: string;
}

interface SchemaNode {
  properties?: Record<string, unknown>;
  enum?: unknown[];
  const?: unknown;
  type?: string | string[];
}

export function checkShape(data: unknown): ShapeIssue[] {
  const validate = configValidator();
  if (validate(data)) return [];
  const issues: ShapeIssue[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    const issue = describe(error);
    const id = `${issue.path.join('/')}|${issue.message}`;
    if (!seen.has(id)) {
      seen.add(id);
      issues.push(issue);
    }
  }
  return issues;
}

function parsePointer(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
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

function typeName(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return `${value}`;
  return typeof value;
}

function shown(value: unknown, path: Path): string {
  if (path.includes('password')) return 'the value given';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return 'empty (null)';
  if (typeof value === 'object') return typeName(value);
  return String(value);
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
  let unquoted: unknown;
  const text = value;
  if (text === 'true' || text === 'false') unquoted = text === 'true';
  else if (/^[-+]?[0-9]+(\.[0-9]+)?$/.test(text)) unquoted = Number(text);
  else return '';
  return accepts(unquoted) ? ` (drop the quotes: ${text})` : '';
}

/** Characters that look like a blank (or nothing) on screen but are text to YAML. */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/u;

function acceptsType(types: string[], v: unknown): boolean {
  if (typeof v === 'boolean') return types.includes('boolean');
  if (typeof v === 'number') return types.includes('number') || (types.includes('integer') && Number.isInteger(v));
  return false;
}

const TYPE_WORDS: Record<string, string> = {
  array: 'a list',
  string: 'a string',
  null: 'empty',
  object: 'a mapping',
  boolean: 'true or false',
  integer: 'a whole number',
  number: 'a number',
};

function describe(error: ErrorObject): ShapeIssue {
  const path = parsePointer(error.instancePath);
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
      if (path.length === 2 && path[0] === 'accounts' && API_KEY_LIKE.test(key) && key !== 'api_key_env') {
        return {
          path: keyPath,
          atKey: true,
          message: `"${key}": the API key never goes in the file; write the NAME of the environment variable that holds it as api_key_env, and remove the key from this file (and from git history)`,
        };
      }
      if (path.length <= 1 && (path.length === 0 || path[0] === 'api') && API_KEY_LIKE.test(key)) {
        // The value is never repeated: it is likely a real key.
        return {
          path: keyPath,
          atKey: true,
          message: `"${key}": the API key never goes in the file; put it in SITESYNC_API_KEY or in a file named by --api-key-file, and remove it from this file (and from git history)`,
        };
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
    case 'enum': {
      const allowed = (error.schema as unknown[]) ?? [];
      const words = allowed.filter((v) => typeof v !== 'number').map(String);
      const numbers = allowed.filter((v) => typeof v === 'number').map(String);
      const list = words.length && numbers.length ? `${orList(words)} (or ${numbers.join(', ')})` : orList(allowed.map(String));
      const hint = unquoteHint(data, (v) => allowed.includes(v));
      return { path, atKey: false, message: `${name} must be ${list}, not ${shown(data, path)}${hint}` };
    }
    case 'const': {
      const hint = unquoteHint(data, (v) => v === error.schema);
      return { path, atKey: false, message: `${name} must be ${JSON.stringify(error.schema)}, not ${shown(data, path)}${hint}` };
    }
    case 'type': {
      const types = ([] as string[]).concat(error.schema as string | string[]);
      const isList = types.includes('array') && types.includes('string');
      const expected = isList ? 'a list, or a string with one entry per line' : orList(types.map((t) => TYPE_WORDS[t] ?? t));
      const scalar = typeof data === 'number' || typeof data === 'boolean';
      const quote = !types.includes('string') || !scalar ? '' : path.includes('password') ? ' (quote it)' : ` (quote it: "${String(data)}")`;
      const hint = path.includes('password') ? '' : unquoteHint(data, (v) => acceptsType(types, v));
      return { path, atKey: false, message: `${name} must be ${expected}, not ${typeName(data)}${quote}${hint}` };
    }
    case 'propertyNames':
    case 'pattern': {
      const property = error.propertyName ?? (error.params as { propertyName?: string }).propertyName;
      if (property !== undefined) {
        return { path: [...path, property], atKey: true, message: accountNameProblem(property) };
      }
      if (path[path.length - 2] === 'password_env') {
        return { path, atKey: false, message: `${name} must be the NAME of an environment variable (letters, digits and _, not starting with a digit), or a glob of names with * (ACME_*)` };
      }
      if (path[path.length - 1] === 'api_key_env') {
        // The value is not repeated: a key written here by mistake must not be printed.
        return { path, atKey: false, message: `${name} must be the NAME of an environment variable (letters, digits and _, not starting with a digit), like ACME_STATS_KEY; the key itself never goes in the file` };
      }
      return { path, atKey: false, message: `${name} ${error.message ?? 'is invalid'}` };
    }
    case 'minProperties':
      return { path, atKey: false, message: `${name} must hold at least one account` };
    case 'minLength':
      return {
        path,
        atKey: false,
        message: (error.schema as number) === 1 ? `${name} must not be empty` : `${name} is too short`,
      };
    case 'maxLength':
      return { path, atKey: false, message: `${name} must be at most ${String(error.schema)} characters` };
    case 'minimum':
      return { path, atKey: false, message: `${name} must be at least ${String(error.schema)}, not ${shown(data, path)}` };
    case 'maximum':
      return { path, atKey: false, message: `${name} must be at most ${String(error.schema)}, not ${shown(data, path)}` };
    default:
      return { path, atKey: false, message: `${name} ${error.message ?? 'is invalid'}` };
  }
}

function accountNameProblem(name: string): string {
  return `the account name "${name}" may hold only letters, digits, ".", "-" and "_", and starts with a letter or digit`;
}

function orList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
