/**
 * A config file and the files it includes as they were at a git revision (`--baseline-ref REF`),
 * read from git's objects (no checkout) with the loader's own glob engine and rules; no symbolic
 * link (mode 120000) is followed or read.
 */
import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { FileSystemAdapter } from 'tinyglobby';
import { commitOf, runGit } from '../io/git.js';
import { refuseFile, SitesyncError, UsageError } from '../messages/errors.js';
import type { Env } from '../io/context.js';
import { decodeText, tooLarge } from './read.js';
import { climbsOut, includedFiles, type FileSource, type FileTree } from './source.js';
import { MAX_CONFIG_FILE_BYTES, MAX_TREE_ENTRIES, MAX_TREE_LISTING_BYTES, MAX_TREE_PATH_BYTES } from '../caps.js';

/** One entry of the revision's tree: a file (blob), a symbolic link, a submodule (commit). */
type Entry = { mode: string; id: string };

const LINK = '120000';
const FOLDER = '040000';

export interface Revision extends FileSource {
  /** Whether the revision holds the file (a config added since holds nothing: everything in it is new). */
  has(file: string): boolean;
}

/** Opens REF in the repository that holds `file` (absolute); throws, in words, when it cannot. */
export async function openRevision(file: string, ref: string, env: Env): Promise<Revision> {
  const flag = '--baseline-ref';
  // A name git would read as an option, or that cannot be one line of a command: no revision.
  if (!ref || ref.startsWith('-') || /[\0\r\n]/.test(ref)) throw new UsageError(`${flag} "${ref}" is not a name of a git revision (e.g. HEAD~1, origin/main, a commit SHA)`);
  let folder: string;
  try {
    folder = realpathSync(dirname(file));
  } catch {
    throw new SitesyncError(`${flag} ${ref}: the folder of ${file} does not exist`);
  }
  const run = (args: string[]) => runGit(args, { cwd: folder, env });
  const top = await run(['rev-parse', '--show-toplevel']).catch((error: unknown) => {
    throw gitFailure(error, `${flag} ${ref}: ${file} is not in a git repository (the baseline is read from the repository that holds the config file)`);
  });
  const topReal = realpathSync(top.toString('utf8').trim());
  const sha = await commitOf(folder, env, ref);
  if (!sha) {
    const failure = new SitesyncError(`${flag} ${ref}: no such commit in the repository at ${topReal}`);
    const shallow = (await run(['rev-parse', '--is-shallow-repository']).catch(() => Buffer.from(''))).toString().trim() === 'true';
    if (shallow) failure.details.push('This clone is shallow: fetch the commits the baseline needs (actions/checkout: fetch-depth: 2; or git fetch --deepen=1).');
    throw failure;
  }
  // Paths as the work tree's (the user's spelling, links and all): what the loader derives from them maps onto the tree.
  const root = resolve(dirname(file), relative(folder, topReal));
  return revisionAt({ cwd: folder, commit: sha, root, at: ref, shown: (rel) => `${ref}:${rel}`, env });
}

export interface RevisionPlace {
  /** A folder of the repository, where git runs, and the commit (a full SHA). */
  cwd: string;
  commit: string;
  /** The absolute path its top stands for: the work tree's, or a folder that exists nowhere (ci plan-open). */
  root: string;
  /** The revision in messages: `at ${at} this is a symbolic link`; `shown` names a file of it by its path from the top. */
  at: string;
  shown(rel: string): string;
  env: Env;
  /** Stops the git commands that read its files' contents (ci plan-open's time limit for one merge request's reads). */
  signal?: AbortSignal;
}

/** A commit's files as a source, paths under `root`, bounded whatever it holds (see treeOf); only files the config names are read, as git stores them. */
export async function revisionAt(place: RevisionPlace): Promise<Revision> {
  const { cwd: folder, commit: sha, root, at: ref, env, signal } = place;
  const entries = await treeOf(folder, sha, env, ref);
  // Each folder's entries' modes by name, built once: a glob's walk lists each folder it reaches in its own time.
  const children = new Map<string, Map<string, string>>([['', new Map()]]);
  const add = (path: string, mode: string) => {
    const at = path.lastIndexOf('/');
    const parent = path.slice(0, Math.max(at, 0));
    if (!children.has(parent)) {
      children.set(parent, new Map());
      add(parent, FOLDER);
    }
    children.get(parent)!.set(path.slice(at + 1), mode);
  };
  for (const [path, { mode }] of entries) add(path, mode);
  const inTree = (path: string): string | undefined => {
    const rel = relative(root, path);
    if (climbsOut(rel) || resolve(root, rel) !== resolve(path)) return undefined;
    return rel.split(sep).join('/');
  };
  const entryAt = (path: string) => entries.get(inTree(path) ?? '\0');
  const shown = (path: string) => {
    const rel = inTree(path);
    return rel === undefined ? path : rel === '' ? `the top of the repository at ${ref}` : place.shown(rel);
  };
  const missing = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  // The revision's tree as the glob engine walks it (asynchronously): links as links, never followed.
  const tree: FileTree = {
    fs: {
      readdir: (path: string, _options: unknown, callback: (error: Error | null, entries?: unknown[]) => void) => {
        const modes = children.get(inTree(path) ?? '\0');
        const found = modes && [...modes].map(([name, mode]) => ({ name, isFile: () => mode.startsWith('100'), isDirectory: () => mode === FOLDER, isSymbolicLink: () => mode === LINK }));
        queueMicrotask(() => (found ? callback(null, found) : callback(missing(path))));
      },
    } as unknown as FileSystemAdapter,
    // Nothing in a tree is reached through a link: a path is itself, when the tree has it.
    realpath: (path) => {
      const rel = inTree(path);
      if (rel === undefined || (!children.has(rel) && entries.get(rel)?.mode.startsWith('100') !== true)) throw missing(path);
      return rel ? join(root, rel) : root;
    },
  };
  // The files a glob matches are read in one `git cat-file --batch`, not a process each.
  const blobs = new Map<string, Buffer>();
  // Sizes asked only for the files the config names: listing every size costs git a read of each object.
  const sizes = new Map<string, number>();
  const fetch = async (paths: string[]) => {
    const files = paths.map(entryAt).flatMap((entry) => (entry?.mode.startsWith('100') && !blobs.has(entry.id) ? [entry.id] : []));
    const unsized = [...new Set(files.filter((id) => !sizes.has(id)))];
    const listing = unsized.length ? (await runGit(['cat-file', '--batch-check'], { cwd: folder, env, signal, input: `${unsized.join('\n')}\n` })).toString('latin1') : '';
    for (const line of listing.split('\n')) {
      const [id, , size] = line.split(' ');
      if (id && size !== undefined) sizes.set(id, Number(size));
    }
    // No more at once than the loader reads of a workspace (16 MiB): the rest, if it comes to them, one by one.
    let room = MAX_CONFIG_FILE_BYTES;
    const ids = [...new Set(files.filter((id, i) => (sizes.get(id) ?? Infinity) <= MAX_CONFIG_FILE_BYTES && ((room -= sizes.get(id)!) >= 0 || i === 0)))];
    if (ids.length) for (const [id, bytes] of parseBatch(await runGit(['cat-file', '--batch'], { cwd: folder, env, signal, input: `${ids.join('\n')}\n` }))) blobs.set(id, bytes);
  };

  return {
    shown,
    has: (path) => entryAt(path) !== undefined,
    refused: (path) => (entryAt(path)?.mode === LINK ? `at ${ref} this is a symbolic link: sitesync reads no config through a link` : undefined),
    hasNoFolder: () => false,
    repositoryOf: () => root,
    include: async (glob, from, inside) => {
      const found = await includedFiles(glob, from, inside, tree);
      await fetch(found.inside);
      return found;
    },
    read: async (path, what) => {
      const entry = entryAt(path);
      if (!entry) return refuseFile(path, `no such file at ${ref}`);
      if (entry.mode === LINK) return refuseFile(path, `at ${ref} this is a symbolic link: sitesync reads no file through a link`);
      if (!entry.mode.startsWith('100')) return refuseFile(path, `at ${ref} this is not a file`);
      await fetch([path]);
      const size = sizes.get(entry.id) ?? 0;
      if (size > MAX_CONFIG_FILE_BYTES) return refuseFile(path, tooLarge((size / 1048576).toFixed(1), what, ` at ${ref}`));
      const bytes = blobs.get(entry.id);
      if (!bytes) return refuseFile(path, `git could not read it at ${ref} (its object is missing)`);
      return decodeText(bytes, path, what);
    },
  };
}

/** Every file of the commit's tree, by path (`git ls-tree -r`, read as it comes), up to MAX_TREE_ENTRIES, MAX_TREE_PATH_BYTES and MAX_TREE_LISTING_BYTES. */
async function treeOf(cwd: string, sha: string, env: Env, at: string): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  let rest: Buffer = Buffer.alloc(0);
  let read = 0;
  // A record: <mode> SP <type> SP <object> TAB <path>, the object's name at most 64 hex digits.
  const maxRecord = MAX_TREE_PATH_BYTES + 128;
  const tooLong = `holds a path longer than ${MAX_TREE_PATH_BYTES.toLocaleString('en-US')} bytes, which no checkout could hold`;
  const each = (chunk: Buffer): string | undefined => {
    read += chunk.length;
    if (read > MAX_TREE_LISTING_BYTES) return `lists more than ${MAX_TREE_LISTING_BYTES / 1048576} MiB of file names, more than any repository of configs`;
    const data = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let end = data.indexOf(0, start); end >= 0; end = data.indexOf(0, start)) {
      if (end - start > maxRecord) return tooLong;
      const match = /^(\d+) \w+ ([0-9a-f]+)\t(.*)$/s.exec(data.toString('utf8', start, end));
      start = end + 1;
      if (match) entries.set(match[3]!, { mode: match[1]!, id: match[2]! });
      if (entries.size > MAX_TREE_ENTRIES) return `holds more than ${MAX_TREE_ENTRIES.toLocaleString('en-US')} files, more than any repository of configs`;
    }
    rest = data.subarray(start);
    // What is left holds no end of a record yet: a record that long is a path too long, said now.
    return rest.length > maxRecord ? tooLong : undefined;
  };
  await runGit(['ls-tree', '-r', '-z', '--full-tree', sha], { cwd, env, each }).catch((error: unknown) => {
    const { stopped } = error as { stopped?: string };
    throw stopped ? new SitesyncError(`the tree at ${at} ${stopped}: sitesync reads none of it`) : gitFailure(error, `cannot list the files at ${at}`);
  });
  return entries;
}

/** `git cat-file --batch`'s answer: `<id> <type> <size>\n<bytes>\n` per object asked for. */
function parseBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) break;
    const [id, type, size] = out.subarray(at, end).toString('latin1').split(' ');
    if (type === undefined || size === undefined) break; // `<id> missing`
    const start = end + 1;
    blobs.set(id!, out.subarray(start, start + Number(size)));
    at = start + Number(size) + 1;
  }
  return blobs;
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

