/**
 * The files an `include:` glob matches, for the loader and for fmt alike, and only inside the
 * repository holding the config: the file may be a stranger's (a pull request), and a glob of
 * `../*` or a symbolic link must not make sitesync read (or fmt write) anything outside it.
 */
import { realpathSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { glob as find } from 'tinyglobby';
import { gitWorkTree } from './repository.js';

export interface Included {
  /** Sorted absolute paths of the files the glob matches inside the repository. */
  inside: string[];
  /** Files it matches outside the repository (symbolic links resolved): never read. */
  outside: string[];
}

/** The repository a config file belongs to: its git work tree; outside git, its own folder. */
export function repositoryOf(file: string): string {
  const folder = dirname(file);
  return gitWorkTree(folder) ?? realpathSync(folder);
}

/** The files `glob` matches relative to `folder`, split by whether they lie inside `root`; a glob tinyglobby cannot read matches none. */
export async function includedFiles(glob: string, folder: string, root: string): Promise<Included> {
  let matches: string[];
  try {
    matches = (await find(glob, { cwd: folder, absolute: true, onlyFiles: true, expandDirectories: false })).map((match) => resolve(match)).sort();
  } catch {
    // e.g. an absolute glob naming the folder itself, which tinyglobby turns into an empty pattern.
    matches = [];
  }
  const out: Included = { inside: [], outside: [] };
  for (const match of matches) {
    let real: string;
    try {
      real = realpathSync(match);
    } catch {
      continue;
    }
    (real === root || real.startsWith(`${root}${sep}`) ? out.inside : out.outside).push(match);
  }
  return out;
}

/** What an include that reaches outside the repository says. */
export function outsideMessage(glob: string, outside: string[], root: string): string {
  const what = outside.length === 1 ? outside[0] : `${outside.length} files (${outside[0]}, …)`;
  return `include "${glob}" matches ${what} outside the repository (${root}): sitesync reads no file outside the repository that holds the config; move it inside`;
}
