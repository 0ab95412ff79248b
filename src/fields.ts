/**
 * The website fields sitesync manages, one row each, in the order they are shown: how each is
 * read from a service record, written to the form, compared, shown, whether the service ever
 * returns it, when it may be sent, the service's default, and whether `defaults` may carry it.
 * The planner, the wire translation, the renderers and the saved-plan checks read this table;
 * adding a field is one row here, plus the file's schema (and parse.ts) and the emulator.
 */
import { PRIVACY_NAMES, type FieldName, type FieldValue } from './model.js';
import { printable } from './render/escape.js';
import { readBool, readEnum, readList, type Raw } from './service/read-values.js';

export interface Field {
  name: FieldName;
  /** The value a service record holds; undefined when the record does not have the field. */
  read(record: Raw): string[] | number | boolean | undefined;
  /** The form value sent for a value (a password: its value, never a view's `(sensitive)`). */
  write(value: unknown): string;
  /** How two values compare: as they are, as sets of trimmed entries, or (a secret) by value. */
  compare: 'scalar' | 'set' | 'secret';
  /** How a value reads in outputs; undefined: as the generic text of the value. */
  show?(value: NonNullable<FieldValue>): string | undefined;
  /** What a value that is absent reads as. */
  unset: string;
  /** The service never returns its value (only, for a password, whether one is set). */
  writeOnly: boolean;
  /** Settable when the website is stored, and by an update (favorite: updates only). */
  onCreate: boolean;
  onUpdate: boolean;
  /** What the service applies on create when it is not sent; undefined: nothing sitesync assumes. */
  serviceDefault?: number | boolean | readonly string[];
  /**
   * `defaults` may carry it, and every listed website enforces it (its own value, else the
   * default, else the service's). False: enforced only where the website itself sets it.
   */
  inDefaults: boolean;
}

const flag = (value: NonNullable<FieldValue>) => (typeof value === 'number' ? (value ? 'true' : 'false') : undefined);
const list = (value: unknown) => (value as string[]).join('\n');

/** A newline-separated list the service keeps as text: compared as a set of trimmed entries. */
function listField(name: 'exclude_params' | 'exclude_ips'): Field {
  return {
    name,
    read: (r) => (name in r ? readList(r[name]) : undefined),
    write: list,
    compare: 'set',
    unset: '(unknown)',
    writeOnly: false,
    onCreate: true,
    onUpdate: true,
    serviceDefault: [],
    inDefaults: true,
  };
}

export const FIELDS: readonly Field[] = [
  {
    name: 'privacy',
    read: (r) => readEnum(r, 'privacy', [0, 1, 2], 0),
    write: String,
    compare: 'scalar',
    show: (value) => (typeof value === 'number' ? (PRIVACY_NAMES[value] ?? String(value)) : undefined),
    unset: '(unknown)',
    writeOnly: false,
    onCreate: true,
    onUpdate: true,
    serviceDefault: 0,
    inDefaults: true,
  },
  {
    name: 'password',
    read: (r) => ('password' in r ? readBool(r.password) : undefined),
    write: String,
    compare: 'secret',
    show: (value) => (value === '(sensitive)' ? '(sensitive)' : value ? '(set)' : '(not set)'),
    unset: '(not set)',
    writeOnly: true,
    onCreate: true,
    onUpdate: true,
    inDefaults: false,
  },
  {
    name: 'email',
    read: (r) => readEnum(r, 'email', [0, 1], 0),
    write: String,
    compare: 'scalar',
    show: flag,
    unset: '(unknown)',
    writeOnly: false,
    onCreate: true,
    onUpdate: true,
    serviceDefault: 0,
    inDefaults: true,
  },
  {
    name: 'exclude_bots',
    read: (r) => readEnum(r, 'exclude_bots', [0, 1], 1),
    write: String,
    compare: 'scalar',
    show: flag,
    unset: '(unknown)',
    writeOnly: false,
    onCreate: true,
    onUpdate: true,
    serviceDefault: 1,
    inDefaults: true,
  },
  listField('exclude_params'),
  listField('exclude_ips'),
  {
    name: 'favorite',
    read: (r) => ('favorite' in r ? readBool(r.favorite) : undefined),
    // 1/0: the service reads any PHP-truthy value as true, so the string "false" would set it.
    write: (value) => (value ? '1' : '0'),
    compare: 'scalar',
    unset: '(unknown)',
    writeOnly: false,
    onCreate: false,
    onUpdate: true,
    serviceDefault: false,
    inDefaults: false,
  },
];

export const FIELD_NAMES: readonly FieldName[] = FIELDS.map((f) => f.name);

/** Each field's row by its name. */
export const FIELD = Object.fromEntries(FIELDS.map((f) => [f.name, f])) as Record<FieldName, Field>;

/** The row of a name; undefined for a name that is no field (e.g. `domain`). */
export function fieldOf(name: string): Field | undefined {
  return FIELDS.find((f) => f.name === name);
}

/** Where a field is shown and sent among the others. */
export function fieldOrder(name: FieldName): number {
  return FIELD_NAMES.indexOf(name);
}

/** Lists compare as sets of trimmed entries. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a.map((s) => s.trim()).filter(Boolean));
  const right = new Set(b.map((s) => s.trim()).filter(Boolean));
  if (left.size !== right.size) return false;
  for (const item of left) if (!right.has(item)) return false;
  return true;
}

/**
 * Whether two values of a field, as views and live websites hold them, are the same. A secret
 * there is only `(sensitive)` or whether one is set; its value is compared by `sameSecret`.
 */
export function sameValue(field: Field, a: unknown, b: unknown): boolean {
  if (field.compare === 'set') return Array.isArray(a) && Array.isArray(b) ? sameList(a, b) : a === b;
  return a === b;
}

/** Whether two secrets as written in files have the same value now. */
export function sameSecret(a: { value: string } | undefined, b: { value: string } | undefined): boolean {
  return a?.value === b?.value;
}
