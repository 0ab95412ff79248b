/**
 * Where `import` puts each account's new entries: `--into` (the config file, or one the account
 * includes), else the included file that holds most of the account's websites, else the config
 * file. What is placed (an account's chosen websites) is the caller's; how an entry is
 * written into a file is insert-websites.ts.
 */
import { SitesyncError } from '../messages/errors.js';
import type { Config, Workspace } from '../model/types.js';
import type { WebsitesTarget } from './insert-websites.js';

/** One file's edit: the accounts whose entries go into it, and where in it. */
export interface FileEdit<A extends { config: Config } = { config: Config }> {
  /** Absolute. */
  path: string;
  /** As the user named it (the config file) or relative to the working folder (an included file). */
  shown: string;
  /** The config file itself, or a file it includes (which holds `websites:` only). */
  role: 'main' | 'include';
  imports: { account: A; target: WebsitesTarget }[];
}

/**
 * Which file each account's entries go into: `--into` (the config file, or one the account
 * includes); else, for an account whose websites all live in included files, the one that
 * holds most of them (ties: the first read), so that they go where its team keeps them; else
 * the config file.
 */
export function placeImports<A extends { config: Config }>(
  workspace: Workspace,
  imports: A[],
  into: string | undefined,
  intoShown: string | undefined,
  shownOf: (path: string) => string,
): FileEdit<A>[] {
  const main = workspace.file;
  const edits = new Map<string, FileEdit<A>>();
  for (const account of imports) {
    const included = filesIncludedBy(workspace, account.config);
    let path: string;
    if (into !== undefined) {
      if (into !== main && !included.includes(into)) throw notIncluded(intoShown!, account.config, included, shownOf);
      path = into;
    } else {
      path = defaultFile(workspace, account.config, included);
    }
    const target: WebsitesTarget = path === main ? { account: account.config.account?.name } : {};
    const edit = edits.get(path) ?? { path, shown: shownOf(path), role: path === main ? 'main' : 'include', imports: [] };
    edit.imports.push({ account, target });
    edits.set(path, edit);
  }
  return [...edits.values()];
}

function defaultFile(workspace: Workspace, config: Config, included: string[]): string {
  const own = config.websites.filter((w) => w.file === undefined).length;
  if (own > 0 || included.length === 0) return workspace.file;
  const count = (file: string) => config.websites.filter((w) => w.file === file).length;
  // Most websites; of equals, the first read (reduce keeps the earlier on a tie).
  return included.reduce((best, file) => (count(file) > count(best) ? file : best));
}

function notIncluded(intoShown: string, config: Config, included: string[], shownOf: (path: string) => string): SitesyncError {
  const whose = config.account ? `account ${config.account.name}` : 'the config file';
  const error = new SitesyncError(`--into ${intoShown}: not the config file, and not a file ${whose} includes`, { nothingWritten: true });
  error.details = [included.length ? `The files ${whose} includes: ${included.map(shownOf).join(', ')}.` : `It includes no file.`];
  return error;
}

/**
 * The files an account includes (of a single-account file: those its top-level `include:`
 * names), in the order they were read: as the loader matched its globs, so that a file that
 * holds no website yet counts too.
 */
function filesIncludedBy(workspace: Workspace, config: Config): string[] {
  const account = config.account?.name ?? '';
  return workspace.files.filter((f) => f !== workspace.file && workspace.includedBy?.[f] === account);
}
