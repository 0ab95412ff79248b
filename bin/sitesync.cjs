#!/usr/bin/env node
// The published entry point: plain JavaScript (CommonJS, which Node starts quicker than an
// ES module) that runs the bundled CLI: dist/*.cjs, built by `npm run build`, which `npm ci`
// and `npm pack` run through `prepare`.
//
// CI steps start sitesync several times, so a start should cost little more than Node's own:
// - `--version` is answered here, without loading the CLI;
// - the CLI's scripts (dist/cli.cjs, and dist/undici.cjs and dist/yargs.cjs when it first
//   requires them) run through node:vm with V8's code cache: the first run of each command
//   keeps the compiled code in cache files, and later runs load it instead of parsing and
//   compiling the scripts again (Node 20 offers no such cache for ES modules or require()).
//   V8 checks each cache against its script; the file name holds Node's version, the
//   script's content hash (written by the build), size and time, and the command. A cache
//   that is missing, stale or unreadable only means the script is compiled as usual. The
//   caches live in $NODE_COMPILE_CACHE/sitesync when that is set, else in the system's
//   temporary directory, in a directory only this user can write; NODE_DISABLE_COMPILE_CACHE=1
//   turns them off.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** The commands that talk to a service through undici. */
const ONLINE = new Set(['plan', 'apply', 'export', 'import', 'account', 'ci']);
/** What argv a worker thread of sitesync's gets (src/config/config-worker.ts). */
const PARSE_WORKER_ARG = '--sitesync-parse-worker';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
} else {
  main();
}

async function main() {
  // The worker thread plan parses a large config file on (see src/config/load.ts and answerParse).
  const worker = args.length === 1 && args[0] === PARSE_WORKER_ARG && !require('node:worker_threads').isMainThread;
  const command = worker ? 'worker' : /^[a-z]{1,20}$/.test(args[0] ?? '') ? args[0] : 'other';
  // V8's flags for the online commands, set first, before any script is compiled: V8 refuses a
  // code cache made under other flags, and each command has caches of its own. (A worker
  // shares the process's flags.) The offline commands set none: loading node:v8 costs a small
  // file's validate some 2 ms. undici parses HTTP with llhttp, compiled to WebAssembly when
  // the first connection opens. V8's optimising compiler, which it would also get, held every
  // online command up by some 100 ms; its baseline compiler is quick and fast enough for
  // sitesync's few requests. (--semi-space-growth-factor=1 was tried: starting a worker thread
  // resets it, which changed V8's flag hash mid-run and made the next start refuse its caches.)
  if (!worker && ONLINE.has(command)) require('node:v8').setFlagsFromString('--liftoff-only');
  const { tmpdir } = require('node:os');
  const { Script } = require('node:vm');
  const dist = path.join(__dirname, '..', 'dist');
  // The libraries the CLI requires that are scripts of their own (see scripts/build.mjs).
  const LIBRARIES = new Set(['undici', 'yargs']);
  const cacheDir = compileCacheDir();
  const scripts = [];

  /** Runs a CommonJS script of dist/ and gives its exports; `require` of a library runs that one. */
  const run = (name) => {
    const file = path.join(dist, `${name}.cjs`);
    let source;
    let stats;
    try {
      source = fs.readFileSync(file, 'utf8');
      stats = fs.statSync(file);
    } catch (error) {
      if (error?.code !== 'ENOENT') throw error;
      process.stderr.write('sitesync is not built: in a clone of its repository, run `npm ci` (it builds through `prepare`) or `npm run build`.\n');
      process.exit(1);
    }
    const cache = cacheDir && path.join(cacheDir, `${buildOf(name, source.slice(-48), stats)}${command}.bin`);
    let cachedData;
    try {
      if (cache) cachedData = fs.readFileSync(cache);
    } catch {
      // None yet: this run makes it.
    }
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
    scripts.push({ script, cache, cached: cachedData !== undefined && !script.cachedDataRejected });
    // The scripts require Node's modules and the libraries above, nothing of their own.
    const libraries = new Map();
    const scriptRequire = (id) => {
      if (!LIBRARIES.has(id)) return require(id);
      if (!libraries.has(id)) libraries.set(id, run(id));
      return libraries.get(id);
    };
    const module = { exports: {} };
    script.runInThisContext()(module.exports, Object.assign(scriptRequire, { resolve: require.resolve }), module, file, path.dirname(file));
    return module.exports;
  };

  /** After the run: the code compiled for this command, kept for the next start of it. */
  const keepCompiledCode = (cli) => {
    // A mistyped command is started rarely, and each word would leave caches of its own. (A
    // dist/ built before isCommandWord existed, as after a git pull without a build, keeps all.)
    if (command !== 'worker' && command !== 'other' && cli.isCommandWord?.(command) === false) return;
    let wrote = false;
    for (const { script, cache, cached } of scripts) {
      if (!cache || cached) continue;
      try {
        const temporary = `${cache}.${process.pid}`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cache);
        wrote = true;
      } catch {
        // A cache that cannot be written only costs the next start its speed.
      }
    }
    if (wrote) removeStaleCaches();
  };

  /**
   * The caches of other builds not made for a week: another version may be in use on this
   * machine (one per config repository), so only the ones nothing has needed lately go; so do
   * half-written files (a run that died between writing and renaming). This build's caches stay,
   * of every script and command however old: they are not touched when used.
   */
  function removeStaleCaches() {
    const current = [];
    try {
      for (const name of ['cli', ...LIBRARIES]) {
        const file = path.join(dist, `${name}.cjs`);
        const stats = fs.statSync(file, { throwIfNoEntry: false });
        if (!stats) continue;
        const tail = Buffer.alloc(Math.min(48, stats.size));
        const fd = fs.openSync(file, 'r');
        try {
          fs.readSync(fd, tail, 0, tail.length, stats.size - tail.length);
        } finally {
          fs.closeSync(fd);
        }
        current.push(buildOf(name, tail.toString('latin1'), stats));
      }
    } catch {
      return; // Without knowing this build, nothing is removed.
    }
    const stale = Date.now() - 7 * 24 * 3600 * 1000;
    /** Removes each entry of `dir` that `keep` does not keep and nothing has made for a week; one that fails is skipped. */
    const sweep = (dir, keep) => {
      let names = [];
      try {
        names = fs.readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names) {
        if (keep(name)) continue;
        try {
          const file = path.join(dir, name);
          const stats = fs.lstatSync(file);
          if (stats.isFile() && stats.mtimeMs < stale) fs.unlinkSync(file);
        } catch {
          // Left for a later run.
        }
      }
    };
    sweep(cacheDir, (name) => name.endsWith('.bin') && current.some((build) => name.startsWith(build)));
    // Other Node versions' folders beside this one (each upgrade leaves one): emptied once stale, then removed.
    const base = path.dirname(cacheDir);
    let versions = [];
    try {
      versions = fs.readdirSync(base, { withFileTypes: true }).filter((d) => d.isDirectory() && /^v\d+\.\d+\.\d+-\w+$/.test(d.name) && d.name !== path.basename(cacheDir));
    } catch {
      return;
    }
    for (const version of versions) {
      const dir = path.join(base, version.name);
      sweep(dir, () => false);
      try {
        fs.rmdirSync(dir);
      } catch {
        // Not empty yet: some of its caches were made within the week.
      }
    }
  }

  /**
   * How a script's cache files begin: its name, its content (the hash the build writes as the
   * last line: npm packs every file with the same time, so size and time can repeat across
   * versions) and the file's size and time (a script edited by hand keeps the line).
   */
  function buildOf(name, tail, stats) {
    const id = /\n\/\/ sitesync-build ([0-9a-f]{16})\n$/.exec(tail)?.[1] ?? 'unknown';
    return `${name}-${id}.${stats.size}.${Math.trunc(stats.mtimeMs)}-`;
  }

  /** Where the caches are kept, or undefined when they should not be. */
  function compileCacheDir() {
    const env = process.env;
    if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
    const uid = process.getuid?.();
    const base = env.NODE_COMPILE_CACHE ? path.join(path.resolve(env.NODE_COMPILE_CACHE), 'sitesync') : path.join(tmpdir(), `sitesync-compile-cache${uid === undefined ? '' : `-${uid}`}`);
    const dir = path.join(base, `${process.version}-${process.arch}`);
    // Code is run from here: never from a directory another user owns or may write to.
    const ours = (d) => {
      const s = fs.statSync(d, { throwIfNoEntry: false });
      return s !== undefined && (uid === undefined || (s.uid === uid && (s.mode & 0o022) === 0));
    };
    try {
      if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return ours(base) && ours(dir) ? dir : undefined;
    } catch {
      return undefined;
    }
  }

  const cli = run('cli');
  if (worker) {
    const { parentPort } = require('node:worker_threads');
    parentPort.once('message', async (request) => {
      const reply = await cli.answerParse(request);
      // Before replying: the main thread ends the worker once it has the answer.
      keepCompiledCode(cli);
      parentPort.postMessage(reply);
    });
    return;
  }
  process.exitCode = await cli.main(args);
  keepCompiledCode(cli);
}
