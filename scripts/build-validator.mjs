// Build step: compiles schemas/sitesync.schema.json into a standalone validator module, so the
// CLI does not compile the schema at every start. The schema stays the one source of truth:
// this file is generated from it on every build, with the options src/config/shape.ts uses.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schema = JSON.parse(readFileSync(join(root, 'schemas/sitesync.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true } });
const validate = ajv.compile(schema);
const out = join(root, 'dist/src/config/schema-validator.js');
mkdirSync(dirname(out), { recursive: true });
// The standalone code calls require() for ajv's runtime helpers; give the ES module one.
const header = `// Generated from schemas/sitesync.schema.json by scripts/build-validator.mjs. Do not edit.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
`;
writeFileSync(out, header + standaloneCode.default(ajv, validate).replace(/^"use strict";/, ''));
