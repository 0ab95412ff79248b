// The build: the CLI and the programmatic API bundled by esbuild into dist/, their dependencies
// inside, so an installed sitesync has nothing to fetch and starts fast; plus the API's .d.ts
// files from tsc. No list of source files here: esbuild follows the imports from the entries.
//
//   node scripts/build.mjs             dist/: cli.cjs, undici.cjs, yargs.cjs (the CLI, which
//                                      bin/sitesync.cjs runs), api.js (an ES module, with its
//                                      chunks), types/
//   node scripts/build.mjs --dev       also dist/dev/: the benchmarks and the demo (not packaged)
//   node scripts/build.mjs --no-types  without tsc (the GitHub Action builds only what it runs)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * The schemas compiled into standalone validators, so that no run compiles a schema: each
 * validator module of the sources (which compiles its schema with ajv on first use, as tests
 * run them) is replaced in every bundle by the code ajv generates from the same schema, with
 * the options those modules use. ajv's few runtime helpers are bundled with them.
 */
const VALIDATORS = {
  'src/config/schema-validator.ts': { schema: 'schemas/sitesync.schema.json', exported: 'configValidator' },
  'src/apply/plan-schema-validator.ts': { schema: 'schemas/plan.schema.json', exported: 'planValidator' },
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
    b.onLoad({ filter: /[\\/]src[\\/](config[\\/]schema-validator|apply[\\/]plan-schema-validator)\.ts$/ }, (a) => {
      const key = relative(root, a.path).split(sep).join('/');
      return { contents: validatorSource(VALIDATORS[key]), loader: 'js', resolveDir: dirname(a.path) };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  // No comments or layout to read at each start; names are kept, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  absWorkingDir: root,
  plugins: [schemaValidators],
};

/** ES modules: bundled CommonJS dependencies (yargs' helpers, ajv's runtime) call require(); give them one. */
const esm = {
  ...common,
  format: 'esm',
  splitting: true,
  banner: { js: "import { createRequire as __sitesyncCreateRequire } from 'node:module'; const require = __sitesyncCreateRequire(import.meta.url);" },
};

rmSync(dist, { recursive: true, force: true });

/**
 * The CLI, as CommonJS scripts that bin/sitesync.cjs runs through node:vm with V8's code cache
 * (Node 20 offers one for scripts, not for ES modules): a start then reads compiled code
 * instead of parsing and compiling the bundle again. dist/cli.cjs holds sitesync and every
 * command, each evaluated only when it runs (esbuild turns each `import()` of a command into a
 * lazy initialiser). The two large libraries that only some runs need are scripts of their own,
 * which bin/sitesync.cjs loads (and caches) when the CLI first requires them: undici (`plan`,
 * `apply` and the other commands that talk to the service) and yargs (help, completion and
 * command-line mistakes). Of undici, only the parts sitesync uses, by their own module paths:
 * its index would load all of it (fetch, WebSocket, caches, mocks: 1 MB). A test
 * (test/e2e/startup.test.ts) checks that the sources use no other part.
 */
const CLI_LIBRARIES = {
  undici: `
    const Dispatcher = require('undici/lib/dispatcher/dispatcher.js');
    // What undici's index does for every dispatcher, for the one method the client calls.
    Dispatcher.prototype.request ??= require('undici/lib/api/api-request.js');
    module.exports = {
      Pool: require('undici/lib/dispatcher/pool.js'),
      Agent: require('undici/lib/dispatcher/agent.js'),
      errors: require('undici/lib/core/errors.js'),
    };`,
  // As sitesync's bundle imports it: the function itself (esbuild reads a CommonJS default as Node does).
  yargs: `module.exports = require('yargs').default;`,
};

/**
 * Modules of a library evaluated only when first called instead of when the library loads:
 * each exports one function, and the bundle gets a function in its place that requires the
 * real one on its first call. undici's HTTP/2 client requires node:http2 (with it tls and
 * crypto: about 9 ms of every online start) at load, though it runs only for a connection that
 * negotiates HTTP/2, which sitesync never allows.
 */
const LAZY_MODULES = ['undici/lib/dispatcher/client-h2.js'];
const lazyModules = {
  name: 'lazy-modules',
  setup(b) {
    const requireHere = createRequire(join(root, 'package.json'));
    const lazy = new Set(LAZY_MODULES.map((id) => {
      // The wrapper below is only right for a module whose export is a function: checked at each build.
      if (typeof requireHere(id) !== 'function') throw new Error(`${id} no longer exports a function: it cannot be loaded lazily`);
      return requireHere.resolve(id);
    }));
    b.onResolve({ filter: /./ }, (a) => {
      if (a.namespace === 'lazy-module' || a.kind !== 'require-call' || !a.resolveDir) return undefined;
      let path;
      try {
        path = createRequire(join(a.resolveDir, 'x.js')).resolve(a.path);
      } catch {
        return undefined;
      }
      // Named by its path in the project, so that the bundle holds no path of the machine that built it.
      return lazy.has(path) ? { path: relative(root, path).split(sep).join('/'), namespace: 'lazy-module', pluginData: path } : undefined;
    });
    b.onLoad({ filter: /./, namespace: 'lazy-module' }, (a) => ({
      contents: `let real;\nmodule.exports = function () { real ??= require(${JSON.stringify(a.pluginData)}); return real.apply(this, arguments); };\n`,
      loader: 'js',
      resolveDir: dirname(a.pluginData),
    }));
  },
};

const cjs = {
  ...common,
  format: 'cjs',
  // Where ES modules ask for their own URL (sitesync: to find package.json and the worker; yargs:
  // to require()), worked out when first asked.
  define: { 'import.meta.url': '__sitesync_meta.url' },
  banner: { js: "const __sitesync_meta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
};
await build({ ...cjs, entryPoints: ['src/cli.ts'], outfile: join(dist, 'cli.cjs'), external: Object.keys(CLI_LIBRARIES) });
for (const [name, contents] of Object.entries(CLI_LIBRARIES)) {
  await build({
    ...cjs,
    plugins: [...cjs.plugins, lazyModules],
    stdin: { contents, resolveDir: root, sourcefile: `${name}.js`, loader: 'js' },
    outfile: join(dist, `${name}.cjs`),
  });
}
for (const name of ['cli', ...Object.keys(CLI_LIBRARIES)]) {
  const file = join(dist, `${name}.cjs`);
  const code = readFileSync(file, 'utf8');
  // node:vm runs these scripts without a loader for import(): they must hold none (a Node
  // module loaded late is taken with process.getBuiltinModule, as src/config/load.ts does).
  const found = /(?<![\w$.])import\(\s*["'`]/.exec(code);
  if (found) throw new Error(`dist/${name}.cjs holds an import() that node:vm cannot run: ${code.slice(found.index, found.index + 80)}`);
  // What bin/sitesync.cjs names the script's code caches after: its content, since a size and
  // a time can repeat across versions (npm packs every file with the same time).
  writeFileSync(file, `${code}\n// sitesync-build ${createHash('sha256').update(code).digest('hex').slice(0, 16)}\n`);
}

await build({
  ...esm,
  entryPoints: { api: 'src/api.ts' },
  outdir: dist,
});

if (args.includes('--dev')) {
  await build({
    ...esm,
    entryPoints: { bench: 'bench/run.ts', demo: 'src/demo/run.ts' },
    outdir: join(dist, 'dev'),
  });
}

if (!args.includes('--no-types')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json')], { stdio: 'inherit' });
}
