/** The e2e tests run the built CLI: rebuild it first when the sources are newer than the build. */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (/\.(ts|json|mjs)$/.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  let built = 0;
  try {
    built = statSync(join(root, 'dist/src/cli.js')).mtimeMs;
  } catch {
    built = 0;
  }
  if (built < Math.max(...['src', 'bench', 'schemas', 'scripts'].map((d) => newest(join(root, d))))) {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
      stdio: 'inherit',
    });
    execFileSync(process.execPath, [join(root, 'scripts/build-validator.mjs')], { stdio: 'inherit' });
  }
}
