/**
 * What `sitesync ci plan-open` asks of git: the open merge requests' heads fetched into the job's
 * own repository, as data. Nothing of a merge request is checked out, unpacked, installed, built
 * or run, and no hook of its can exist (hooks live in the job's .git, which its files never
 * reach): its files are read from git's objects (config/git-revision.ts).
 */
import { spawn } from 'node:child_process';
import { SitesyncError } from '../messages/errors.js';

/** Where a merge request's head is kept in the job's repository. */
export function headRef(iid: number): string {
  return `refs/sitesync/merge-requests/${iid}`;
}

/**
 * Fetches the heads of these merge requests from `origin` (GitLab keeps each under
 * refs/merge-requests/IID/head, forks' too): only their last commits, not their history. One
 * call for all; if it fails (a head gone since the listing), one each, so that the rest are
 * still planned. A head that cannot be fetched has no ref afterwards, never an earlier run's.
 */
export async function fetchMergeRequestHeads(cwd: string, iids: number[], signal?: AbortSignal): Promise<void> {
  const earlier = (await run('git', ['for-each-ref', '--format=%(refname)', 'refs/sitesync/merge-requests/'], { cwd }, 'list the merge requests\u2019 refs of an earlier run')).split('\n').filter(Boolean);
  for (const ref of earlier) await run('git', ['update-ref', '-d', ref], { cwd }, 'remove an earlier run\u2019s ref');
  const fetch = (some: number[]) =>
    run('git', ['fetch', '--no-tags', '--quiet', '--depth=1', 'origin', ...some.map((iid) => `+refs/merge-requests/${iid}/head:${headRef(iid)}`)], { cwd, signal }, 'fetch the merge requests\u2019 heads');
  if (iids.length === 0) return;
  try {
    await fetch(iids);
  } catch {
    for (const iid of iids) await fetch([iid]).catch(() => undefined);
  }
}

/** The commit a ref names, or undefined when there is none (the fetch did not bring it). */
export async function commitOf(cwd: string, ref: string): Promise<string | undefined> {
  const out = await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd }, 'read a ref').catch(() => undefined);
  return out?.trim() || undefined;
}

/** The folder `cwd` is in, relative to the top of its repository ('' at the top; ends with `/` otherwise). */
export async function prefixOf(cwd: string): Promise<string> {
  return (await run('git', ['rev-parse', '--show-prefix'], { cwd }, 'find the top of the repository')).trim();
}

/** How a child ended, and what it said, without the credentials a CI's remote URL holds (`https://gitlab-ci-token:…@host`). */
function finished(child: ReturnType<typeof spawn>): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const clean = () => stderr.replace(/\/\/[^/@\s]+@/g, '//');
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: -1, stderr: error.message }));
    child.on('close', (code) => resolve({ code, stderr: clean() }));
  });
}

async function run(command: string, args: string[], options: { cwd: string; signal?: AbortSignal }, what: string): Promise<string> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const { code, stderr } = await finished(child);
  if (code !== 0) throw new SitesyncError(`git could not ${what} (${stderr.trim().split('\n').at(-1) || `exit ${code}`})`);
  return stdout;
}
