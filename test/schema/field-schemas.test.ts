/** The fields' part of the schema files is the table of fields (src/model/fields.ts), written out. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { FIELD_SCHEMA_FILES, schemaFileText, type FieldSchemaFile } from '../../src/model/field-schemas.js';
import { FIELD, FIELDS, type Field } from '../../src/model/fields.js';
import { packageRoot } from '../../src/io/paths.js';

const committed = (name: FieldSchemaFile) => readFileSync(join(packageRoot(), 'schemas', name), 'utf8');

/** A new field, as its row would give it: a 0/1 flag the file and `defaults` may set. */
const NEW_FLAG: Field = { ...FIELD.email, name: 'track_hash' as Field['name'] };
const WITH_NEW = [...FIELDS, NEW_FLAG];

const compile = (text: string) => new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(JSON.parse(text));

describe('the schema files follow the table of fields', () => {
  for (const name of Object.keys(FIELD_SCHEMA_FILES) as FieldSchemaFile[]) {
    it(`schemas/${name} is committed as the table writes it (else: npm run schemas)`, () => {
      const text = committed(name);
      const written = schemaFileText(name, text);
      expect(text === written, `schemas/${name} differs from what src/model/fields.ts writes: run \`npm run schemas\` (or \`npm run build\`) and commit it`).toBe(true);
    });
  }

  it('a field added to the table is a key of a website and of defaults in the file, and a field of a saved change', () => {
    const config = compile(schemaFileText('sitesync.schema.json', committed('sitesync.schema.json'), WITH_NEW));
    expect(config({ version: 1, defaults: { track_hash: true }, websites: [{ domain: 'a.example.com', track_hash: 0 }] }), JSON.stringify(config.errors)).toBe(true);
    expect(config({ version: 1, websites: [{ domain: 'a.example.com', track_hash: 'yes' }] })).toBe(false);
    // Today's table: the key is unknown.
    expect(compile(committed('sitesync.schema.json'))({ version: 1, websites: [{ domain: 'a.example.com', track_hash: 0 }] })).toBe(false);

    const plan = JSON.parse(schemaFileText('plan.schema.json', committed('plan.schema.json'), WITH_NEW)) as { $defs: Record<string, { enum?: string[]; properties?: object }> };
    expect(plan.$defs.field!.enum).toEqual([...FIELDS.map((f) => f.name), 'track_hash']);
    expect(Object.keys(plan.$defs.before!.properties!)).toEqual(['domain', ...FIELDS.map((f) => f.name), 'track_hash']);
    expect(Object.keys(plan.$defs.after!.properties!)).toEqual(['domain', ...FIELDS.map((f) => f.name), 'track_hash']);
  });

  it('a field added to the table is a setting an archive holds (apply checks the archive it wrote before a delete)', () => {
    type Archive = { properties: { website: { properties: { settings: { additionalProperties: boolean; properties: Record<string, unknown> } } } } };
    const settings = (text: string) => (JSON.parse(text) as Archive).properties.website.properties.settings;
    expect(settings(committed('archive.schema.json')).additionalProperties).toBe(false);
    const written = settings(schemaFileText('archive.schema.json', committed('archive.schema.json'), WITH_NEW)).properties;
    expect(Object.keys(written)).toEqual(['privacy', 'password_set', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips', 'favorite', 'track_hash']);
    expect(written.track_hash).toEqual({ enum: [0, 1] });
  });

  it('a field only a website may set (not defaults) is no key of defaults', () => {
    const schema = JSON.parse(schemaFileText('sitesync.schema.json', committed('sitesync.schema.json'))) as { $defs: Record<string, { properties: object }> };
    expect(Object.keys(schema.$defs.website!.properties)).toEqual(['domain', ...FIELDS.map((f) => f.name)]);
    expect(Object.keys(schema.$defs.defaults!.properties)).toEqual(FIELDS.filter((f) => f.inDefaults).map((f) => f.name));
    expect(Object.keys(schema.$defs.defaults!.properties)).not.toContain('favorite');
  });
});
