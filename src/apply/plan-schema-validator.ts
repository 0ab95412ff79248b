/**
 * The validator of `schemas/plan.schema.json` (saved plans). Run from the sources (tests), ajv
 * compiles the schema on first use. The build (scripts/build.mjs) replaces this module with the
 * code ajv generates from the same schema with the same options.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { planSchemaPath } from '../paths.js';

let validate: ValidateFunction | undefined;

export function planValidator(): ValidateFunction {
  // The options scripts/build.mjs compiles with.
  validate ??= new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true }).compile(
    JSON.parse(readFileSync(planSchemaPath(), 'utf8')),
  );
  return validate;
}
