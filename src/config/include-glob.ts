/**
 * The files an `include:` glob matches, for the loader and for fmt alike, and only inside the
 * repository holding the config: the file may be a stranger's (a pull request), and a glob of
 * `../*`, an absolute path or a symbolic link must not make sitesync read (or fmt write), list
 * or walk anything outside it — nor its `.git` folder, where a checkout keeps its credentials.
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { glob as find, type FileSystemAdapter } from 'tinyglobby';
import { gitWorkTree } from './repository.js';

/**
 * The files a glob is matched against: the disk (the work tree), or the tree of a git revision
 * (git-revision.ts), walked by the same glob engine with the same rules.
 */
export interface FileTree {
  /** The path with symbolic links resolved; throws when nothing is there. */
  realpath(path: string): string;
  /** What the glob walks; node:fs when undefined. */
  fs?: FileSystemAdapter;
}

const DISK: FileTree = { realpath: (path) => realpathSync(path) };

export interface Included {
  /** Sorted absolute paths of the files the glob matches inside the repository. */
  inside: string[];
  /** Why the glob reaches outside the repository (nothing of what it reaches is read or named); undefined when it does not. */
  outside?: string;
}

/** The repository a config file belongs to: its git work tree; outside git, its own folder. */
export function repositoryOf(file: string): string {
  const folder = dirname(file);
  return gitWorkTree(folder) ?? realpathSync(folder);
}

/** Why `path` (symbolic links followed) is not a file sitesync may read in `root`; undefined when it is. */
export function outsideOf(path: string, root: string, tree: FileTree = DISK): string | undefined {
  let real: string;
  try {
    real = tree.realpath(path);
  } catch {
    return undefined; // missing: said where it is read
  }
  const inside = relative(root, real);
  if (inside === '' || climbsOut(inside)) return 'it lies outside the repository';
  if (inGitFolder(inside)) return "it lies in the repository's .git folder";
  return undefined;
}

/**
 * Why a config file named on the command line is not read: a symbolic link (a checkout makes the
 * ones a pull request commits) to a file outside its repository, whose text the messages (or a
 * diff) would show, and which an edit would write. Undefined for any other file.
 */
export function linkedOutside(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const outside = outsideOf(file, repositoryOf(file));
  return outside && `this is a symbolic link, and the file it names ${outside.replace('it lies', 'lies')}: sitesync reads no config there`;
}

/** The files `glob` matches relative to `folder`, inside `root`; a glob tinyglobby cannot read matches none. */
export async function includedFiles(glob: string, folder: string, root: string, tree: FileTree = DISK): Promise<Included> {
  // Outside by its very text (`../..`, an absolute path elsewhere): refused before anything is walked.
  const written = normalize(resolve(folder, glob));
  const anchor = written.split(sep).findIndex((part) => /[*?[\]{}!]/.test(part));
  const base = anchor < 0 ? written : written.split(sep).slice(0, anchor).join(sep) || sep;
  const fromRoot = relative(realOrSelf(root, tree), realOrSelf(base, tree));
  if (climbsOut(fromRoot) || inGitFolder(fromRoot)) {
    return { inside: [], outside: 'it names files outside the repository (or in its .git folder)' };
  }
  let matches: string[];
  try {
    // Symbolic links are not followed while walking: a link to / under a ** would walk the machine.
    matches = (await find(glob, { cwd: folder, absolute: true, onlyFiles: true, expandDirectories: false, followSymbolicLinks: false, ...(tree.fs ? { fs: tree.fs } : {}) }))
      .map((match) => resolve(match))
      .sort();
  } catch {
    // e.g. an absolute glob naming the folder itself, which tinyglobby turns into an empty pattern.
    matches = [];
  }
  const inside = matches.filter((match) => outsideOf(match, root, tree) === undefined);
  return inside.length === matches.length ? { inside } : { inside: [], outside: 'it reaches outside the repository through a symbolic link (or into its .git folder)' };
}

/**
 * Why `dir`, a folder sitesync writes in (`archive:`), is not one it may write in `root`: outside
 * the repository or in its `.git` folder, the part of it that exists followed through its
 * symbolic links. Undefined when it may; it need not exist yet.
 */
export function folderOutside(dir: string, root: string): string | undefined {
  let existing = resolve(dir);
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  const inside = relative(realOrSelf(root, DISK), join(realOrSelf(existing, DISK), ...rest));
  if (climbsOut(inside)) return 'it is outside the repository';
  if (inGitFolder(inside)) return "it is in the repository's .git folder";
  return undefined;
}

/**
 * `.git` as a case-insensitive file system reads it (macOS, Windows: `.GIT/config` is `.git/config`
 * there), and as Windows does (trailing dots and spaces dropped, the short name `GIT~1`).
 */
const GIT_FOLDER = /^(?:\.git[. ]*|git~\d+)$/i;

/** Whether any folder of `path` is the repository's `.git` folder, by any of its names. */
function inGitFolder(path: string): boolean {
  return path.split(sep).some((part) => GIT_FOLDER.test(part));
}

/** Whether a path relative to the repository leaves it (`..`, `../x`, or another drive); `..x` is a name inside. */
function climbsOut(path: string): boolean {
  return path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path);
}

/** The path with every link resolved (on the disk, or in `tree`), or itself where it cannot be (gone, or never there). */
export function realOrSelf(path: string, tree: FileTree = DISK): string {
  try {
    return tree.realpath(path);
  } catch {
    return path;
  }
}

/** What an include that reaches outside the repository says (naming nothing out there). */
export function outsideMessage(glob: string, why: string, root: string): string {
  return `include "${glob}": ${why}; sitesync reads no file outside the repository that holds the config (${root})`;
}
