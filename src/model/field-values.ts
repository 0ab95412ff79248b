/**
 * Readers of single setting values, from both sides of every comparison: as the config file
 * writes them (after the schema check: privacy by name or number, flags as true/false or 1/0,
 * lists as a YAML list or one string with one entry per line), and as the service writes them
 * (ints as strings, `null` for a default, `\r\n` lists, PHP-truthy flags). Below the table of
 * website fields (fields.ts), the config's parser and the wire translation, which all read them.
 */
import { PRIVACY_NAMES, type Flag, type Privacy } from './types.js';

export function filePrivacy(value: unknown): Privacy | undefined {
  if (value === 0 || value === 1 || value === 2) return value;
  const index = PRIVACY_NAMES.indexOf(value as (typeof PRIVACY_NAMES)[number]);
  return index >= 0 ? (index as Privacy) : undefined;
}

export function fileFlag(value: unknown): Flag | undefined {
  if (value === true || value === 1) return 1;
  if (value === false || value === 0) return 0;
  return undefined;
}

export function fileBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A list, or a string with one entry per line; entries trimmed, blanks dropped. */
export function listValue(value: unknown): { value: string; index?: number }[] | undefined {
  if (value === null) return [];
  if (typeof value === 'string') {
    return value
      .split(/\r?\n/)
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => ({ value: s }));
  }
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return value
      .map((s: string, index) => ({ value: s.trim(), index }))
      .filter((e) => e.value !== '');
  }
  return undefined;
}
export type Raw = Record<string, unknown>;

export function toInt(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/**
 * One of `allowed`; `empty` for null or blank (the service's default unless said), `fallback`
 * (the service's default) for anything else; undefined when absent.
 */
export function readEnum<T extends number>(record: Raw, key: string, allowed: readonly T[], fallback: T, empty: T = fallback): T | undefined {
  if (!(key in record)) return undefined;
  const value = record[key];
  if (value === null || value === '') return empty;
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
