// The build: the CLI and the programmatic API bundled by esbuild into dist/ as ES modules, their
// dependencies inside, so an installed sitesync has nothing to fetch; plus the API's .d.ts files
// from tsc. No list of source files here: esbuild follows the imports from the entries.
//
//   node scripts/build.mjs             dist/: cli.js (which bin/sitesync.cjs runs), api.js, their
//                                      shared chunks, types/
//   node scripts/build.mjs --dev       also dist/dev/: the benchmarks and the demo (not packaged)
//   node scripts/build.mjs --no-types  without tsc (the GitHub Action builds only what it runs)
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dist = join(root, 'dist');

/**
 * The schemas compiled into standalone validators (ajv's own feature): each validator module of
 * the sources, which compiles its schema with ajv on first use as tests run them, is replaced in
 * the bundle by the code ajv generates from the same schema with the same options.
 */
const VALIDATORS = {
  'src/config/schema-validator.ts': { schema: 'schemas/sitesync.schema.json', exported: 'configValidator' },
  'src/saved-plan/schema-validator.ts': { schema: 'schemas/plan.schema.json', exported: 'planValidator' },
  'src/archive/schema-validator.ts': { schema: 'schemas/archive.schema.json', exported: 'archiveValidator' },
};

function validatorSource({ schema: file, exported }) {
  const schema = JSON.parse(readFileSync(join(root, file), 'utf8'));
  // The options of src/schema-compile.ts, which the sources (tests) compile with.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true } });
  const code = standaloneCode.default(ajv, ajv.compile(schema)).replace(/^"use strict";/, '');
  return `${code}\nexport function ${exported}() { return validate; }\n`;
}

const schemaValidators = {
  name: 'schema-validators',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/](config|saved-plan|archive)[\\/]schema-validator\.ts$/ }, (a) => {
      const key = relative(root, a.path).split(sep).join('/');
      return { contents: validatorSource(VALIDATORS[key]), loader: 'js', resolveDir: dirname(a.path) };
    });
  },
};

/**
 * The CI recipes of examples/ inlined as text (src/ci/recipe-texts.ts reads them from the
 * checkout when tests run the sources): the package ships no examples/, and `init --ci` writes them.
 */
const recipeTexts = {
  name: 'recipe-texts',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]ci[\\/]recipe-texts\.ts$/ }, (a) => {
      const source = readFileSync(a.path, 'utf8');
      const names = JSON.parse(/RECIPE_NAMES = (\[[^\]]*\])/.exec(source)[1].replaceAll("'", '"'));
      const texts = Object.fromEntries(names.map((name) => [name, readFileSync(join(root, 'examples', name), 'utf8')]));
      const contents = `export const RECIPE_NAMES = ${JSON.stringify(names)};\nconst TEXTS = ${JSON.stringify(texts)};\nexport function recipeText(name) { return TEXTS[name]; }\n`;
      return { contents, loader: 'js', resolveDir: dirname(a.path) };
    });
  },
};

/**
 * yargs looks for its program's package.json (for a version it is then told anyway) from the
 * folder its shim names: node_modules' parent, or — bundled, with no node_modules in the path —
 * the working directory. There, in CI, are a pull request's files: a package.json it commits as a
 * link to /dev/zero was read without end (17 GB, then a crash). Bundled, yargs is given sitesync's
 * own folder (dist/..) instead; the build stops if yargs' entry is not the one this replaces.
 */
const yargsHome = {
  name: 'yargs-home',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]yargs[\\/]index\.mjs$/ }, (a) => {
      const original = readFileSync(a.path, 'utf8');
      if (!original.includes('YargsFactory(esmPlatformShim)')) throw new Error(`${a.path}: not the yargs entry scripts/build.mjs knows; check what yargs reads from the working directory`);
      const contents = `import { fileURLToPath as sitesyncPath } from 'node:url';\n${original.replace(
        'YargsFactory(esmPlatformShim)',
        "YargsFactory({ ...esmPlatformShim, mainFilename: sitesyncPath(new URL('..', import.meta.url)) })",
      )}`;
      return { contents, loader: 'js', resolveDir: dirname(a.path) };
    });
  },
};

/** ES modules, readable (not minified): bundled CommonJS dependencies (undici, yargs' helpers, ajv's runtime) call require(); give them one. */
const options = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  splitting: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
  plugins: [schemaValidators, recipeTexts, yargsHome],
  banner: { js: "import { createRequire as __sitesyncCreateRequire } from 'node:module'; const require = __sitesyncCreateRequire(import.meta.url);" },
};

rmSync(dist, { recursive: true, force: true });
await build({ ...options, entryPoints: { cli: 'src/cli.ts', api: 'src/api.ts' }, outdir: dist });

if (args.includes('--dev')) {
  await build({ ...options, entryPoints: { bench: 'bench/run.ts', demo: 'src/demo/run.ts' }, outdir: join(dist, 'dev') });
}

if (!args.includes('--no-types')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json')], { stdio: 'inherit' });
}
