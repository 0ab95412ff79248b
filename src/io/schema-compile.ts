/**
 * A JSON Schema file compiled by ajv with the options sitesync's schemas are written for; the
 * build (scripts/build.mjs) generates the shipped validators with the same options. Only runs
 * from the sources (tests): the build replaces the validator modules that call it.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export function compileSchema(file: string): ValidateFunction {
  return new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true }).compile(JSON.parse(readFileSync(file, 'utf8')));
}
