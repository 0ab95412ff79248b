/**
 * The validator of `schemas/plan.schema.json` (saved plans). Run from the sources (tests), ajv
 * compiles the schema on first use. The build (scripts/build.mjs) replaces this module with the
 * code ajv generates from the same schema with the same options.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { planSchemaPath } from '../io/paths.js';
import { compileSchema } from '../io/schema-compile.js';

let validate: ValidateFunction | undefined;

export function planValidator(): ValidateFunction {
  return (validate ??= compileSchema(planSchemaPath()));
}
