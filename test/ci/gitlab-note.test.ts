import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKER } from '../../src/render/markdown.js';
import { runInProcess } from './context.js';
import { BOT_USER, GITLAB_TOKEN, PROJECT_ID, startFakeGitLab, type FakeGitLab } from './fake-gitlab.js';

const PLAN = `${MARKER}\n### sitesync plan: no changes\n`;
const MR_URL = 'https://gitlab.example.com/group/config/-/merge_requests/3';

let fake: FakeGitLab;
let dir: string;

beforeEach(async () => {
  fake = await startFakeGitLab();
  dir = await mkdtemp(join(tmpdir(), 'sitesync-ci-'));
  await writeFile(join(dir, 'plan.md'), PLAN);
});
afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

/** What GitLab CI sets in a merge-request pipeline, pointed at the fake. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GITLAB_CI: 'true',
    CI_API_V4_URL: fake.api,
    CI_PROJECT_ID: PROJECT_ID,
    CI_MERGE_REQUEST_IID: '3',
    CI_PROJECT_URL: 'https://gitlab.example.com/group/config',
    CI_JOB_URL: 'https://gitlab.example.com/group/config/-/jobs/77',
    GITLAB_TOKEN,
    ...extra,
  };
}

async function comment(args: string[] = [], extra: Record<string, string> = {}) {
  const r = await runInProcess(['ci', 'comment', '--file', 'plan.md', ...args], env(extra), dir);
  expect(r.stdout + r.stderr).not.toContain(GITLAB_TOKEN);
  return r;
}

const notesPath = `/api/v4/projects/${PROJECT_ID}/merge_requests/3/notes`;

describe('sitesync ci comment on GitLab', () => {
  it('posts a note when the merge request has none from sitesync, with the PRIVATE-TOKEN header', async () => {
    fake.seed(3, [{ body: 'looks fine' }, { body: 'added 1 commit', system: true }]);
    const r = await comment();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const posted = fake.notes(3).at(-1)!;
    expect(r.stdout).toBe(`Posted the plan comment: ${MR_URL}#note_${posted.id}\n`);
    expect(posted.body).toBe(PLAN);
    expect(fake.writes()).toEqual([`POST ${notesPath}`]);
    for (const q of fake.requests) {
      expect(q.headers['private-token']).toBe(GITLAB_TOKEN);
      expect(q.headers.authorization).toBeUndefined();
    }
    expect(fake.requests.find((q) => q.url.startsWith(notesPath))!.url).toBe(`${notesPath}?per_page=100&sort=asc&order_by=created_at`);
  });

  it('updates the marked note on page 2 (X-Next-Page), skipping system notes, and posts nothing', async () => {
    const notes = fake.seed(
      3,
      Array.from({ length: 180 }, (_, i) =>
        i === 130
          ? { body: `${MARKER}\n### old plan`, author: { username: BOT_USER } }
          : { body: i % 7 === 0 ? `${MARKER} (system)` : `note ${i}`, system: i % 7 === 0 },
      ),
    );
    const id = notes[130]!.id;
    const r = await comment(['--provider', 'gitlab']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Updated the plan comment: ${MR_URL}#note_${id}\n`);
    expect(fake.requests.filter((q) => q.url.startsWith(notesPath) && q.method === 'GET')).toHaveLength(2);
    expect(fake.writes()).toEqual([`PUT ${notesPath}/${id}`]);
    expect(fake.notes(3)[130]!.body).toBe(PLAN);
  });

  it("prefers the token's own note over a person's marked note", async () => {
    const [person, own] = fake.seed(3, [
      { body: `${MARKER}\npasted`, author: { username: 'alice' } },
      { body: `${MARKER}\nold`, author: { username: BOT_USER } },
    ]);
    await comment();
    expect(fake.writes()).toEqual([`PUT ${notesPath}/${own!.id}`]);
    expect(fake.notes(3).find((n) => n.id === person!.id)!.body).toBe(`${MARKER}\npasted`);
  });

  it('says the plan failed, linking the job, when plan.md is empty', async () => {
    await writeFile(join(dir, 'plan.md'), '\n');
    await comment();
    expect(fake.notes(3)[0]!.body).toContain('see the [job log](https://gitlab.example.com/group/config/-/jobs/77)');
  });

  it('a rejected token names GITLAB_TOKEN and says CI_JOB_TOKEN cannot write notes', async () => {
    const r = await comment([], { GITLAB_TOKEN: 'glpat-notTheRightOne-12345' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('GitLab did not accept GITLAB_TOKEN (401: 401 Unauthorized)');
    expect(r.stderr).toContain('CI_JOB_TOKEN cannot write notes');
    expect(r.stderr).not.toContain('glpat-notTheRightOne-12345');
  });

  it('a 403 on writing says what the token needs', async () => {
    fake.fail.POST = { status: 403, body: { message: '403 Forbidden' } };
    const r = await comment();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'the token cannot write a note on merge request !3 of project 42 (403: 403 Forbidden): it needs the api scope and at least the Reporter role',
    );
  });

  it('a missing GITLAB_TOKEN is named, with how to make one', async () => {
    const r = await comment([], { GITLAB_TOKEN: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('GITLAB_TOKEN is not set: create a project access token (role Reporter, scope api)');
    expect(fake.requests).toEqual([]);
  });

  it('outside a merge-request pipeline it says how to run there, or to pass --pr', async () => {
    const r = await comment([], { CI_MERGE_REQUEST_IID: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('$CI_PIPELINE_SOURCE == "merge_request_event"');
    const withPr = await comment(['--pr', '3'], { CI_MERGE_REQUEST_IID: '' });
    expect(withPr.code).toBe(0);
  });
});
