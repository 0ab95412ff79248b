/**
 * Writing files that are never torn: what sitesync writes (saved plans, exports, the emulator's
 * state). node:fs/promises is loaded on first use: most runs write no file.
 */
import { basename, dirname, join, resolve } from 'node:path';

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
  const { open, rename, unlink } = process.getBuiltinModule('node:fs/promises');
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
  const { lstat, realpath, stat } = process.getBuiltinModule('node:fs/promises');
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
    handle = await process.getBuiltinModule('node:fs/promises').open(folder, 'r');
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
