/**
 * `sitesync ci approved`: after a merge, the merged pull/merge request's plan comment written to
 * a file for `apply --approved` — only the token's own, never a person's (who could
 * paste a digest of their own) nor another bot's.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKER, markerFor } from '../../src/render/markdown.js';
import { runInProcess } from './context.js';
import { BOT, GITHUB_TOKEN, PERSON, REPO, startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { BOT_USER, GITLAB_TOKEN, PROJECT_ID, startFakeGitLab, type FakeGitLab } from './fake-gitlab.js';

const MERGE = 'c'.repeat(40);
const PLAN = `${MARKER}\n### sitesync plan: 1 to create, 0 to update, 0 to delete\n<!-- sitesync-approved: the digest -->\n`;
let dir: string;
let github: FakeGitHub;
let gitlab: FakeGitLab;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-approved-'));
  github = await startFakeGitHub();
  github.pullsOfCommit.set(MERGE, [{ number: 7, merge_commit_sha: MERGE }]);
  await writeFile(join(dir, 'push.json'), JSON.stringify({ after: MERGE, before: 'b'.repeat(40) }));
  gitlab = await startFakeGitLab();
  gitlab.mergeRequests.set(3, { iid: 3, title: 'a change', state: 'merged', target_branch: 'main', sha: 'd'.repeat(40), merge_commit_sha: MERGE });
});
afterEach(async () => {
  await github.close();
  await gitlab.close();
  await rm(dir, { recursive: true, force: true });
});

const githubEnv = () => ({ GITHUB_ACTIONS: 'true', GITHUB_API_URL: github.url, GITHUB_TOKEN, GITHUB_REPOSITORY: REPO, GITHUB_EVENT_PATH: join(dir, 'push.json') });
const gitlabEnv = () => ({ GITLAB_CI: 'true', CI_API_V4_URL: gitlab.api, CI_PROJECT_ID: PROJECT_ID, CI_COMMIT_SHA: MERGE, CI_PROJECT_URL: 'https://gitlab.example.com/group/config', GITLAB_TOKEN });

/** One forge as `ci approved` meets it after a merge: pull request 7 of octo/config, or merge request !3 of project 42. */
const FORGES = [
  {
    name: 'GitHub',
    token: GITHUB_TOKEN,
    approved: () => runInProcess(['ci', 'approved', '-o', 'approved.md'], githubEnv(), dir),
    /** A marked comment by a person (with a digest of their own), then the token's plan comment. */
    seed: (personal: string, own: string) =>
      github.seed(7, [
        { body: personal, user: { ...PERSON } },
        { body: own, user: { ...BOT } },
      ]),
    wrote: /^Wrote the approved plan of pull request #7 of octo\/config \(https:\/\/github\.com\/octo\/config\/pull\/7#issuecomment-\d+\) to approved\.md\n$/,
    // Three reads (who last edited the comment is a GraphQL query, a POST that writes nothing), nothing written on GitHub.
    requests: () => github.requests.map((q) => `${q.method} ${q.url.split('?')[0]}`),
    reads: [`GET /repos/${REPO}/commits/${MERGE}/pulls`, `GET /repos/${REPO}/issues/7/comments`, 'POST /graphql'],
  },
  {
    name: 'GitLab',
    token: GITLAB_TOKEN,
    approved: () => runInProcess(['ci', 'approved', '-o', 'approved.md', '--provider', 'gitlab'], gitlabEnv(), dir),
    seed: (personal: string, own: string) =>
      gitlab.seed(3, [
        { body: personal, author: { username: 'mallory' } },
        { body: own, author: { username: BOT_USER } },
      ]),
    wrote: /^Wrote the approved plan of merge request !3 of project 42 \(https:\/\/gitlab\.example\.com\/group\/config\/-\/merge_requests\/3#note_\d+\) to approved\.md\n$/,
    requests: () => gitlab.requests.map((q) => `${q.method} ${q.url.split('?')[0]}`),
    // Three reads (the merge request of the commit, who the token is, its notes), nothing written on GitLab.
    reads: [`GET /api/v4/projects/${PROJECT_ID}/repository/commits/${MERGE}/merge_requests`, 'GET /api/v4/user', `GET /api/v4/projects/${PROJECT_ID}/merge_requests/3/notes`],
  },
];

describe.each(FORGES)('sitesync ci approved on $name', (forge) => {
  it("writes the plan comment of the pull or merge request the pushed commit merged: the token's own, never the person's who pasted a marker and a digest before it", async () => {
    forge.seed(`${MARKER}\n### sitesync plan: no changes\n<!-- sitesync-approved: pasted -->`, PLAN);
    const r = await forge.approved();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await readFile(join(dir, 'approved.md'), 'utf8')).toBe(PLAN);
    expect(r.stdout).toMatch(forge.wrote);
    expect(forge.requests()).toEqual(forge.reads);
    expect(r.stdout + r.stderr).not.toContain(forge.token);
  });
});

describe('sitesync ci approved on GitHub', () => {
  const approved = (args: string[] = []) => runInProcess(['ci', 'approved', '-o', 'approved.md', ...args], githubEnv(), dir);

  it("the bot's comment edited by a person since (anyone who may write to the repository may) is no approval; one only the bot updated is", async () => {
    const [comment] = github.seed(7, [{ body: PLAN, user: { ...BOT } }]);
    github.edit(7, comment!.id, PLAN.replace('1 to create', 'no changes'), 'Mallory');
    const r = await approved();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Error: pull request #7 of octo/config: its sitesync plan comment was last edited by Mallory, not by this token's user (github-actions[bot]): it is not the plan sitesync posted, and approves nothing");
    expect(existsSync(join(dir, 'approved.md'))).toBe(false);
    // The token goes to GitHub's own host only, in the header: never in a path, a body or a message.
    expect(r.stdout + r.stderr + JSON.stringify(github.requests.map((q) => [q.url, q.body]))).not.toContain(GITHUB_TOKEN);

    // The bot's next plan writes it again: GraphQL then names the bot (without REST's [bot]).
    github.edit(7, comment!.id, PLAN, 'github-actions');
    expect((await approved()).code).toBe(0);

    // A GitHub that will not say who edited it: no approval either.
    github.fail.POST = { status: 502, body: { message: 'Bad gateway' } };
    const unknown = await approved();
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('GitHub could not read who last edited the plan comment of pull request #7 of octo/config (502: Bad gateway)');
    github.fail.POST = { status: 200, body: { data: { node: null } } };
    expect((await approved()).stderr).toContain('cannot tell who last edited the plan comment of pull request #7 of octo/config (its GraphQL API did not answer with the comment), so it is not taken as approved');
  });

  it("a second config's comment by --id", async () => {
    github.seed(7, [
      { body: PLAN, user: { ...BOT } },
      { body: `${markerFor('sites/eu.yaml')}\n### sitesync plan: eu`, user: { ...BOT } },
    ]);
    const r = await approved(['--id', 'sites/eu.yaml']);
    expect(r.code).toBe(0);
    expect(await readFile(join(dir, 'approved.md'), 'utf8')).toContain('### sitesync plan: eu');
  });

  it('a pull request with only a person\'s marked comment has no approved plan: exit 1, saying so, and no file', async () => {
    github.seed(7, [{ body: PLAN, user: { ...PERSON } }]);
    const r = await approved();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pull request #7 of octo/config has no sitesync plan comment written by this token: it was merged without a plan to compare with');
    expect(existsSync(join(dir, 'approved.md'))).toBe(false);
  });

  it('a push that merged no pull request: exit 1, saying so', async () => {
    github.pullsOfCommit.clear();
    const r = await approved();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no pull request found for the pushed commit ${MERGE.slice(0, 12)}`);
  });
});

describe('sitesync ci approved on GitLab', () => {
  const env = gitlabEnv;

  it("a push straight to the branch of a commit an open merge request also holds takes nothing of that merge request: it merged nothing", async () => {
    const pushed = 'e'.repeat(40);
    // An open merge request whose head is the commit pushed: its note (the bot's plan of it) approves what it shows, not this push.
    gitlab.mergeRequests.set(9, { iid: 9, title: 'open', state: 'opened', target_branch: 'main', sha: pushed });
    gitlab.seed(9, [{ body: PLAN, author: { username: BOT_USER } }]);
    const r = await runInProcess(['ci', 'approved', '-o', 'approved.md', '--provider', 'gitlab'], { ...env(), CI_COMMIT_SHA: pushed }, dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no merge request found for the pushed commit ${pushed.slice(0, 12)} (a push straight to the branch?)`);
    expect(existsSync(join(dir, 'approved.md'))).toBe(false);
  });

  it('ci comment --new after a merge posts on the merge request of the pushed commit', async () => {
    await writeFile(join(dir, 'apply.md'), '### sitesync apply: done\n');
    const r = await runInProcess(['ci', 'comment', '--new', '--provider', 'gitlab', '--file', 'apply.md'], env(), dir);
    expect(r.code, r.stderr).toBe(0);
    expect(gitlab.notes(3).map((n) => n.body)).toEqual(['### sitesync apply: done\n']);
  });
});
