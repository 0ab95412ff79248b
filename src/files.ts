/**
 * Writing files that are never torn: what sitesync writes (saved plans, exports, the emulator's
 * state).
 */
import { lstat, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { SitesyncError } from './errors.js';

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
  const file = await writeTarget(path);
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
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(file));
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
      : code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'ENOSPC'
        ? 'the disk is full'
        : code === 'EROFS'
          ? 'the file system is read-only'
          : `cannot write it (${code ?? (error as Error).message})`;
  return new SitesyncError(`${flag} ${shown}: ${why}; nothing was written`);
}
