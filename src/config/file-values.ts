/**
 * Readers of single setting values as the config file writes them (after the schema check):
 * privacy by name or number, flags as true/false or 1/0, lists as a YAML list or one string
 * with one entry per line. Shared by the table of website fields (fields.ts), the config's
 * parser and the saved-plan rules.
 */
import { PRIVACY_NAMES, type Flag, type Privacy } from '../model.js';

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
