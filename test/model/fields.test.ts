/** The one table of website fields, held against the saved-plan schema and the wire format. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELD_NAMES, FIELDS } from '../../src/model/fields.js';
import type { Settings, WebsiteView } from '../../src/model/types.js';
import { planSchemaPath } from '../../src/io/paths.js';
import { toForm, toLiveWebsite } from '../../src/service/wire.js';

describe('the table of website fields', () => {
  it('names the same fields, in the same order, as the saved-plan schema', () => {
    const schema = JSON.parse(readFileSync(planSchemaPath(), 'utf8')) as { $defs: { field: { enum: string[] }; after: { properties: object } } };
    expect(FIELD_NAMES).toEqual(schema.$defs.field.enum);
    expect(['domain', ...FIELD_NAMES]).toEqual(Object.keys(schema.$defs.after.properties));
  });

  it('a value sent in the form is read back the same from the record the service returns', () => {
    const view: WebsiteView = { domain: 'x.example.com', privacy: 2, email: 1, exclude_bots: 0, exclude_params: ['a', 'b'], exclude_ips: ['10.0.0.1'], favorite: true };
    const readable = FIELDS.filter((f) => !f.writeOnly).map((f) => f.name);
    const form = toForm(view, readable);
    const live = toLiveWebsite({ id: 1, domain: 'x.example.com', ...form });
    for (const name of readable) expect(live[name], name).toEqual(view[name]);
  });

  it('an exported setting reads back from the file as the value the service holds', () => {
    const live: Settings = { privacy: 1, email: 1, exclude_bots: 0, exclude_params: ['a', 'b'], exclude_ips: ['10.0.0.1'], favorite: true };
    for (const field of FIELDS.filter((f) => f.toFile)) {
      const value = live[field.name as keyof Settings];
      expect(field.fromFile?.(field.toFile?.(value)), field.name).toEqual(value);
    }
  });

  it('the service defaults are what a record of nulls reads as, but a null exclude_bots is off (the product acts on it by PHP truth)', () => {
    const record = Object.fromEntries(FIELDS.map((f) => [f.name, null]));
    const live = toLiveWebsite({ id: 1, domain: 'x.example.com', ...record });
    for (const field of FIELDS) {
      const expected = field.name === 'exclude_bots' ? 0 : field.serviceDefault;
      if (field.serviceDefault !== undefined) expect(live[field.name], field.name).toEqual(expected);
    }
  });
});
