/**
 * A git checkout as a CI job of a pull (merge) request sees it: the base branch `main` on an
 * `origin` the job can fetch, and the request's branch checked out with its change.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cleanEnv } from '../helpers/cli.js';

export function git(dir: string, ...args: string[]): string {
  const who = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
  return execFileSync('git', args, { cwd: dir, env: cleanEnv(who), encoding: 'utf8' });
}

async function writeAll(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** Commits `base` on main in `dir`, pushes it to a bare origin, then commits `change` on a branch; gives the origin's folder. */
export async function pullRequestCheckout(dir: string, base: Record<string, string>, change: Record<string, string>): Promise<string> {
  await writeAll(dir, base);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', ...Object.keys(base));
  git(dir, 'commit', '-q', '-m', 'base');
  const origin = await mkdtemp(join(tmpdir(), 'sitesync-origin-'));
  git(dir, 'clone', '-q', '--bare', '.', origin);
  git(dir, 'remote', 'add', 'origin', origin);
  git(dir, 'checkout', '-q', '-b', 'change');
  await writeAll(dir, change);
  git(dir, 'add', ...Object.keys(change));
  git(dir, 'commit', '-q', '-m', 'change');
  return origin;
}

/** A file that includes sites/*.yaml, and a change of the password reference in the included file. */
export const INCLUDED_PASSWORD_CHANGE = {
  base: {
    // password_env: the variables the pull request may read (a rotation to a new one is planned under --trusted-config).
    'sitesync.yaml': 'version: 1\npassword_env: ["*SHOP_PW"]\ninclude: [sites/*.yaml]\nwebsites: []\n',
    'sites/shop.yaml': 'websites:\n  - domain: a.example.com\n    privacy: password\n    password: ${OLD_SHOP_PW}\n',
  },
  change: { 'sites/shop.yaml': 'websites:\n  - domain: a.example.com\n    privacy: password\n    password: ${SHOP_PW}\n' },
  env: { SHOP_PW: 'new-secret-2', OLD_SHOP_PW: 'old-secret-1' },
  /** The live website, with the base branch's password. */
  live: { domain: 'a.example.com', privacy: 2, email: 0, exclude_bots: 1, password: 'old-secret-1' },
};
