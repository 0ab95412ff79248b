/**
 * The e2e tests run the bundled CLI, the same files users get (bin/sitesync.cjs → dist/cli.js):
 * rebuild it first when the sources are newer than the build.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (/\.(ts|json|mjs|ya?ml)$/.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  let built = 0;
  try {
    built = Math.min(...['dist/cli.js', 'dist/types/api.d.ts', 'dist/dev/demo.js'].map((f) => statSync(join(root, f)).mtimeMs));
  } catch {
    built = 0;
  }
  const sources = Math.max(...['src', 'schemas', 'scripts', 'examples'].map((d) => newest(join(root, d))), statSync(join(root, 'package.json')).mtimeMs);
  if (built < sources) execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--dev'], { stdio: 'inherit' });
}
