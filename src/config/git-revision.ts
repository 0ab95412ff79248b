/**
 * A config file and the files it includes as they were at a git revision (`--baseline-ref REF`),
 * read from git's objects in the repository that holds the config file: no checkout, no work
 * tree touched. git runs without a shell, as plumbing only (`rev-parse`, `ls-tree`, `cat-file`).
 * The include globs walk the revision's tree with the loader's own glob engine and rules: inside
 * the repository (a tree holds nothing else, and never a .git), no symbolic link (mode 120000)
 * followed or read, a glob that matches nothing an error.
 */
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { FileSystemAdapter } from 'tinyglobby';
import { ConfigError, SitesyncError, UsageError } from '../messages/errors.js';
import type { Env } from './interpolate.js';
import { includedFiles, type FileTree } from './include-glob.js';
import { decodeText, MAX_FILE_BYTES } from './read.js';
import type { FileSource } from './source.js';

/** One entry of the revision's tree: a file (blob), a symbolic link, a submodule (commit). */
interface Entry {
  mode: string;
  id: string;
  /** Bytes, for a blob. */
  size: number;
}

const LINK = '120000';

/** A git revision as a source of config files, and whether the config file was there at all. */
export interface Revision extends FileSource {
  /** Whether the revision holds the file (a config added since holds nothing: everything in it is new). */
  has(file: string): boolean;
}

/**
 * Opens REF in the repository that holds `file` (absolute). Throws, in words, when the folder is
 * not in a git repository, when REF names no commit there (a shallow clone lacks the earlier
 * ones), or when git cannot be run. `flag` names the option in messages.
 */
export async function openRevision(file: string, ref: string, env: Env, flag = '--baseline-ref'): Promise<Revision> {
  // A name git would read as an option, or that cannot be one line of a command: no revision.
  if (!ref || ref.startsWith('-') || /[\0\r\n]/.test(ref)) throw new UsageError(`${flag} "${ref}" is not a name of a git revision (e.g. HEAD~1, origin/main, a commit SHA)`);
  let folder: string;
  try {
    folder = realpathSync(dirname(file));
  } catch {
    throw new SitesyncError(`${flag} ${ref}: the folder of ${file} does not exist`);
  }
  const run = (args: string[]) => git(args, folder, env);
  const top = await run(['rev-parse', '--show-toplevel']).catch((error: unknown) => {
    throw gitFailure(error, `${flag} ${ref}: ${file} is not in a git repository (the baseline is read from the repository that holds the config file)`);
  });
  const topReal = realpathSync(top.toString('utf8').trim());
  const commit = await run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(async (error: unknown) => {
    const shallow = (await run(['rev-parse', '--is-shallow-repository']).catch(() => Buffer.from(''))).toString().trim() === 'true';
    const failure = gitFailure(error, `${flag} ${ref}: no such commit in the repository at ${topReal}`);
    if (shallow) failure.details.push('This clone is shallow: fetch the commits the baseline needs (actions/checkout: fetch-depth: 2; or git fetch --deepen=1).');
    return Promise.reject(failure);
  });
  const sha = commit.toString('utf8').trim();
  const listing = await run(['ls-tree', '-r', '-l', '-z', '--full-tree', sha]);
  const entries = new Map<string, Entry>();
  const folders = new Set(['']);
  for (const record of listing.toString('utf8').split('\0')) {
    // <mode> SP <type> SP <object> SP+ <size> TAB <path>
    const match = /^(\d+) \w+ ([0-9a-f]+) +(\d+|-)\t(.*)$/s.exec(record);
    if (!match) continue;
    const [, mode, id, size, path] = match;
    entries.set(path!, { mode: mode!, id: id!, size: size === '-' ? 0 : Number(size) });
    for (let at = path!.lastIndexOf('/'); at > 0; at = path!.lastIndexOf('/', at - 1)) folders.add(path!.slice(0, at));
  }
  // Paths are kept as the work tree's (the user's spelling of the folder, links and all), so that
  // what the loader derives from the config file's path maps back onto the revision's tree.
  const root = resolve(dirname(file), relative(folder, topReal));
  const inTree = (path: string): string | undefined => {
    const rel = relative(root, path);
    if (rel === '') return '';
    if (rel === '..' || rel.startsWith(`..${sep}`) || resolve(root, rel) !== resolve(path)) return undefined;
    return rel.split(sep).join('/');
  };
  const shown = (path: string) => {
    const rel = inTree(path);
    return rel === undefined ? path : rel === '' ? `the top of the repository at ${ref}` : `${ref}:${rel}`;
  };
  const tree = revisionTree(root, inTree, entries, folders);

  return {
    shown,
    has: (path) => entries.has(inTree(path) ?? '\0'),
    refused: (path) => (entries.get(inTree(path) ?? '\0')?.mode === LINK ? `at ${ref} this is a symbolic link: sitesync reads no config through a link` : undefined),
    hasNoFolder: () => false,
    repositoryOf: () => root,
    include: (glob, from, inside) => includedFiles(glob, from, inside, tree),
    read: async (path, what) => {
      const fail = (message: string): never => {
        throw new ConfigError([{ file: shown(path), line: 0, col: 0, severity: 'error', message }]);
      };
      const entry = entries.get(inTree(path) ?? '\0');
      if (!entry) return fail(`no such file at ${ref}`);
      if (entry.mode === LINK) return fail(`at ${ref} this is a symbolic link: sitesync reads no file through a link`);
      if (!entry.mode.startsWith('100')) return fail(`at ${ref} this is not a file`);
      if (entry.size > MAX_FILE_BYTES) return fail(`the file is ${(entry.size / 1048576).toFixed(1)} MiB at ${ref}; a ${what} may be at most ${MAX_FILE_BYTES / 1048576} MiB`);
      return decodeText(await run(['cat-file', 'blob', entry.id]), shown(path), what);
    },
  };
}

/** The revision's tree as the glob engine walks it: folders and files, links as links (never followed). */
function revisionTree(root: string, inTree: (path: string) => string | undefined, entries: Map<string, Entry>, folders: Set<string>): FileTree {
  const missing = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  const list = (path: string) => {
    const rel = inTree(path);
    if (rel === undefined || !folders.has(rel)) throw missing(path);
    const prefix = rel ? `${rel}/` : '';
    const kinds = new Map<string, 'file' | 'folder' | 'link' | 'other'>();
    for (const [entry, { mode }] of entries) {
      if (!entry.startsWith(prefix)) continue;
      const rest = entry.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash >= 0) kinds.set(rest.slice(0, slash), 'folder');
      else kinds.set(rest, mode === LINK ? 'link' : mode.startsWith('100') ? 'file' : 'other');
    }
    return [...kinds].map(([name, kind]) => ({
      name,
      parentPath: path,
      path,
      isFile: () => kind === 'file',
      isDirectory: () => kind === 'folder',
      isSymbolicLink: () => kind === 'link',
    }));
  };
  const fs = {
    readdir: (path: string, _options: unknown, callback: (error: Error | null, entries?: ReturnType<typeof list>) => void) => {
      let found;
      try {
        found = list(path);
      } catch (error) {
        return callback(error as Error);
      }
      callback(null, found);
    },
    readdirSync: (path: string) => list(path),
  } as unknown as FileSystemAdapter;
  return {
    fs,
    // Nothing in a tree is reached through a link: a path is itself, when the tree has it.
    realpath: (path) => {
      const rel = inTree(path);
      if (rel === undefined || (!folders.has(rel) && entries.get(rel)?.mode.startsWith('100') !== true)) throw missing(path);
      return rel ? join(root, rel) : root;
    },
  };
}

/** Runs git without a shell in `cwd`; its standard output, or an error carrying what it said. */
function git(args: string[], cwd: string, env: Env): Promise<Buffer> {
  return new Promise((done, fail) => {
    execFile(
      'git',
      args,
      { cwd, env: { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }, encoding: 'buffer', maxBuffer: 4 * MAX_FILE_BYTES, windowsHide: true },
      (error, stdout, stderr) => (error ? fail(Object.assign(error, { said: stderr.toString('utf8').trim() })) : done(stdout)),
    );
  });
}

/** What a failed git command means to the user: git missing, or `message` with git's own first line. */
function gitFailure(error: unknown, message: string): SitesyncError {
  const { code, said } = error as { code?: unknown; said?: string };
  if (code === 'ENOENT') return new SitesyncError(`git is not installed (or not on PATH): ${message.split(':')[0]} reads the baseline through git`);
  const failure = new SitesyncError(message);
  const first = said?.split('\n').find((line) => line.trim());
  if (first && !/^fatal: (not a git repository|Needed a single revision)/.test(first)) failure.details.push(`git: ${first}`);
  return failure;
}

