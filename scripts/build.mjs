// The build: the CLI and the programmatic API bundled by esbuild into dist/ as ES modules, their
// dependencies inside, so an installed sitesync has nothing to fetch; plus the API's .d.ts files
// from tsc. No list of source files here: esbuild follows the imports from the entries.
//
//   node scripts/build.mjs             dist/: cli.js (which bin/sitesync.cjs runs), api.js, their
//                                      shared chunks, types/
//   node scripts/build.mjs --dev       also dist/dev/: the benchmarks and the demo (not packaged)
//   node scripts/build.mjs --no-types  without tsc (the GitHub Action builds only what it runs)
//   node scripts/build.mjs --schemas   only the schema files' fields, from the table (npm run schemas)
//
// As npm's `prepare` under `npx sitesync` in a clone already built, it does nothing (see below).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dist = join(root, 'dist');

/**
 * `prepare` as `npx sitesync` runs it: npm links the clone into its npx cache and runs the
 * package's `prepare` there, in this folder, which `npm ci` has just built: a second build of
 * half a minute (tsc the most of it) behind npm's spinner, before the first command of a clone.
 * Built already, there is nothing to do (before the build tools are even loaded); not built
 * (`npm ci --ignore-scripts`), it builds.
 */
if (process.env.npm_lifecycle_event === 'prepare' && process.env.npm_command === 'exec' && existsSync(join(dist, 'cli.js'))) process.exit(0);

const { build } = await import('esbuild');

/**
 * The fields' part of each schema file (schemas/*.schema.json), written from
 * src/model/fields.ts by src/model/field-schemas.ts (bundled here, run once); the rest of each
 * file is written by hand. The files stay committed: editors point at them. A build writes them
 * (a file only when it changes); the --dev build of `npm test` leaves them as committed, so that
 * test/schema/field-schemas.test.ts sees a file the table no longer matches.
 */
async function writeFieldSchemas() {
  const { outputFiles } = await build({ entryPoints: [join(root, 'src/model/field-schemas.ts')], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'warning' });
  const generator = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
  for (const name of Object.keys(generator.FIELD_SCHEMA_FILES)) {
    const file = join(root, 'schemas', name);
    const text = readFileSync(file, 'utf8');
    const next = generator.schemaFileText(name, text);
    if (next !== text) {
      writeFileSync(`${file}.${process.pid}.tmp`, next);
      renameSync(`${file}.${process.pid}.tmp`, file);
      console.log(`schemas/${name}: its fields written from src/model/fields.ts`);
    }
  }
}

if (!args.includes('--dev')) await writeFieldSchemas();
if (args.includes('--schemas')) process.exit(0);

const { Ajv2020 } = await import('ajv/dist/2020.js');
const { default: standaloneCode } = await import('ajv/dist/standalone/index.js');

/**
 * The schemas compiled into standalone validators (ajv's own feature): src/schema/validators.ts,
 * which compiles a schema with ajv on first use as tests run it, is replaced in the bundle by the
 * code ajv generates from the same schemas with the same options, one export per schema.
 */
const schemaValidators = {
  name: 'schema-validators',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]schema[\\/]validators\.ts$/ }, (a) => {
      const source = readFileSync(a.path, 'utf8');
      const files = JSON.parse(/SCHEMA_FILES = (\{[^}]*\})/.exec(source)[1].replace(/(\w+):/g, '"$1":').replaceAll("'", '"'));
      const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { source: true, esm: true } });
      const ids = {};
      for (const [name, file] of Object.entries(files)) {
        const schema = JSON.parse(readFileSync(join(root, 'schemas', file), 'utf8'));
        ajv.addSchema(schema);
        ids[name] = schema.$id;
      }
      // Each called validator's errors added in place, not by a copy of all so far (validators.ts says why).
      const concat = new RegExp(/ERRORS_CONCAT = \/(.*)\/g;/.exec(source)[1], 'g');
      const inPlace = /ERRORS_IN_PLACE = '(.*)';/.exec(source)[1];
      const code = standaloneCode.default(ajv, ids).replace(/^"use strict";/, '').replace(concat, inPlace);
      if (code.includes('vErrors.concat(')) throw new Error('src/schema/validators.ts: ERRORS_CONCAT no longer matches the code ajv generates');
      const names = Object.keys(files);
      const contents = `${code}\nexport const SCHEMA_FILES = ${JSON.stringify(files)};\nconst VALIDATORS = { ${names.join(', ')} };\nexport function schemaValidator(name) { return VALIDATORS[name]; }\n`;
      return { contents, loader: 'js', resolveDir: dirname(a.path) };
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

/**
 * Writes a build's files into `outdir` without ever emptying it: a test suite may be running the
 * files there (dist/cli.js, dist/dev/demo.js). Each file is written beside and renamed into place
 * (a reader sees the old file or the new one, never half of one), the chunks before the entries
 * that import them; then the chunks no entry imports any more are removed. Nothing imports
 * dynamically, so a process that started has every module it needs already loaded.
 */
async function buildInto(entryPoints, outdir) {
  const { outputFiles } = await build({ ...options, entryPoints, outdir, write: false });
  mkdirSync(outdir, { recursive: true });
  const entries = new Set(Object.keys(entryPoints).map((name) => join(outdir, `${name}.js`)));
  const ordered = [...outputFiles.filter((f) => !entries.has(f.path)), ...outputFiles.filter((f) => entries.has(f.path))];
  for (const file of ordered) {
    const next = `${file.path}.${process.pid}.tmp`;
    writeFileSync(next, file.contents);
    renameSync(next, file.path);
  }
  const written = new Set(outputFiles.map((f) => f.path));
  for (const name of readdirSync(outdir)) {
    if (/^chunk-[A-Z0-9]+\.js$/.test(name) && !written.has(join(outdir, name))) rmSync(join(outdir, name), { force: true });
  }
}

await buildInto({ cli: 'src/cli.ts', api: 'src/api.ts' }, dist);

if (args.includes('--dev')) {
  await buildInto({ bench: 'bench/run.ts', demo: 'src/demo/run.ts' }, join(dist, 'dev'));
}

if (!args.includes('--no-types')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json')], { stdio: 'inherit' });
}
