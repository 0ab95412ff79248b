/**
 * Lenient readers of single values as the service writes them (ints as strings, `null` for a
 * default, `\r\n` lists, PHP-truthy flags): shared by the record translation (wire.ts) and the
 * table of website fields (fields.ts).
 */
export type Raw = Record<string, unknown>;

export function toInt(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** One of `allowed`; `fallback` (the service's default) for null, blank or anything else; undefined when absent. */
export function readEnum<T extends number>(record: Raw, key: string, allowed: readonly T[], fallback: T): T | undefined {
  if (!(key in record)) return undefined;
  const value = record[key];
  if (value === null || value === '') return fallback;
  const n = toInt(value);
  return n !== undefined && (allowed as readonly number[]).includes(n) ? (n as T) : fallback;
}

/** A newline list as the service returns it: `\r\n` or `\n`, stray blanks, or (some versions) an array. */
export function readList(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const items = Array.isArray(value) ? value.map(String) : String(value).split(/\r?\n|\r/);
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** PHP-truthy, as the service stores it: true, 1, "1" … */
export function readBool(value: unknown): boolean {
  if (typeof value === 'string') return value !== '' && value !== '0' && value.toLowerCase() !== 'false';
  return Boolean(value);
}
