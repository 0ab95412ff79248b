// What the libraries sitesync must use cost by themselves, for `npm run bench` to show beside
// sitesync's own figures: a goal below one of these cannot be met by any program built on them.
//
//   node bench/floors.cjs undici   (SITESYNC_BASE_URL, SITESYNC_API_KEY, SITESYNC_FLOOR_CACHE)
//     the HTTP part of a plan and nothing else: undici (sitesync's bundle of it, dist/undici.cjs,
//     run from a V8 code cache as bin/sitesync.cjs runs it, with the same V8 flag) sends the
//     two requests a plan of a small account sends, side by side, and reads their JSON.
//   node bench/floors.cjs yaml FILE
//     the reading part of a validate and nothing else: the yaml package reads FILE (as
//     parseDocument with sitesync's options) and makes its JavaScript values. Loaded by plain
//     require, without a code cache: a few milliseconds above a true floor.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [what, file] = process.argv.slice(2);

if (what === 'yaml') {
  const { parseDocument } = require('yaml');
  const doc = parseDocument(fs.readFileSync(file, 'utf8'), { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length || !doc.toJS()) process.exit(1);
} else if (what === 'undici') {
  undici().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
} else {
  process.stderr.write('usage: node bench/floors.cjs undici | yaml FILE\n');
  process.exit(2);
}

async function undici() {
  require('node:v8').setFlagsFromString('--liftoff-only');
  const { Script } = require('node:vm');
  const script = path.join(__dirname, '..', 'dist', 'undici.cjs');
  const source = fs.readFileSync(script, 'utf8');
  // A file in the benchmark's own temporary folder.
  const cache = process.env.SITESYNC_FLOOR_CACHE;
  let cachedData;
  try {
    if (cache) cachedData = fs.readFileSync(cache);
  } catch {
    // The first run makes it.
  }
  const compiled = new Script(`(function (exports, require, module) {${source}\n})`, { filename: script, cachedData });
  const module = { exports: {} };
  compiled.runInThisContext()(module.exports, require, module);
  const { Pool } = module.exports;

  const pool = new Pool(process.env.SITESYNC_BASE_URL);
  const headers = { authorization: `Bearer ${process.env.SITESYNC_API_KEY}`, accept: 'application/json' };
  const get = async (p) => {
    const { statusCode, body } = await pool.request({ method: 'GET', path: p, headers });
    const json = await body.json();
    if (statusCode !== 200) throw new Error(`${p}: ${statusCode}`);
    return json;
  };
  await Promise.all([get('/api/v1/account'), get('/api/v1/websites?per_page=100&sort_by=id&sort=asc&page=1')]);
  await pool.close();
  if (cache && (cachedData === undefined || compiled.cachedDataRejected)) fs.writeFileSync(cache, compiled.createCachedData());
}
