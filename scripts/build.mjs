// The build: the CLI and the programmatic API bundled by esbuild into dist/, their dependencies
// inside, so an installed sitesync has nothing to fetch and starts fast; plus the API's .d.ts
// files from tsc. Commands stay lazily loaded: each dynamic import() becomes a chunk of its own
// (ESM code splitting). No list of source files here: esbuild follows the imports from the
// entry points.
//
//   node scripts/build.mjs             dist/: cli.js, api.js, the schema validators, chunks, types/
//   node scripts/build.mjs --dev       also dist/dev/: the benchmarks and the demo (not packaged)
//   node scripts/build.mjs --no-types  without tsc (the GitHub Action builds only what it runs)
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dist = join(root, 'dist');

/**
 * The schemas compiled into standalone validators, so the CLI does not compile a schema at
 * every start: src/config/shape.ts imports `./schema-validator.js` and src/apply/plan-schema.ts
 * `./plan-schema-validator.js`, beside their own chunk, and each compiles its schema itself
 * when that is missing, as in tests run from the sources. Generated from the schemas on every
 * build with the options those modules use; ajv's few runtime helpers are bundled into them.
 */
const VALIDATORS = {
  'schema-validator': 'schemas/sitesync.schema.json',
  'plan-schema-validator': 'schemas/plan.schema.json',
};

function validatorSource(schemaFile) {
  const schema = JSON.parse(readFileSync(join(root, schemaFile), 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true } });
  return standaloneCode.default(ajv, ajv.compile(schema)).replace(/^"use strict";/, '');
}

const schemaValidators = {
  name: 'schema-validators',
  setup(b) {
    b.onResolve({ filter: /^sitesync:/ }, (a) => ({ path: a.path.slice('sitesync:'.length), namespace: 'generated' }));
    b.onLoad({ filter: /.*/, namespace: 'generated' }, (a) => ({ contents: validatorSource(VALIDATORS[a.path]), loader: 'js', resolveDir: root }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  splitting: true,
  legalComments: 'none',
  minify: process.env.MINIFY === '1',
  logLevel: 'warning',
  absWorkingDir: root,
  // Bundled CommonJS dependencies (yargs' helpers, ajv's runtime) call require(); give the
  // ES modules one.
  banner: { js: "import { createRequire as __sitesyncCreateRequire } from 'node:module'; const require = __sitesyncCreateRequire(import.meta.url);" },
};

rmSync(dist, { recursive: true, force: true });
await build({
  ...common,
  // Chunks beside the entries: shape.ts's `./schema-validator.js` is then found from any of them.
  entryPoints: {
    cli: 'src/cli.ts',
    api: 'src/api.ts',
    // Large config files are parsed on a worker thread (src/config/load.ts finds it beside itself).
    'config-worker': 'src/config/config-worker.ts',
    ...Object.fromEntries(Object.keys(VALIDATORS).map((name) => [name, `sitesync:${name}`])),
  },
  outdir: dist,
  plugins: [schemaValidators],
});

if (args.includes('--dev')) {
  await build({
    ...common,
    entryPoints: { bench: 'bench/run.ts', 'measure-cli': 'bench/measure-cli.ts', demo: 'src/demo/run.ts' },
    outdir: join(dist, 'dev'),
  });
}

if (!args.includes('--no-types')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json')], { stdio: 'inherit' });
}
