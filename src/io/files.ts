/**
 * Writing files that are never torn: what sitesync writes (saved plans, exports, the emulator's
 * state). Files edited in place (`fmt`, `import`) are also never edited by two runs at once, and
 * never replaced over a change another program made since they were read.
 */
import { hostname } from 'node:os';
import { constants } from 'node:fs';
import { copyFile, link, lstat, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SitesyncError } from '../messages/errors.js';

let tempCounter = 0;

/**
 * Whether a path names standard input or output or another open descriptor (`/dev/stdin`,
 * `/dev/fd/63` of `<(…)`, `/proc/self/fd/0`), not a file in a folder: stat sees whatever is
 * behind it, a pipe or the file the shell redirected.
 */
export function namesDescriptor(file: string): boolean {
  return /^\/(?:dev\/(?:stdin|stdout|stderr|fd\/\d+)|proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/fd\/\d+)$/.test(resolve(file));
}

/** The code of the error writeAtomic throws for a path that is not a regular file. */
export const NOT_A_FILE = 'SITESYNC_NOT_A_FILE';

/**
 * Writes `text` to `file` so that the file is always either the old or the new content: a
 * temporary file in the same folder, fsynced, then renamed over it. A symbolic link stays, and
 * the file it names is written. Only a regular file (or none yet) is ever replaced: standard
 * input or output, a pipe, a device or a link to none of them is refused (code NOT_A_FILE),
 * never renamed over (as root, a rename over /dev/stdout replaces it for the whole system).
 */
export async function writeAtomic(path: string, text: string, mode = 0o644): Promise<void> {
  await writeThenRename(path, text, mode, async () => undefined);
}

/** The code of the error writeNewChecked throws when the file read back is not what was written. */
export const NOT_AS_WRITTEN = 'SITESYNC_NOT_AS_WRITTEN';

/** The code of the error writeNewChecked throws for a path that is a symbolic link. */
export const IS_A_LINK = 'SITESYNC_IS_A_LINK';

/**
 * A new file of sitesync's own in a folder it does not own (an archive, in a folder of the
 * repository): it appears whole under `path` only where nothing is (a hard link to the fsynced
 * temporary: taken exclusively, so two processes writing the same name at once never replace one
 * another), then is read back: it must hold exactly `text`, and pass `check` (which returns what
 * is wrong, or undefined). A file that was not kept as written (a full disk, a folder another
 * program writes to) is an error with code NOT_AS_WRITTEN, never taken for done: what follows the
 * write (apply's delete after an archive) depends on it. Anything already at `path` is left as it
 * is: a symbolic link (one committed where an archive goes, its name guessed, could name any file
 * of the machine) with code IS_A_LINK, anything else with code EEXIST.
 */
export async function writeNewChecked(path: string, text: string, check: (readBack: string) => string | undefined = () => undefined): Promise<void> {
  if (namesDescriptor(path)) throw Object.assign(new Error(`${path} is not a regular file`), { code: NOT_A_FILE });
  await throughTemporary(path, text, 0o644, (temp) =>
    link(temp, path).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST' && (await lstat(path).catch(() => undefined))?.isSymbolicLink()) {
        throw Object.assign(new Error(`${path} is a symbolic link`), { code: IS_A_LINK });
      }
      // A file system without hard links: a copy that fails where anything is, as exclusive, if not as atomic.
      if (error.code !== 'EPERM' && error.code !== 'ENOTSUP' && error.code !== 'ENOSYS') throw error;
      await copyFile(temp, path, constants.COPYFILE_EXCL);
    }),
  );
  const back = await readFile(path, 'utf8');
  const problem = back === text ? check(back) : 'it does not hold what was written';
  if (problem) throw Object.assign(new Error(`${path}: read back, ${problem}`), { code: NOT_AS_WRITTEN });
}

/** The code of the error replaceIfUnchanged throws when the file no longer holds what was read. */
export const FILE_CHANGED = 'SITESYNC_FILE_CHANGED';

/**
 * writeAtomic, as a compare-and-swap: the file is replaced only if it still holds `expected`
 * (every byte, a BOM included) just before the rename; else nothing is written and the error
 * has code FILE_CHANGED. The lock (withFileLocks) keeps other sitesync runs out; this catches an
 * editor or a `git checkout` that wrote the file in the meantime.
 */
export async function replaceIfUnchanged(path: string, expected: string, text: string, mode = 0o644): Promise<void> {
  await writeThenRename(path, text, mode, async (file) => {
    const now = await readFile(file).catch(() => undefined);
    if (!now || !now.equals(Buffer.from(expected, 'utf8'))) {
      throw Object.assign(new Error(`${path} changed since it was read`), { code: FILE_CHANGED });
    }
  });
}

/** The code of the error writeNew throws when the file exists. */
export const FILE_EXISTS = 'SITESYNC_FILE_EXISTS';

/**
 * A file that must not exist yet (init's files), taken exclusively as writeNewChecked takes it: a
 * file that appeared since it was looked for (a person's, another run's, a link) is never
 * replaced; the error has code FILE_EXISTS.
 */
export async function writeNew(path: string, text: string): Promise<void> {
  await writeNewChecked(path, text).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST' || error.code === IS_A_LINK) throw Object.assign(new Error(`${path} exists`), { code: FILE_EXISTS });
    throw error;
  });
}

/** A temporary file beside the target (writeTarget finds it from `path`), fsynced, checked by `beforeRename`, then renamed over it. */
async function writeThenRename(path: string, text: string, mode: number, beforeRename: (file: string) => Promise<void>): Promise<void> {
  const file = await writeTarget(path);
  await throughTemporary(file, text, mode, async (temp) => {
    await beforeRename(file);
    await rename(temp, file);
  });
}

/** `text` in a fsynced temporary beside `file`, handed to `place` (which renames or links it to `file`), never left behind; then the folder synced. */
async function throughTemporary(file: string, text: string, mode: number, place: (temp: string) => Promise<void>): Promise<void> {
  // Named after the file, cut short: a name near the 255-byte limit must still get its temporary.
  const temp = join(dirname(file), `.${basename(file).slice(0, 64)}.${process.pid}.${++tempCounter}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await place(temp);
  } finally {
    // Gone already once renamed; a link leaves the file under its name alone.
    await unlink(temp).catch(() => undefined);
  }
  await syncFolder(dirname(file));
}

/** How long an edit waits for another run's edit of the same file: edits take milliseconds. */
export const LOCK_WAIT_MS = 30_000;

/** A lock older than this whose holder is unknown (written half: its holder died creating it) is stale. */
const UNREADABLE_LOCK_STALE_MS = 10_000;

export interface LockOptions {
  /** How each file is shown in messages (as the user named it). */
  shown?: (file: string) => string;
  waitMs?: number;
}

/**
 * Runs `edit` holding the lock of every file in `files`, so that two sitesync runs never edit
 * one file at once: `.NAME.sitesync-lock` beside each (beside the file a symbolic link names),
 * created exclusively and holding its process id and host. Locks are taken in one order (no two
 * runs wait on each other), retried for `waitMs` (then an error that names the holder), and
 * removed when `edit` ends, however it ends. The lock of a process that is gone (killed while it
 * held it) is removed by the next run.
 */
export async function withFileLocks<T>(files: readonly string[], edit: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const locks = new Map<string, string>();
  for (const file of files) {
    // What cannot be written (standard input, a device) needs no lock: its write says why not.
    const target = await writeTarget(file).catch(() => undefined);
    if (target === undefined) continue;
    const lock = lockPath(target);
    if (!locks.has(lock)) locks.set(lock, file);
  }
  const held: string[] = [];
  try {
    for (const lock of [...locks.keys()].sort()) {
      const file = locks.get(lock)!;
      await acquire(lock, options.waitMs ?? LOCK_WAIT_MS, options.shown?.(file) ?? file);
      held.push(lock);
    }
    return await edit();
  } finally {
    for (const lock of held.reverse()) await release(lock);
  }
}

/** The lock file of `file`, beside it (the name cut short as the temporary's is: two long names may share one). */
export function lockPath(file: string): string {
  return join(dirname(file), `.${basename(file).slice(0, 64)}.sitesync-lock`);
}

/** What a lock of this process holds: who holds it, checked before it is removed as stale or released. */
const OWNER = `${process.pid} ${hostname()}\n`;

async function acquire(lock: string, waitMs: number, shown: string): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      const handle = await open(lock, 'wx', 0o644);
      try {
        await handle.writeFile(OWNER, 'utf8');
      } finally {
        await handle.close();
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw lockFailure(error, shown, lock);
    }
    if (await removeIfStale(lock)) continue;
    if (Date.now() >= deadline) {
      const holder = parseOwner(await readFile(lock, 'utf8').catch(() => ''));
      const who = holder ? `process ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}` : 'another process';
      const waited = waitMs >= 1000 ? `${Math.round(waitMs / 1000)} s` : `${waitMs} ms`;
      throw new SitesyncError(
        `${shown}: another sitesync (${who}) is editing this file`,
        { nothingWritten: { before: `waited ${waited}, `, after: `. If no sitesync is running, remove ${join(dirname(shown), basename(lock))}` } },
      );
    }
    await sleep(pause + Math.random() * pause);
  }
}

function lockFailure(error: unknown, shown: string, lock: string): SitesyncError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'the file system is read-only' : (code ?? (error as Error).message);
  return new SitesyncError(`${shown}: cannot create the lock ${join(dirname(shown), basename(lock))} beside it (${why})`, { nothingWritten: true });
}

function parseOwner(text: string): { pid: number; host: string } | undefined {
  const match = /^(\d+) (.+)\n$/.exec(text);
  return match ? { pid: Number(match[1]), host: match[2]! } : undefined;
}

/**
 * Removes the lock when its holder is gone: a process of this host that no longer runs, or a
 * lock left half-written long ago. Moved aside first and checked again, so that a lock another
 * run took a moment ago is never the one removed.
 */
async function removeIfStale(lock: string): Promise<boolean> {
  const found = await readLock(lock);
  if (!found || !isStale(found)) return false;
  const aside = `${lock}.${process.pid}.${++tempCounter}.stale`;
  try {
    await rename(lock, aside);
  } catch {
    return true; // gone already: another run removed it
  }
  const moved = await readFile(aside, 'utf8').catch(() => undefined);
  if (moved !== found.text) {
    // A fresh lock was moved: put it back, unless yet another run holds the name by now.
    await link(aside, lock).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

async function readLock(lock: string): Promise<{ text: string; mtimeMs: number } | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(lock, 'utf8'), stat(lock)]);
    return { text, mtimeMs: info.mtimeMs };
  } catch {
    return undefined;
  }
}

function isStale({ text, mtimeMs }: { text: string; mtimeMs: number }): boolean {
  const owner = parseOwner(text);
  if (!owner) return Date.now() - mtimeMs > UNREADABLE_LOCK_STALE_MS;
  if (owner.host !== hostname()) return false; // a process of another machine cannot be checked
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function release(lock: string): Promise<void> {
  // Only this run's own lock: one removed as stale and taken by another run stays theirs.
  if ((await readFile(lock, 'utf8').catch(() => undefined)) === OWNER) await unlink(lock).catch(() => undefined);
}

/**
 * The file a write of `path` lands in: `path` (none yet, or a regular file), or the regular file
 * its symbolic link names. Anything else throws, with code NOT_A_FILE.
 */
export async function writeTarget(path: string): Promise<string> {
  const notAFile = () => Object.assign(new Error(`${path} is not a regular file`), { code: NOT_A_FILE });
  if (namesDescriptor(path)) throw notAFile();
  const found = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!found || found.isFile()) return path;
  if (found.isSymbolicLink()) {
    const real = await realpath(path).catch(() => undefined);
    if (real !== undefined && !namesDescriptor(real) && (await stat(real)).isFile()) return real;
  }
  throw notAFile();
}

/** Makes the rename itself durable; not every platform can open a folder, which is fine. */
async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Checks, before any work, that `file` (shown to the user as `shown`) can be written: its
 * folder exists, and it is not a file already there unless `force`. A user's file is never
 * replaced by accident.
 */
export async function assertOutputFile(
  file: string,
  shown: string,
  flag: string,
  force: boolean,
  /** What to do instead of naming standard output. */
  instead = `without ${flag}, the output goes to standard output`,
): Promise<void> {
  const existing = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw new SitesyncError(`${flag} ${shown}: cannot check it (${error.code ?? error.message})`);
  });
  if (existing?.isDirectory()) throw new SitesyncError(`${flag} ${shown}: this is a folder; name a file in it`);
  // What the write will check again: refused now, before any work, rather than after it.
  await writeTarget(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== NOT_A_FILE) return;
    throw new SitesyncError(`${flag} ${shown}: ${NOT_REGULAR}; ${instead}`);
  });
  if (existing && !force) throw new SitesyncError(`${flag} ${shown}: the file exists; pass --force to overwrite it`);
  const folder = await stat(dirname(file)).catch(() => undefined);
  if (!folder) throw new SitesyncError(`${flag} ${shown}: the folder ${dirname(shown)} does not exist; create it first`);
  if (!folder.isDirectory()) throw new SitesyncError(`${flag} ${shown}: ${dirname(shown)} is not a folder`);
}

/** Why a path writeTarget refuses cannot be written, checked before the work or at the write. */
const NOT_REGULAR = 'this is not a regular file (it names standard input or output, a pipe, a device, or a link to none)';

/** A failed write as a message, not an internal error. */
export function writeFailure(error: unknown, flag: string, shown: string): SitesyncError {
  // Already a message of sitesync's own (a saved plan that would hold a password in clear).
  if (error instanceof SitesyncError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === NOT_A_FILE
      ? `${NOT_REGULAR}, which sitesync never replaces`
      : code === IS_A_LINK
      ? 'this is a symbolic link, and an archive is written as a file of its own, never through a link'
      : code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'ENOSPC'
        ? 'the disk is full'
        : code === 'EROFS'
          ? 'the file system is read-only'
          : `cannot write it (${code ?? (error as Error).message})`;
  // Written, but not as meant: the file is there, and says what is wrong with it.
  if (code === NOT_AS_WRITTEN) return new SitesyncError(`${flag} ${shown}: ${(error as Error).message.replace(/^.*?: read back, /, 'read back, ')}`);
  return new SitesyncError(`${flag} ${shown}: ${why}`, { nothingWritten: true });
}
