/** A file edited in place (fmt, import, init): read with its byte-order mark, which the edit keeps. */
import { stat } from 'node:fs/promises';
import { readTextFile } from '../config/read.js';
import { WORK_TREE, type FileSource } from '../config/source.js';
import { FILE_CHANGED, replaceIfUnchanged } from '../io/files.js';
import { SitesyncError } from '../messages/errors.js';

/** A file as an edit in place reads it: `text` as every reader of sitesync sees it, after `bom` (its byte-order mark, or ''). */
export type FileText = { text: string; bom: string };

/** A file edited: absolute, and as the user named it (the config file) or relative to the working folder (an included file). */
export type NamedFile = { path: string; shown: string };

export async function readFileText(path: string): Promise<FileText> {
  const text = await readTextFile(path, 'config file', true);
  const bom = text.startsWith('\ufeff') ? '\ufeff' : '';
  return { text: text.slice(bom.length), bom };
}

/**
 * Writes `after` over the file if it still holds `before` (another program may write it without
 * the lock; else the error `changed`), keeping its permissions (passwords in clear may be private).
 */
export async function rewrite(path: string, before: string, after: string, words: { changed: string | SitesyncError; failed: (error: unknown) => Error }): Promise<void> {
  const mode = await stat(path).then((s) => s.mode & 0o777, () => undefined);
  await replaceIfUnchanged(path, before, after, mode).catch((error: unknown) => {
    throw (error as NodeJS.ErrnoException).code === FILE_CHANGED ? (typeof words.changed === 'string' ? new SitesyncError(words.changed) : words.changed) : words.failed(error);
  });
}

/** The work tree with edited texts (by path) in place of what the files hold: an edit read as the loader reads it, before it is written. */
export function withEdits(texts: Map<string, string>): FileSource {
  return { ...WORK_TREE, read: async (path, what) => texts.get(path) ?? WORK_TREE.read(path, what) };
}
