/**
 * The fields' part of the schema files, written from the table of fields (fields.ts): a website's
 * keys and `defaults`' in `schemas/sitesync.schema.json`, a change's field names and values in
 * `schemas/plan.schema.json`, a website's settings in `schemas/archive.schema.json`. Everything else in those files is written by hand and kept as it
 * is. Pure: the build (scripts/build.mjs, or `npm run schemas`) writes what this returns, and a
 * test fails when a committed schema file differs from it.
 */
import { FIELDS, type Field, type JsonSchema } from './fields.js';

/** The schema files that hold fields, and how each takes them. */
export const FIELD_SCHEMA_FILES = {
  'sitesync.schema.json': withConfigFields,
  'plan.schema.json': withPlanFields,
  'archive.schema.json': withArchiveFields,
} as const;

export type FieldSchemaFile = keyof typeof FIELD_SCHEMA_FILES;

/** A schema file's text with its fields' part written from the table, as the file is committed. */
export function schemaFileText(file: FieldSchemaFile, text: string, fields: readonly Field[] = FIELDS): string {
  return `${schemaJson(FIELD_SCHEMA_FILES[file](JSON.parse(text) as JsonSchema, fields))}\n`;
}

/** JSON as the schema files are written: two spaces, and an array of scalars on one line where it fits. */
export function schemaJson(value: unknown, indent = '', key = ''): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const list = Array.isArray(value);
  if (list && value.every((v) => typeof v !== 'object' || v === null)) {
    const line = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    if (`${indent}${key}${line},`.length <= 100) return line;
  }
  const inner = `${indent}  `;
  const entries = list ? value.map((v) => ['', v] as const) : Object.entries(value).map(([k, v]) => [`${JSON.stringify(k)}: `, v] as const);
  const [open, close] = list ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  return `${open}\n${entries.map(([k, v]) => `${inner}${k}${schemaJson(v, inner, k)}`).join(',\n')}\n${indent}${close}`;
}

/** The config file's schema: a website's keys (after `domain`), and those `defaults` may carry. */
export function withConfigFields(schema: JsonSchema, fields: readonly Field[] = FIELDS): JsonSchema {
  const defs = schema.$defs as Record<string, JsonSchema>;
  const website = withProperties(defs.website, fields, (f) => f.schema.file);
  const defaults = withProperties(defs.defaults, fields.filter((f) => f.inDefaults), (f) => f.schema.file);
  return { ...schema, $defs: { ...defs, website, defaults } };
}

/** A saved plan's schema: the names a change's `fields` lists, and the values of `before` and `after`. */
export function withPlanFields(schema: JsonSchema, fields: readonly Field[] = FIELDS): JsonSchema {
  const defs = schema.$defs as Record<string, JsonSchema>;
  const field = { ...defs.field, enum: fields.map((f) => f.name) };
  const before = withProperties(defs.before, fields, (f) => f.schema.before);
  const after = withProperties(defs.after, fields, (f) => f.schema.after);
  return { ...schema, $defs: { ...defs, field, before, after } };
}

/** An archive's schema: a website's settings as the service returned them (a write-only field: whether it is set). */
export function withArchiveFields(schema: JsonSchema, fields: readonly Field[] = FIELDS): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  const website = properties.website as { properties: Record<string, JsonSchema> };
  const settings = { ...website.properties.settings, properties: Object.fromEntries(fields.map((f) => [f.writeOnly ? `${f.name}_set` : f.name, f.schema.before])) };
  return { ...schema, properties: { ...properties, website: { ...website, properties: { ...website.properties, settings } } } };
}

/**
 * An object schema whose `properties` are the hand-written ones that are no field (`domain`),
 * first, then one per field in the table's order.
 */
function withProperties(object: JsonSchema | undefined, fields: readonly Field[], schemaOf: (f: Field) => JsonSchema): JsonSchema {
  const written = (object?.properties ?? {}) as Record<string, JsonSchema>;
  const kept = Object.entries(written).filter(([name]) => !FIELDS.some((f) => f.name === name) && !fields.some((f) => f.name === name));
  return { ...object, properties: Object.fromEntries([...kept, ...fields.map((f) => [f.name, schemaOf(f)] as const)]) };
}

