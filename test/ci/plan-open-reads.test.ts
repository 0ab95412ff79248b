/**
 * `ci plan-open` reads a merge request's files as data, and only the files it needs: its head is
 * fetched without blobs, the config's and its includes' blobs are fetched when read, and reading
 * one merge request's files has a time limit. A local bare repository stands in for GitLab's.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planOpenMergeRequests, type FilesPlan } from '../../src/ci/plan-open.js';
import type { CommentThread, ThreadComment } from '../../src/ci/plan-comment.js';
import { cleanEnv } from '../helpers/cli.js';
import { git } from './pull-request-repo.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-plan-open-reads-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const site = (domains: string[]) => `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`;

/** A thread that keeps its notes in memory. */
function thread(): CommentThread & { notes: string[] } {
  const notes: string[] = [];
  const comment = (body: string, id: number): ThreadComment => ({ id, body, author: 'job', url: `note/${id}` });
  return {
    service: 'GitLab', where: 'a merge request', noun: 'note', maxBody: 1_000_000, notes,
    whoAmI: async () => 'job',
    list: async () => notes.map(comment),
    create: async (body) => (notes.push(body), comment(body, notes.length)),
    update: async (id, body) => ((notes[id - 1] = body), comment(body, id)),
  };
}

/**
 * origin (bare, serving filters as GitLab does) with main and one merge request per entry, each
 * adding its files; the job's clone of main over file:// (objects fetched, not copied). Gives the
 * job's folder and each merge request's head.
 */
function repositories(heads: Record<number, Record<string, string>>): { job: string; origin: string; shas: Record<number, string> } {
  const dev = join(dir, 'dev');
  const origin = join(dir, 'origin.git');
  const job = join(dir, 'job');
  for (const folder of [dev, job]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(dev, 'sitesync.yaml'), site(['a.example.com']));
  git(dev, 'init', '-q', '-b', 'main');
  git(dev, 'add', '-A');
  git(dev, 'commit', '-q', '-m', 'base');
  git(dir, 'clone', '-q', '--bare', dev, origin);
  git(origin, 'config', 'uploadpack.allowFilter', 'true');
  const shas: Record<number, string> = {};
  for (const [iid, files] of Object.entries(heads)) {
    git(dev, 'checkout', '-q', '-b', `mr-${iid}`, 'main');
    for (const [path, text] of Object.entries(files)) writeFileSync(join(dev, path), text);
    git(dev, 'add', '-A');
    git(dev, 'commit', '-q', '-m', `mr ${iid}`);
    git(dev, 'push', '-q', origin, `HEAD:refs/merge-requests/${iid}/head`);
    shas[Number(iid)] = git(dev, 'rev-parse', 'HEAD').trim();
    git(dev, 'checkout', '-q', 'main');
  }
  git(job, 'clone', '-q', '--branch', 'main', `file://${origin}`, '.');
  return { job, origin, shas };
}

/** Whether the job's repository holds an object, without asking origin for it. */
function holds(job: string, id: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', id], { cwd: job, env: cleanEnv({ GIT_NO_LAZY_FETCH: '1' }), stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const planned: FilesPlan = { code: 2, markdown: '### plan\n\nchanges\n', problems: [] };

describe('ci plan-open reads only what it plans', () => {
  it('a merge request that commits a large file: its head is fetched without blobs, and only the config’s blob is read', async () => {
    const large = 'x'.repeat(2 * 1024 * 1024);
    const { job, shas } = repositories({ 3: { 'sitesync.yaml': site(['a.example.com', 'b.example.com']), 'zeros.bin': large } });
    const notes = thread();
    const plannedFolders: string[] = [];
    const outcomes = await planOpenMergeRequests({
      cwd: job, config: 'sitesync.yaml', branch: 'main', env: cleanEnv({}),
      requests: [{ iid: 3, title: 'bomb', sha: shas[3]! }],
      plan: async (folder, source) => {
        plannedFolders.push(folder);
        expect(await source.read(join(folder, 'sitesync.yaml'), 'config file')).toContain('b.example.com');
        return planned;
      },
      thread: () => notes,
    });
    expect(outcomes.map((o) => o.state)).toEqual(['changes']);
    expect(plannedFolders).toHaveLength(1);
    expect(holds(job, git(job, 'rev-parse', `${shas[3]}:sitesync.yaml`).trim())).toBe(true);
    expect(holds(job, git(job, 'rev-parse', `${shas[3]}:zeros.bin`).trim())).toBe(false);
  });

  it('a merge request whose files cannot be read in time is refused in words; the others are planned', async () => {
    const { job, shas } = repositories({
      4: { 'sitesync.yaml': site(['a.example.com', 'slow.example.com']) },
      5: { 'sitesync.yaml': site(['a.example.com', 'fine.example.com']) },
    });
    // origin as a stand-in that hangs when it is asked for the first merge request's blobs:
    // the fetch of both heads is its first request, the read of !4's config its second.
    const counter = join(dir, 'requests');
    const uploadPack = join(dir, 'upload-pack');
    await writeFile(uploadPack, `#!/bin/sh\nn=$(($(cat ${counter} 2>/dev/null || echo 0) + 1))\necho $n > ${counter}\nif [ $n -eq 2 ]; then exec sleep 15; fi\nexec git-upload-pack "$@"\n`);
    await chmod(uploadPack, 0o755);
    git(job, 'config', 'remote.origin.uploadpack', uploadPack);
    const notes = { 4: thread(), 5: thread() };
    const outcomes = await planOpenMergeRequests({
      cwd: job, config: 'sitesync.yaml', branch: 'main', env: cleanEnv({}), readLimitMs: 2_000,
      requests: [{ iid: 4, title: 'slow', sha: shas[4]! }, { iid: 5, title: 'fine', sha: shas[5]! }],
      plan: async () => planned,
      thread: (mr) => notes[mr.iid as 4 | 5],
    });
    expect(outcomes.map((o) => [o.mr.iid, o.state])).toEqual([[4, 'not planned'], [5, 'changes']]);
    expect(outcomes[0]!.problems).toEqual(['its files could not be read within 2 seconds (its config or an included file may name a very large file): sitesync reads none of it']);
    expect(notes[4].notes[0]).toContain('- its files could not be read within 2 seconds');
    expect(notes[5].notes[0]).toContain('changes');
  });
});
