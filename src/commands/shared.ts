/** Small pieces the command files share. */
import { dirname } from 'node:path';
import { formatDiagnostic, SitesyncError, type Diagnostic } from '../errors.js';
import { NOT_A_FILE, writeTarget } from '../files.js';
import { printable } from '../render/escape.js';
import type { Context } from '../terminal.js';

export function printWarnings(warnings: Diagnostic[], ctx: Context): void {
  for (const w of warnings) ctx.stderr.write(`${ctx.err.yellow(printable(formatDiagnostic(w)))}\n`);
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
  // node:fs/promises is loaded on first use: validate, which loads this module, writes nothing.
  const { stat } = process.getBuiltinModule('node:fs/promises');
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
