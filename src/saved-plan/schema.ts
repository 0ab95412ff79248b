/**
 * Checks a saved plan's shape against `schemas/plan.schema.json`, the one source of truth for
 * its keys and types, and words ajv's errors as `changes[3].id: …`.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { pathName } from '../config/shape.js';
import { planValidator } from './schema-validator.js';

/** Every way the data departs from the schema, one message each, in the file's order. */
export async function schemaProblems(data: unknown): Promise<string[]> {
  const validate = planValidator();
  if (validate(data)) return [];
  const out: string[] = [];
  const typed = new Set<string>();
  const errors = validate.errors ?? [];
  // Inside "null or an object": when the value is an object, what is wrong inside it is the news.
  const within = (e: ErrorObject) => errors.some((o) => o !== e && o.instancePath.startsWith(`${e.instancePath}/`));
  for (const error of errors) {
    // "must match the then schema" only repeats the errors found inside it.
    if (error.keyword === 'if') continue;
    if ((error.keyword === 'anyOf' || (error.keyword === 'type' && error.schema === 'null')) && within(error)) continue;
    // One type message per value: `id` fails both its own type and the action's.
    if (error.keyword === 'type') {
      if (typed.has(error.instancePath)) continue;
      typed.add(error.instancePath);
    }
    const message = describe(error);
    if (!out.includes(message)) out.push(message);
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  array: 'a list',
  string: 'a string',
  null: 'null',
  object: 'an object',
  boolean: 'true or false',
  integer: 'a whole number',
  number: 'a number',
};

function describe(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const name = pathName(path);
  switch (error.keyword) {
    case 'additionalProperties':
      return `${name}: unknown key "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `${name}: "${(error.params as { missingProperty: string }).missingProperty}" is missing`;
    case 'false schema':
      return `${name}: has no place here`;
    case 'type': {
      const types = ([] as string[]).concat(error.schema as string | string[]);
      return `${name}: must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}, not ${shown(error.data)}`;
    }
    case 'const':
    case 'enum': {
      const allowed = error.keyword === 'const' ? [error.schema] : (error.schema as unknown[]);
      return `${name}: must be ${allowed.map((v) => JSON.stringify(v)).join(' or ')}, not ${shown(error.data)}`;
    }
    default:
      return `${name}: ${error.message ?? 'is invalid'}`;
  }
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'a list';
  if (value && typeof value === 'object') return 'an object';
  return String(value);
}
