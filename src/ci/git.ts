/**
 * What `sitesync ci plan-open` asks of git: the open merge requests' heads fetched into the job's
 * own repository, as data. Nothing of a merge request is checked out, unpacked, installed, built
 * or run, and no hook of its can exist (hooks live in the job's .git, which its files never
 * reach): its files are read from git's objects (config/git-revision.ts).
 */
import { runGit } from '../io/git.js';
import type { Env } from '../io/context.js';
import { SitesyncError } from '../messages/errors.js';

/** Where a merge request's head is kept in the job's repository. */
export function headRef(iid: number): string {
  return `refs/sitesync/merge-requests/${iid}`;
}

/**
 * Fetches the heads of these merge requests from `origin` (GitLab keeps each under
 * refs/merge-requests/IID/head, forks' too): only their last commits, not their history, and
 * their trees without a single file's content (`--filter=blob:none`): a merge request that
 * commits a gigabyte of zeros (a megabyte pushed) costs nothing here. git fetches the blobs the
 * config and its includes name when they are read, and only those (origin becomes a promisor
 * remote; a server without filters sends everything, as before). One
 * call for all; if it fails (a head gone since the listing), one each, so that the rest are
 * still planned. A head that cannot be fetched has no ref afterwards, never an earlier run's.
 */
export async function fetchMergeRequestHeads(cwd: string, env: Env, iids: number[], signal?: AbortSignal): Promise<void> {
  const earlier = (await run(['for-each-ref', '--format=%(refname)', 'refs/sitesync/merge-requests/'], { cwd, env }, 'list the merge requests\u2019 refs of an earlier run')).split('\n').filter(Boolean);
  for (const ref of earlier) await run(['update-ref', '-d', ref], { cwd, env }, 'remove an earlier run\u2019s ref');
  const fetch = (some: number[]) =>
    run(['fetch', '--no-tags', '--quiet', '--depth=1', '--filter=blob:none', 'origin', ...some.map((iid) => `+refs/merge-requests/${iid}/head:${headRef(iid)}`)], { cwd, env, signal }, 'fetch the merge requests\u2019 heads');
  if (iids.length === 0) return;
  try {
    await fetch(iids);
  } catch {
    for (const iid of iids) await fetch([iid]).catch(() => undefined);
  }
}

/** The folder `cwd` is in, relative to the top of its repository ('' at the top; ends with `/` otherwise). */
export async function prefixOf(cwd: string, env: Env): Promise<string> {
  return (await run(['rev-parse', '--show-prefix'], { cwd, env }, 'find the top of the repository')).trim();
}

/** Runs git in `cwd`; its standard output, or an error saying what it could not do, without the credentials a CI's remote URL holds (`https://gitlab-ci-token:…@host`). */
async function run(args: string[], options: { cwd: string; env: Env; signal?: AbortSignal }, what: string): Promise<string> {
  try {
    return (await runGit(args, options)).toString('utf8');
  } catch (error) {
    const { said, code } = error as { said?: string; code?: unknown };
    const last = said?.replace(/\/\/[^/@\s]+@/g, '//').split('\n').at(-1);
    throw new SitesyncError(`git could not ${what} (${last || (typeof code === 'number' ? `exit ${code}` : (error as Error).message)})`);
  }
}
