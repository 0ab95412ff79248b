// Build step: compiles the JSON Schemas into standalone validator modules, so the CLI does not
// compile a schema at every start. The schemas stay the one source of truth: these files are
// generated from them on every build, with the options their users (src/config/shape.ts,
// src/apply/plan-schema.ts) compile them with when run from the sources.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const validators = [
  { schema: 'schemas/sitesync.schema.json', out: 'dist/src/config/schema-validator.js' },
  { schema: 'schemas/plan.schema.json', out: 'dist/src/apply/plan-schema-validator.js' },
];
for (const { schema: schemaFile, out: outFile } of validators) {
  const schema = JSON.parse(readFileSync(join(root, schemaFile), 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true } });
  const validate = ajv.compile(schema);
  const out = join(root, outFile);
  mkdirSync(dirname(out), { recursive: true });
  // The standalone code calls require() for ajv's runtime helpers; give the ES module one.
  const header = `// Generated from ${schemaFile} by scripts/build-validator.mjs. Do not edit.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
`;
  writeFileSync(out, header + standaloneCode.default(ajv, validate).replace(/^"use strict";/, ''));
}
