/**
 * An archive read back from its file, checked before anything depends on it (apply deletes the
 * website only after this): valid JSON, the schema's shape, and totals that are the sums of its
 * daily rows.
 */
import type { Archive } from './file.js';
import { schemaValidator } from '../schema/validators.js';

/** What is wrong with an archive file's text; undefined when it is a whole archive. */
export function archiveProblem(text: string): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  const validate = schemaValidator('archive');
  if (!validate(data)) {
    const [error] = validate.errors ?? [];
    return `it does not match schemas/archive.schema.json (${error?.instancePath || '/'} ${error?.message ?? 'is invalid'})`;
  }
  const archive = data as Archive;
  const sum = (field: 'pageviews' | 'visitors') => archive.daily.reduce((n, d) => n + d[field], 0);
  if (archive.totals.pageviews !== sum('pageviews') || archive.totals.visitors !== sum('visitors')) return 'its totals are not the sums of its daily rows';
  return undefined;
}
