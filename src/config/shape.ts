/**
 * Checks the shape of the data against `schemas/sitesync.schema.json`, the one source of truth
 * for keys, types and allowed values; schema/errors.ts words what departs from it.
 */
import { schemaIssues, type SchemaIssue } from '../schema/errors.js';

export { controlCharacterIn, pathName } from '../schema/errors.js';

export type ShapeIssue = SchemaIssue;

export function checkShape(data: unknown): ShapeIssue[] {
  return schemaIssues('config', data, 'yaml');
}
