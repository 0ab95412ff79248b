/**
 * The repository a file belongs to: the git work tree that holds it (the nearest folder above it
 * with a `.git`), found without running git. What sitesync reads is kept inside it (included
 * files), and saved plans name the config file relative to it, so that a plan made in one job
 * of a workflow applies in another checkout of the same repository.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The git work tree holding `folder` (symbolic links resolved), or undefined outside git. */
export function gitWorkTree(folder: string): string | undefined {
  let dir: string;
  try {
    dir = realpathSync(folder);
  } catch {
    return undefined;
  }
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
