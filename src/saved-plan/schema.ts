/**
 * Checks a saved plan's shape against `schemas/plan.schema.json`, the one source of truth for
 * its keys and types; schema/errors.ts words what departs from it as `changes[3].id: …`.
 */
import { schemaIssues } from '../schema/errors.js';

/** Every way the data departs from the schema, one message each, in the file's order. */
export async function schemaProblems(data: unknown): Promise<string[]> {
  return schemaIssues('plan', data, 'json').map((issue) => issue.message);
}
