/** Where `import` puts each account's new entries; how an entry is written into a file is insert-websites.ts. */
import { SitesyncError } from '../messages/errors.js';
import type { Config, Workspace } from '../model/types.js';
import type { NamedFile } from './file.js';

/** One file's edit: the accounts whose entries go into it, and where in it (`inAccount`: under `accounts:`; none: the file's own list). */
export interface FileEdit<A extends { config: Config }> extends NamedFile {
  imports: { account: A; inAccount?: string }[];
}

/**
 * Which file each account's entries go into: `--into` (the config file, or one the account
 * includes); else, when all its websites live in included files, the one holding most of them
 * (where its team keeps them); else the config file.
 */
export function placeImports<A extends { config: Config }>(
  workspace: Workspace,
  imports: A[],
  into: NamedFile | undefined,
  shownOf: (path: string) => string,
): FileEdit<A>[] {
  const main = workspace.file;
  const edits = new Map<string, FileEdit<A>>();
  for (const account of imports) {
    const { config } = account;
    // As the loader matched the account's globs (of a single-account file: its top-level include:), in the order read.
    const included = workspace.files.filter((f) => f !== main && workspace.includedBy?.[f] === (config.account?.name ?? ''));
    if (into !== undefined && into.path !== main && !included.includes(into.path)) {
      const whose = config.account ? `account ${config.account.name}` : 'the config file';
      const error = new SitesyncError(`--into ${into.shown}: not the config file, and not a file ${whose} includes`, { nothingWritten: true });
      error.details = [included.length ? `The files ${whose} includes: ${included.map(shownOf).join(', ')}.` : `It includes no file.`];
      throw error;
    }
    const count = (file: string | undefined) => config.websites.filter((w) => w.file === file).length;
    // Most websites; of equals, the first read (reduce keeps the earlier on a tie).
    const most = () => included.reduce((best, file) => (count(file) > count(best) ? file : best));
    const path = into?.path ?? (count(undefined) > 0 || included.length === 0 ? main : most());
    const inAccount = path === main ? config.account?.name : undefined;
    const edit = edits.get(path) ?? { path, shown: shownOf(path), imports: [] };
    edit.imports.push({ account, inAccount });
    edits.set(path, edit);
  }
  return [...edits.values()];
}
