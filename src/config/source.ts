/**
 * Where the loader reads a config file and its includes: the work tree, or a git revision (git-revision.ts),
 * with the same rules. The file may be a stranger's: no glob (`../*`, absolute), no link makes sitesync read
 * (or fmt write), list or walk anything outside the repository, nor its `.git` folder (a checkout's credentials).
 */
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { glob as find, type FileSystemAdapter } from 'tinyglobby';
import { namesDescriptor } from '../io/files.js';
import { foldersUp, hasNoFolder, readTextFile } from './read.js';

export interface FileSource {
  /** How messages name the file at `path` (absolute). */
  shown(path: string): string;
  /** Why the config file itself is not read (a link to a file outside its repository); undefined when it is. */
  refused(file: string): string | undefined;
  /** Whether the file has no folder to find the files it includes in (a pipe, standard input). */
  hasNoFolder(file: string): boolean;
  /** The repository that holds the file: all that its includes may reach. */
  repositoryOf(file: string): string;
  /** The file's text; `what` it is to the user, for messages. */
  read(path: string, what: string): Promise<string>;
  /** The files an `include:` glob matches, relative to `folder`, inside `root`. */
  include(glob: string, folder: string, root: string): Promise<Included>;
}

/** The files as they are on disk. */
export const WORK_TREE: FileSource = {
  shown: (path) => path,
  // A checkout makes the links a pull request commits: messages would show the file one names, an edit write it.
  refused: (file) => {
    const outside = namesDescriptor(file) || !existsSync(file) ? undefined : outsideOf(file, repositoryOf(file));
    return outside && `this is a symbolic link, and the file it names ${outside}: sitesync reads no config there`;
  },
  hasNoFolder,
  repositoryOf,
  read: readTextFile,
  include: includedFiles,
};

/** The files a glob is matched against: the disk, or the tree of a git revision (git-revision.ts). */
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

/** The repository a config file belongs to: the git work tree that holds it (found without running git); outside git, its folder. */
export function repositoryOf(file: string): string {
  const folder = realpathSync(dirname(file));
  for (const dir of foldersUp(folder)) if (existsSync(join(dir, '.git'))) return dir;
  return folder;
}

/** Why `path` (symbolic links followed) is not a file sitesync may read in `root`; undefined when it is. */
function outsideOf(path: string, root: string, tree: FileTree = DISK): string | undefined {
  let real: string;
  try {
    real = tree.realpath(path);
  } catch {
    return undefined; // missing: said where it is read
  }
  const inside = relative(root, real);
  if (inside === '' || climbsOut(inside)) return 'lies outside the repository';
  if (inGitFolder(inside)) return "lies in the repository's .git folder";
  return undefined;
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

/** Why `dir`, a folder sitesync writes in (`archive:`, which need not exist yet), is not one it may write in `root`; undefined when it may. */
export function folderOutside(dir: string, root: string): string | undefined {
  let existing = resolve(dir);
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  const inside = relative(realOrSelf(root), join(realOrSelf(existing), ...rest));
  if (climbsOut(inside)) return 'it is outside the repository';
  if (inGitFolder(inside)) return "it is in the repository's .git folder";
  return undefined;
}

/** Whether any folder of `path` is `.git`, as case-insensitive file systems (`.GIT`) and Windows (trailing dots and spaces dropped, `GIT~1`) read it. */
function inGitFolder(path: string): boolean {
  return path.split(sep).some((part) => /^(?:\.git[. ]*|git~\d+)$/i.test(part));
}

/** Whether a path relative to the repository leaves it (`..`, `../x`, or another drive); `..x` is a name inside. */
export function climbsOut(path: string): boolean {
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
