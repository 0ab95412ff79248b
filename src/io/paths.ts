/**
 * Where sitesync's own files are, whether it runs from `src/` (tests) or bundled in `dist/`; and
 * how a user's file is named to them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'sitesync') {
      return (root = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('sitesync: cannot find its own package.json');
    dir = parent;
  }
}

export function schemaPath(): string {
  return join(packageRoot(), 'schemas', 'sitesync.schema.json');
}

export function planSchemaPath(): string {
  return join(packageRoot(), 'schemas', 'plan.schema.json');
}

export function archiveSchemaPath(): string {
  return join(packageRoot(), 'schemas', 'archive.schema.json');
}

/** `path` as the user knows it: relative to the working folder `cwd` when inside it, else whole. */
export function shownPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}

export function packageVersion(): string {
  return JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version as string;
}

/**
 * The schema of this sitesync, relative to the folder of the exported file, as the
 * yaml-language-server comment wants it. Installed in the config repository, that is
 * `./node_modules/sitesync/schemas/sitesync.schema.json`, the same for every clone.
 */
export function schemaReference(folder: string): string {
  const path = relative(folder, schemaPath()).split(sep).join('/');
  return path.startsWith('.') || isAbsolute(path) ? path : `./${path}`;
}
