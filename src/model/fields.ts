/**
 * The website fields sitesync manages, one row each, in the order they are shown: how each is
 * read from a service record, written to the form, compared, shown, whether the service ever
 * returns it, when it may be sent, the service's default, and whether `defaults` may carry it.
 * The planner, the wire translation, the renderers and the saved-plan checks read this table, and
 * the fields' part of the schemas (the file's, saved plans', archives') is generated from it
 * (field-schemas.ts): adding a field is one row here, and the emulator's answer.
 */
import { neverMatchingReason } from './exclude-ips.js';
import { fileBoolean, fileFlag, filePrivacy, listValue, readBool, readEnum, readList, type Raw } from './field-values.js';
import { PRIVACY_NAMES, type FieldName, type FieldValue, type Flag, type Privacy } from './types.js';

/** A JSON Schema (draft 2020-12) as data. */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface Field {
  name: FieldName;
  /** The value a service record holds; undefined when the record does not have the field. */
  read(record: Raw): string[] | number | boolean | undefined;
  /**
   * The value the config file gives it, as the schema let it through (`private`, `true`, one
   * string per line…); undefined when the file does not set it. A secret has none here: the
   * parser resolves its `${NAME}`.
   */
  fromFile?(value: unknown): Privacy | Flag | boolean | string[] | undefined;
  /** The value as an exported file writes it (what `fromFile` reads back); undefined: never exported. */
  toFile?(value: NonNullable<FieldValue>): unknown;
  /** Why a list entry the file holds is suspect: warned about with its line, kept all the same. */
  entryWarning?(entry: string): string | undefined;
  /** The same for an exported entry, as a comment beside the website (`shown`: the entry as printed). */
  entryNote?(entry: string, shown: string): string | undefined;
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
  /**
   * Its JSON Schema, which field-schemas.ts writes into the schema files: as the config file
   * writes it (a website's key, and `defaults`' when `inDefaults`), and in a saved plan's change
   * (`before`: as the live website holds it; `after`: as it is sent).
   */
  schema: { file: JsonSchema; before: JsonSchema; after: JsonSchema };
}

/** What most fields share: shown by the service, settable always, enforced everywhere. */
const SETTING = { unset: '(unknown)', writeOnly: false, onCreate: true, onUpdate: true, inDefaults: true } as const;

/**
 * A 0/1 setting: `true`/`false` (or 1/0) in the file, 0/1 on the wire, true/false in outputs.
 * A stored null is off, whatever the default of a create that leaves the field out: the
 * product acts on the flag by PHP truth (`if ($website->exclude_bots)`), and null is false.
 */
function flagField(name: FieldName, serviceDefault: Flag): Field {
  const show = (value: NonNullable<FieldValue>) => (typeof value === 'number' ? (value ? 'true' : 'false') : undefined);
  return {
    ...SETTING,
    name,
    read: (r) => readEnum(r, name, [0, 1], serviceDefault, 0),
    fromFile: fileFlag,
    toFile: (value) => value === 1,
    write: String,
    compare: 'scalar',
    show,
    serviceDefault,
    schema: { file: { $ref: '#/$defs/flag' }, before: { enum: [0, 1] }, after: { enum: [0, 1] } },
  };
}

/** What a list field may say about its entries, in the file and in an export. */
type EntryChecks = Pick<Field, 'entryWarning' | 'entryNote'>;

/** A list: one entry per line on the wire, compared as a set of trimmed entries, empty by default. */
function listField(name: FieldName, checks: EntryChecks = {}): Field {
  return {
    ...SETTING,
    name,
    read: (r) => (name in r ? readList(r[name]) : undefined),
    fromFile: (value) => listValue(value)?.map((e) => e.value),
    toFile: (value) => value,
    ...checks,
    write: (value) => (value as string[]).join('\n'),
    compare: 'set',
    serviceDefault: [],
    schema: {
      file: { $ref: '#/$defs/list' },
      before: { $ref: 'plan.schema.json#/$defs/strings' },
      after: { type: 'array', items: { $ref: '#/$defs/sentEntry' } },
    },
  };
}

export const FIELDS: readonly Field[] = [
  {
    ...SETTING,
    name: 'privacy',
    read: (r) => readEnum(r, 'privacy', [0, 1, 2], 0),
    fromFile: filePrivacy,
    toFile: (value) => PRIVACY_NAMES[value as Privacy],
    write: String,
    compare: 'scalar',
    show: (value) => (typeof value === 'number' ? (PRIVACY_NAMES[value] ?? String(value)) : undefined),
    serviceDefault: 0,
    schema: { file: { $ref: '#/$defs/privacy' }, before: { enum: [0, 1, 2] }, after: { enum: [0, 1, 2] } },
  },
  {
    ...SETTING,
    name: 'password',
    read: (r) => ('password' in r ? readBool(r.password) : undefined),
    write: String,
    compare: 'secret',
    show: (value) => (value === '(sensitive)' ? '(sensitive)' : value ? '(set)' : '(not set)'),
    unset: '(not set)',
    writeOnly: true,
    inDefaults: false,
    schema: {
      file: {
        description: 'Write-only: never printed, never saved in clear. Use ${NAME} to take it from the environment.',
        type: 'string',
        minLength: 1,
        maxLength: 128,
      },
      // Whether one is set; sent, it is never written out.
      before: { type: 'boolean' },
      after: { const: '(sensitive)' },
    },
  },
  flagField('email', 0),
  flagField('exclude_bots', 1),
  listField('exclude_params'),
  listField('exclude_ips', {
    entryWarning: neverMatchingReason,
    entryNote: (entry, shown) =>
      neverMatchingReason(entry) ? `exclude_ips ${shown} never matches a visitor (not an address or CIDR range); kept as the service holds it` : undefined,
  }),
  {
    ...SETTING,
    name: 'favorite',
    read: (r) => ('favorite' in r ? readBool(r.favorite) : undefined),
    fromFile: fileBoolean,
    toFile: (value) => value,
    // 1/0: the service reads any PHP-truthy value as true, so the string "false" would set it.
    write: (value) => (value ? '1' : '0'),
    compare: 'scalar',
    onCreate: false,
    serviceDefault: false,
    inDefaults: false,
    schema: { file: { type: 'boolean' }, before: { type: 'boolean' }, after: { type: 'boolean' } },
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
  // The same entries in the same order, as nearly every unchanged website has them: nothing to build.
  if (a.length === b.length && a.every((item, i) => item === b[i] && item === item.trim() && item !== '')) return true;
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

/**
 * Whether two files give a secret the same way: as written (`${NAME}`), never by the values now.
 * A changed reference is a change of the file, whatever the variables hold; comparing values
 * would tell a file's author whether a variable of their choice holds a given password.
 */
export function sameSecret(a: { template: string } | undefined, b: { template: string } | undefined): boolean {
  return a?.template === b?.template;
}
