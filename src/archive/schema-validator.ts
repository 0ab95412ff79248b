/**
 * The validator of `schemas/archive.schema.json`. Run from the sources (tests), ajv compiles the
 * schema on first use. The build (scripts/build.mjs) replaces this module with the code ajv
 * generates from the same schema with the same options.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { archiveSchemaPath } from '../io/paths.js';
import { compileSchema } from '../io/schema-compile.js';

let validate: ValidateFunction | undefined;

export function archiveValidator(): ValidateFunction {
  return (validate ??= compileSchema(archiveSchemaPath()));
}
