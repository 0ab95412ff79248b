/**
 * Writing files that are never torn: what sitesync writes (saved plans, exports, the emulator's
 * state). node:fs/promises is loaded on first use: most runs write no file.
 */
import { basename, dirname, join } from 'node:path';

let tempCounter = 0;

/**
 * Writes `text` to `file` so that the file is always either the old or the new content: a
 * temporary file in the same folder, fsynced, then renamed over it.
 */
export async function writeAtomic(file: string, text: string, mode = 0o644): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${++tempCounter}.tmp`);
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
