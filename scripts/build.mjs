// The build: the CLI and the programmatic API bundled by esbuild into dist/, their dependencies
// inside, so an installed sitesync has nothing to fetch and starts fast; plus the API's .d.ts
// files from tsc. Commands stay lazily loaded: each dynamic import() becomes a chunk of its own
// (ESM code splitting). No list of source files here: esbuild follows the imports from the
// entry points.
//
//   node scripts/build.mjs             dist/: cli.js, api.js, schema-validator.js, chunks, types/
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
 * The schema compiled into a standalone validator, so the CLI does not compile the schema at
 * every start (src/config/shape.ts imports `./schema-validator.js` beside its own chunk, and
 * compiles the schema itself when that is missing, as in tests run from the sources). Generated
 * from schemas/sitesync.schema.json on every build with the options shape.ts uses; ajv's few
 * runtime helpers are bundled into it.
 */
function validatorSource() {
  const schema = JSON.parse(readFileSync(join(root, 'schemas/sitesync.schema.json'), 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true } });
  return standaloneCode.default(ajv, ajv.compile(schema)).replace(/^"use strict";/, '');
}

const schemaValidator = {
  name: 'schema-validator',
  setup(b) {
    b.onResolve({ filter: /^sitesync:schema-validator$/ }, () => ({ path: 'schema-validator', namespace: 'generated' }));
    b.onLoad({ filter: /.*/, namespace: 'generated' }, () => ({ contents: validatorSource(), loader: 'js', resolveDir: root }));
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
  entryPoints: { cli: 'src/cli.ts', api: 'src/api.ts', 'schema-validator': 'sitesync:schema-validator' },
  outdir: dist,
  plugins: [schemaValidator],
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
