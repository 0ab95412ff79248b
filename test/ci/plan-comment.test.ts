/**
 * `sitesync ci comment`: the plan posted as one comment on a pull request (GitHub, against the
 * fake GitHub API) or one note on a merge request (GitLab, against the fake GitLab API), found
 * again and updated on the next run. What both forges do is one table over them; what one has
 * alone is under its name.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { MARKER, markerFor } from '../../src/render/markdown.js';
import { runCli, runCliHere } from '../helpers/cli.js';
import { runInProcess } from './context.js';
import { BOT, GITHUB_TOKEN, PERSON, REPO, startElsewhere, startFakeGitHub, type Failure, type FakeGitHub, type Recorded } from './fake-github.js';
import { BOT_USER, GITLAB_TOKEN, PROJECT_ID, startFakeGitLab, type FakeGitLab } from './fake-gitlab.js';

const PLAN = `${MARKER}\n### sitesync plan: 1 to create, 0 to update, 0 to delete\n\n| create | update | delete |\n`;

let fake: FakeGitHub;
let gitlab: FakeGitLab;
let dir: string;

beforeEach(async () => {
  fake = await startFakeGitHub();
  gitlab = await startFakeGitLab();
  dir = await mkdtemp(join(tmpdir(), 'sitesync-ci-'));
  await writeFile(join(dir, 'plan.md'), PLAN);
  await writeFile(join(dir, 'event.json'), JSON.stringify({ action: 'synchronize', pull_request: { number: 7 } }));
});
afterEach(async () => {
  await fake.close();
  await gitlab.close();
  await rm(dir, { recursive: true, force: true });
});

/** What GitHub Actions sets, pointed at the fake; nothing else of the host's environment. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: fake.url,
    GITHUB_TOKEN,
    GITHUB_REPOSITORY: REPO,
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '99',
    ...extra,
  };
}

async function comment(args: string[] = [], extra: Record<string, string> = {}) {
  const r = await runInProcess(['ci', 'comment', '--file', 'plan.md', ...args], env(extra), dir);
  expect(r.stdout + r.stderr).not.toContain(GITHUB_TOKEN);
  return r;
}

/** 250 comments, 3 pages of 100; the bot's marked one is number 150, on page 2. */
function seedLongThread(): number {
  const comments = Array.from({ length: 250 }, (_, i) => ({
    body: i === 150 ? `${MARKER}\n### sitesync plan: old` : `comment ${i}: LGTM, see ${MARKER} below`,
    user: i === 150 ? { ...BOT } : { ...PERSON },
  }));
  return fake.seed(7, comments)[150]!.id;
}


/** What GitLab CI sets in a merge-request pipeline, pointed at the fake. */
function gitlabEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GITLAB_CI: 'true',
    CI_API_V4_URL: gitlab.api,
    CI_PROJECT_ID: PROJECT_ID,
    CI_MERGE_REQUEST_IID: '3',
    CI_PROJECT_URL: 'https://gitlab.example.com/group/config',
    CI_JOB_URL: 'https://gitlab.example.com/group/config/-/jobs/77',
    GITLAB_TOKEN,
    ...extra,
  };
}

const MR_URL = 'https://gitlab.example.com/group/config/-/merge_requests/3';
const notesPath = `/api/v4/projects/${PROJECT_ID}/merge_requests/3/notes`;

/** A comment of the thread: who wrote it (the token's bot, a person, or GitLab itself: a system note, which GitHub does not have). */
interface Said {
  body: string;
  by: 'bot' | 'person' | 'system';
}

/** One forge as the comment tests see it: its fake's thread (pull request 7, merge request 3), its environment and its words. */
interface Forge {
  name: 'GitHub' | 'GitLab';
  token: string;
  env(extra?: Record<string, string>): Record<string, string>;
  /** Adds these to the thread; their ids. GitHub has no system notes: those are left out there. */
  seed(said: Said[]): number[];
  thread(): Array<{ id: number; body: string }>;
  requests(): Recorded[];
  writes(): string[];
  fail(method: string, failure: Failure): void;
  link(id: number): string;
  post: string;
  update(id: number): string;
  /** The thread's first page. */
  listing: string;
  /** The first requests of a run, up to the thread's first page (GitLab asks who the token is first). */
  opening: string[];
  /** Every request carries these headers (undefined: not sent). */
  headers: Record<string, string | RegExp | undefined>;
  /** A long thread with the token's marked comment on page 2 (system notes and mentions of the marker around it): its id, its length, and the pages read. */
  longThread(): { id: number; length: number; pages: Array<string | null> };
  /** The plan file of a plan that failed, and what its comment links to. */
  emptyPlan: string;
  runLink: string;
  forbiddenWrite: Failure;
  forbiddenSays: string;
  wrongToken: string;
  rejectedSays: string[];
  missingSays: string;
}

const FORGES: Forge[] = [
  {
    name: 'GitHub',
    token: GITHUB_TOKEN,
    env,
    seed: (said) => fake.seed(7, said.filter((c) => c.by !== 'system').map((c) => ({ body: c.body, user: c.by === 'bot' ? { ...BOT } : { ...PERSON } }))).slice(-said.filter((c) => c.by !== 'system').length).map((c) => c.id),
    thread: () => fake.comments(7),
    requests: () => fake.requests,
    writes: () => fake.writes(),
    fail: (method, failure) => (fake.fail[method] = failure),
    link: (id) => `https://github.com/${REPO}/pull/7#issuecomment-${id}`,
    post: `POST /repos/${REPO}/issues/7/comments`,
    update: (id) => `PATCH /repos/${REPO}/issues/comments/${id}`,
    listing: `/repos/${REPO}/issues/7/comments?per_page=100`,
    opening: [`/repos/${REPO}/issues/7/comments?per_page=100`],
    headers: { authorization: `Bearer ${GITHUB_TOKEN}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': /^sitesync\/\d/ },
    longThread: () => ({ id: seedLongThread(), length: 250, pages: [null, '2', '3'] }),
    emptyPlan: '',
    runLink: '(https://github.com/octo/config/actions/runs/99)',
    forbiddenWrite: { status: 403, body: { message: 'Resource not accessible by integration' } },
    forbiddenSays:
      'Error: the token cannot write a comment on pull request #7 of octo/config (403: Resource not accessible by integration): give the job `permissions: pull-requests: write`',
    wrongToken: 'ghs_aWrongTokenValue987654',
    rejectedSays: ['GitHub did not accept GITHUB_TOKEN (401: Bad credentials)'],
    missingSays: 'Error: GITHUB_TOKEN is not set: pass it to the step (env: GITHUB_TOKEN: ${{ github.token }})',
  },
  {
    name: 'GitLab',
    token: GITLAB_TOKEN,
    env: gitlabEnv,
    seed: (said) =>
      gitlab
        .seed(3, said.map((c) => ({ body: c.body, system: c.by === 'system', author: { username: c.by === 'bot' ? BOT_USER : 'alice' } })))
        .slice(-said.length)
        .map((n) => n.id),
    thread: () => gitlab.notes(3),
    requests: () => gitlab.requests,
    writes: () => gitlab.writes(),
    fail: (method, failure) => (gitlab.fail[method] = failure),
    link: (id) => `${MR_URL}#note_${id}`,
    post: `POST ${notesPath}`,
    update: (id) => `PUT ${notesPath}/${id}`,
    listing: `${notesPath}?per_page=100&sort=asc&order_by=created_at`,
    opening: ['/api/v4/user', `${notesPath}?per_page=100&sort=asc&order_by=created_at`],
    headers: { 'private-token': GITLAB_TOKEN, authorization: undefined },
    longThread: () => {
      const notes = gitlab.seed(
        3,
        Array.from({ length: 180 }, (_, i) =>
          i === 130
            ? { body: `${MARKER}\n### old plan`, author: { username: BOT_USER } }
            : { body: i % 7 === 0 ? `${MARKER} (system)` : `note ${i}`, system: i % 7 === 0 },
        ),
      );
      return { id: notes[130]!.id, length: 180, pages: [null, '2'] };
    },
    emptyPlan: '\n',
    runLink: 'see the [job log](https://gitlab.example.com/group/config/-/jobs/77)',
    forbiddenWrite: { status: 403, body: { message: '403 Forbidden' } },
    forbiddenSays: 'the token cannot write a note on merge request !3 of project 42 (403: 403 Forbidden): it needs the api scope and at least the Reporter role',
    wrongToken: 'glpat-notTheRightOne-12345',
    rejectedSays: ['GitLab did not accept GITLAB_TOKEN (401: 401 Unauthorized)', 'CI_JOB_TOKEN cannot write notes'],
    missingSays: 'GITLAB_TOKEN is not set: create a project access token (role Reporter, scope api)',
  },
];

describe.each(FORGES)('sitesync ci comment on $name', (forge) => {
  async function comment(args: string[] = [], extra: Record<string, string> = {}) {
    const r = await runInProcess(['ci', 'comment', '--file', 'plan.md', ...args], forge.env(extra), dir);
    expect(r.stdout + r.stderr).not.toContain(forge.token);
    return r;
  }

  it('posts the plan when the thread has no plan comment yet', async () => {
    forge.seed([
      { body: 'Looks good', by: 'person' },
      { body: 'added 1 commit', by: 'system' },
    ]);
    const r = await comment();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const posted = forge.thread().at(-1)!;
    expect(r.stdout).toBe(`Posted the plan comment: ${forge.link(posted.id)}\n`);
    expect(posted.body).toBe(PLAN);
    expect(forge.writes()).toEqual([forge.post]);
  });

  it('sends the headers the forge asks for, the token only in its own header', async () => {
    await comment();
    for (const r of forge.requests()) {
      for (const [name, value] of Object.entries(forge.headers)) {
        if (value instanceof RegExp) expect(r.headers[name]).toMatch(value);
        else expect(r.headers[name]).toBe(value);
      }
      expect(r.url).not.toContain(forge.token);
    }
    expect(forge.requests().slice(0, forge.opening.length).map((q) => q.url)).toEqual(forge.opening);
  });

  it('updates the marked comment found on a later page, reading every page, and posts nothing', async () => {
    const { id, length, pages } = forge.longThread();
    const r = await comment();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Updated the plan comment: ${forge.link(id)}\n`);
    expect(forge.requests().filter((q) => q.method === 'GET' && q.url.startsWith(forge.listing.split('?')[0]!)).map((q) => new URL(q.url, 'http://x').searchParams.get('page'))).toEqual(pages);
    expect(forge.writes()).toEqual([forge.update(id)]);
    expect(forge.thread().find((c) => c.id === id)!.body).toBe(PLAN);
    expect(forge.thread()).toHaveLength(length);
  });

  it("prefers the token's own marked comment over a person's older one", async () => {
    const [person, own] = forge.seed([
      { body: `${MARKER}\npasted by hand`, by: 'person' },
      { body: `${MARKER}\n### sitesync plan: old`, by: 'bot' },
    ]);
    await comment();
    expect(forge.writes()).toEqual([forge.update(own!)]);
    expect(forge.thread().find((c) => c.id === person)!.body).toBe(`${MARKER}\npasted by hand`);
  });

  it('says the plan failed, with a link to the run, when the plan file is empty', async () => {
    await writeFile(join(dir, 'plan.md'), forge.emptyPlan);
    forge.seed([{ body: `${MARKER}\n### sitesync plan: an outdated plan`, by: 'bot' }]);
    const r = await comment();
    expect(r.stdout).toMatch(/^Updated the plan comment: /);
    const body = forge.thread()[0]!.body;
    expect(body.startsWith(`${MARKER}\n### sitesync plan failed`)).toBe(true);
    expect(body).toContain(forge.runLink);
  });

  it('a 403 on writing says what the token needs', async () => {
    forge.fail('POST', forge.forbiddenWrite);
    const r = await comment();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(forge.forbiddenSays);
  });

  it('a rejected token (401) is named, never shown', async () => {
    const r = await comment([], { [forge.name === 'GitHub' ? 'GITHUB_TOKEN' : 'GITLAB_TOKEN']: forge.wrongToken });
    expect(r.code).toBe(1);
    for (const says of forge.rejectedSays) expect(r.stderr).toContain(says);
    expect(r.stderr).not.toContain(forge.wrongToken);
  });

  it('a missing token is named, with how to pass it', async () => {
    const r = await comment([], { [forge.name === 'GitHub' ? 'GITHUB_TOKEN' : 'GITLAB_TOKEN']: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(forge.missingSays);
    expect(forge.requests()).toEqual([]);
  });
});

describe('sitesync ci comment on GitHub', () => {

  it('ignores comments that only mention the marker below their first line', async () => {
    fake.seed(7, [
      { body: `Quoting the bot:\n${MARKER}\n### sitesync plan`, user: { ...PERSON } },
      { body: 'sitesync-plan looks right', user: { ...BOT } },
    ]);
    const r = await comment();
    expect(r.stdout).toMatch(/^Posted the plan comment: /);
    expect(fake.writes()).toEqual([`POST /repos/${REPO}/issues/7/comments`]);
  });

  it("never takes over another bot's marked comment (an app may quote a person's text): it posts its own", async () => {
    const [other] = fake.seed(7, [{ body: `${MARKER}\n### sitesync plan: from someone else`, user: { login: 'other-app[bot]', type: 'Bot' } }]);
    const r = await comment();
    expect(r.stdout).toMatch(/^Posted the plan comment: /);
    expect(fake.writes()).toEqual([`POST /repos/${REPO}/issues/7/comments`]);
    expect(fake.comments(7).find((c) => c.id === other!.id)!.body).toBe(`${MARKER}\n### sitesync plan: from someone else`);
  });

  it('outside GitHub Actions, GitHub says who the token is: its own comment is updated; when it will not say, none is taken', async () => {
    const [, mine] = fake.seed(7, [
      { body: `${MARKER}\n### sitesync plan: old`, user: { ...BOT } },
      { body: `${MARKER}\n### sitesync plan: old`, user: { login: 'ops-person', type: 'User' } },
    ]);
    fake.login = 'ops-person';
    const own = await comment(['--provider', 'github'], { GITHUB_ACTIONS: '' });
    expect(own.code, own.stderr).toBe(0);
    expect(fake.writes()).toEqual([`PATCH /repos/${REPO}/issues/comments/${mine!.id}`]);
    fake.login = undefined;
    fake.requests.length = 0;
    const unknown = await comment(['--provider', 'github'], { GITHUB_ACTIONS: '' });
    expect(unknown.stdout).toMatch(/^Posted the plan comment: /);
    expect(fake.writes()).toEqual([`POST /repos/${REPO}/issues/7/comments`]);
  });

  it('writes nothing when the comment already shows this plan', async () => {
    fake.seed(7, [{ body: PLAN, user: { ...BOT } }]);
    const r = await comment();
    expect(r.stdout).toMatch(/^The plan comment is up to date: https:\/\/github.com\//);
    expect(fake.writes()).toEqual([]);
  });

  it('posts a new comment when the marked one was deleted after it was listed', async () => {
    const [gone] = fake.seed(7, [{ body: `${MARKER}\nold`, user: { ...BOT } }]);
    fake.fail.PATCH = { status: 404, body: { message: 'Not Found' } };
    const r = await comment();
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Posted the plan comment: /);
    expect(fake.writes()).toEqual([`PATCH /repos/${REPO}/issues/comments/${gone!.id}`, `POST /repos/${REPO}/issues/7/comments`]);
  });

  it('prepends the marker to a file without it', async () => {
    await writeFile(join(dir, 'plan.md'), '### hand-written\n');
    await comment();
    expect(fake.comments(7)[0]!.body).toBe(`${MARKER}\n### hand-written\n`);
  });

  it('does not follow a next-page link to another origin, and never sends the token there', async () => {
    const elsewhere = await startElsewhere();
    try {
      fake.seed(7, Array.from({ length: 150 }, (_, i) => ({ body: `comment ${i}`, user: { ...PERSON } })));
      fake.linkOrigin = elsewhere.url;
      const r = await comment();
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`GitHub sent a next-page link to another host (${new URL(elsewhere.url).host})`);
      expect(r.stderr).toContain('Is GITHUB_API_URL');
      expect(elsewhere.requests).toEqual([]);
      expect(fake.writes()).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('a 403 from the rate limit says so instead', async () => {
    fake.fail.GET = { status: 403, body: { message: 'API rate limit exceeded' }, headers: { 'x-ratelimit-remaining': '0' } };
    const r = await comment();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("GitHub's API rate limit is used up (403: API rate limit exceeded)");
  });

  it('a 404 names the repository and pull request; a 422 says GitHub refused', async () => {
    let r = await comment([], { GITHUB_REPOSITORY: 'octo/other' });
    expect(r.stderr).toContain('GitHub has no pull request #7 of octo/other, or the token cannot see it (404: Not Found)');
    fake.fail.POST = { status: 422, body: { message: 'Validation Failed' } };
    r = await comment();
    expect(r.stderr).toContain('GitHub refused to write a comment on pull request #7 of octo/config (422: Validation Failed)');
  });

  it('scrubs the token even from what GitHub says back', async () => {
    fake.fail.GET = { status: 500, body: { message: `oops ${GITHUB_TOKEN}` } };
    const r = await runInProcess(['ci', 'comment', '--file', 'plan.md'], env(), dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('oops (redacted)');
    expect(r.stderr).not.toContain(GITHUB_TOKEN);
  });

  it('--verbose logs each request without the token', async () => {
    seedLongThread();
    const r = await comment(['--verbose']);
    expect(r.stderr).toContain(`GitHub: GET /repos/${REPO}/issues/7/comments?per_page=100&page=2 → 200`);
    expect(r.stderr).toMatch(/GitHub: PATCH \/repos\/octo\/config\/issues\/comments\/\d+ → 200/);
  });

  it('reads odd answers liberally: a comment whose body is not text is not the plan, and a null pull request is none', async () => {
    fake.seed(7, [
      { body: 5 as unknown as string, user: { ...BOT } },
      { body: { text: PLAN } as unknown as string, user: { ...BOT } },
    ]);
    const posted = await comment();
    expect(posted.stderr).not.toContain('Internal error');
    expect(posted.code).toBe(0);
    expect(fake.comments(7).map((c) => c.body)).toEqual([5, { text: PLAN }, PLAN]);

    const sha = 'a'.repeat(40);
    await writeFile(join(dir, 'push.json'), JSON.stringify({ after: sha }));
    fake.pullsOfCommit.set(sha, [null as unknown as { number: number; merge_commit_sha: string }]);
    const push = await comment([], { GITHUB_EVENT_PATH: join(dir, 'push.json') });
    expect(push.code).toBe(1);
    expect(push.stderr).toContain(`no pull request found for the pushed commit ${sha.slice(0, 12)} (GitHub answered 200); pass --pr N`);
  });

  it('takes the number from --pr, or from issue.number in the event payload, or says it has none', async () => {
    await comment(['--pr', '12']);
    expect(fake.comments(12)).toHaveLength(1);
    await writeFile(join(dir, 'event.json'), JSON.stringify({ issue: { number: 13 } }));
    await comment();
    expect(fake.comments(13)).toHaveLength(1);
    await writeFile(join(dir, 'event.json'), JSON.stringify({ ref: 'refs/heads/main' }));
    const r = await comment();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no pull request number in this event's payload; run it in a pull_request workflow, or pass --pr N");
  });

  it('refuses to send the token over plain http to another host', async () => {
    const r = await comment([], { GITHUB_API_URL: 'http://github.example.com/api/v3' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('GITHUB_API_URL: refusing to send the token over plain http:// to github.example.com: use https://');
  });

  it('asks for --provider outside GitHub Actions and GitLab CI', async () => {
    const r = await comment([], { GITHUB_ACTIONS: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pass --provider github or --provider gitlab');
  });

  it('a missing plan file is one clear error', async () => {
    const r = await runInProcess(['ci', 'comment', '--file', 'nope.md'], env(), dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: --file nope.md: no such file');
    expect(fake.requests).toEqual([]);
  });
});

describe('sitesync ci comment on GitLab', () => {
  async function comment(args: string[] = [], extra: Record<string, string> = {}) {
    const r = await runInProcess(['ci', 'comment', '--file', 'plan.md', ...args], gitlabEnv(extra), dir);
    expect(r.stdout + r.stderr).not.toContain(GITLAB_TOKEN);
    return r;
  }

  it('outside a merge-request pipeline it says how to run there, or to pass --pr', async () => {
    const r = await comment([], { CI_MERGE_REQUEST_IID: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('$CI_PIPELINE_SOURCE == "merge_request_event"');
    const withPr = await comment(['--pr', '3'], { CI_MERGE_REQUEST_IID: '' });
    expect(withPr.code).toBe(0);
  });
});

describe('sitesync ci comment, the built CLI', () => {
  it('posts on the first run and updates the same comment on the next', async () => {
    const childEnv = { ...env(), GITLAB_CI: '', GITHUB_STEP_SUMMARY: '' };
    const first = await runCli(['ci', 'comment', '--file', 'plan.md'], { cwd: dir, env: childEnv });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const [posted] = fake.comments(7);
    expect(first.stdout).toBe(`Posted the plan comment: https://github.com/${REPO}/pull/7#issuecomment-${posted!.id}\n`);

    await writeFile(join(dir, 'plan.md'), `${PLAN}| 2 | 0 | 0 |\n`);
    const second = await runCli(['ci', 'comment', '--file', 'plan.md'], { cwd: dir, env: childEnv });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`Updated the plan comment: https://github.com/${REPO}/pull/7#issuecomment-${posted!.id}\n`);
    expect(fake.comments(7)).toHaveLength(1);
    expect(fake.comments(7)[0]!.body).toContain('| 2 | 0 | 0 |');
    expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(GITHUB_TOKEN);
  });
});

describe('two configs in one repository', () => {
  it('each plan gets its own comment, found again by the config path its marker carries; the default keeps the old marker', async () => {
    // A comment of an earlier sitesync (the plain marker) for the default config.
    const oldId = fake.seed(7, [{ body: `${MARKER}\n### sitesync plan: old`, user: { ...BOT } }])[0]!.id;
    const eu = `${markerFor('sites/eu.yaml')}\n### sitesync plan: 2 to create, 0 to update, 0 to delete\n`;
    expect(eu.startsWith('<!-- sitesync-plan: sites/eu.yaml -->')).toBe(true);
    await writeFile(join(dir, 'eu.md'), eu);
    expect((await runInProcess(['ci', 'comment', '--file', 'eu.md'], env(), dir)).code).toBe(0);
    expect((await comment()).code).toBe(0);
    expect(fake.comments(7)).toHaveLength(2);
    expect(fake.comments(7).find((c) => c.id === oldId)!.body).toBe(PLAN);
    const euComment = fake.comments(7).find((c) => c.id !== oldId)!;
    expect(euComment.body).toBe(eu);

    // A failed plan of the second config (an empty file) turns its own comment into "plan failed", not the other.
    await writeFile(join(dir, 'empty.md'), '');
    expect((await runInProcess(['ci', 'comment', '--file', 'empty.md', '--id', 'sites/eu.yaml'], env(), dir)).code).toBe(0);
    expect(fake.comments(7)).toHaveLength(2);
    expect(fake.comments(7).find((c) => c.id === euComment.id)!.body).toMatch(/^<!-- sitesync-plan: sites\/eu\.yaml -->\n### sitesync plan failed/);
    expect(fake.comments(7).find((c) => c.id === oldId)!.body).toBe(PLAN);
  });

  it('plan --format markdown writes the config path into the marker, and the default config the plain one', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites: []\n');
    await mkdir(join(dir, 'sites'), { recursive: true });
    await writeFile(join(dir, 'sites/eu.yaml'), 'version: 1\nwebsites: []\n');
    const emu = await startEmulator({ keys: ['k-0123456789abcdef'] });
    try {
      const base = { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: 'k-0123456789abcdef' };
      const plain = await runCliHere(['plan', '--format', 'markdown'], { cwd: dir, env: base });
      expect(plain.stdout.split('\n')[0]).toBe(MARKER);
      const eu = await runCliHere(['plan', '-c', './sites/eu.yaml', '--format', 'markdown'], { cwd: dir, env: base });
      expect(eu.stdout.split('\n')[0]).toBe('<!-- sitesync-plan: sites/eu.yaml -->');
    } finally {
      await emu.close();
    }
  });
});
