// The package.json that `npm pack` puts in the tarball: without `scripts`. They build sitesync in
// a clone (`prepare` runs on `npm ci`), but the tarball holds the build and not scripts/, and npm
// warns about a package with an install script ("prepare") whatever it does. npm's own
// lifecycle runs this around the pack (package.json `prepack` and `postpack`):
//
//   node scripts/pack-manifest.mjs strip     package.json without scripts; the original kept aside
//   node scripts/pack-manifest.mjs restore   the original back (the tarball is written by then)
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const kept = join(root, '.package.json.packing');
const step = process.argv[2];

if (step === 'strip') {
  if (existsSync(kept)) {
    console.error(`${kept} is there: an earlier npm pack stopped before it put package.json back. Check it, move it to package.json, then pack again.`);
    process.exit(1);
  }
  const text = readFileSync(manifest, 'utf8');
  const { scripts: _scripts, ...packed } = JSON.parse(text);
  writeFileSync(kept, text);
  writeFileSync(manifest, `${JSON.stringify(packed, null, 2)}\n`);
} else if (step === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
