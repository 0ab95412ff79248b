/**
 * The validators of schemas/*.schema.json, by name, compiled on first use (tests); the build
 * (scripts/build.mjs) puts ajv's standalone code of the same schemas in its place.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { packageRoot } from '../io/paths.js';

/** Each schema's file in schemas/ (the build reads this line). */
export const SCHEMA_FILES = { config: 'sitesync.schema.json', plan: 'plan.schema.json', archive: 'archive.schema.json' } as const;

export type SchemaName = keyof typeof SCHEMA_FILES;

/**
 * ajv adds a called validator's errors (a website's) by `vErrors.concat(…)`, a copy of all so far
 * each time: a stranger's file of 100,000 websites each with a mistake took minutes. Rewritten to
 * add them in place, in the same order; the build reads these two lines too.
 */
export const ERRORS_CONCAT = /vErrors = vErrors === null \? (\w+)\.errors : vErrors\.concat\(\1\.errors\);/g;
export const ERRORS_IN_PLACE = 'if (vErrors === null) vErrors = $1.errors; else for (const added of $1.errors) vErrors.push(added);';

let ajv: Ajv2020 | undefined;

/** Compiled on first use; the schemas are read together, as one may point into another. */
export function schemaValidator(name: SchemaName): ValidateFunction {
  if (!ajv) {
    // The options the schemas are written for; the build generates the shipped validators with the same.
    ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { process: (code) => code.replace(ERRORS_CONCAT, ERRORS_IN_PLACE) } });
    for (const file of Object.values(SCHEMA_FILES)) ajv.addSchema(JSON.parse(readFileSync(join(packageRoot(), 'schemas', file), 'utf8')), file);
  }
  return ajv.getSchema(SCHEMA_FILES[name])!;
}
