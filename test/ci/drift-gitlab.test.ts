/**
 * `sitesync ci drift --provider gitlab`: the CLI as a child process against the emulator and the
 * fake GitLab API (project issues and their notes, with the project access token's bot user).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCliHere, type CliResult } from '../helpers/cli.js';
import { BETA_KEY, callsPerRun, KEY, singleAccount, twoAccounts, writesSince } from './drift-accounts.js';
import { BOT_USER, GITLAB_TOKEN, PROJECT_ID, startFakeGitLab, type FakeGitLab } from './fake-gitlab.js';

const JOB = 'https://gitlab.example.com/octo/config/-/jobs/7001';

let emu: Emulator;
let gitlab: FakeGitLab;
let dir: string;

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY, BETA_KEY], profile: 'deployed' });
  gitlab = await startFakeGitLab();
  dir = await mkdtemp(join(tmpdir(), 'sitesync-drift-gl-'));
});
afterEach(async () => {
  await emu.close();
  await gitlab.close();
  await rm(dir, { recursive: true, force: true });
});

async function drift(args: string[] = [], env: Record<string, string> = {}): Promise<CliResult> {
  const r = await runCliHere(['ci', 'drift', '--provider', 'gitlab', ...args], {
    cwd: dir,
    env: {
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      ACME_KEY: KEY,
      BETA_KEY,
      GITLAB_CI: 'true',
      CI_API_V4_URL: gitlab.api,
      CI_PROJECT_ID: PROJECT_ID,
      CI_PROJECT_URL: 'https://gitlab.example.com/octo/config',
      CI_JOB_URL: JOB,
      GITLAB_TOKEN,
      ...env,
    },
  });
  for (const secret of [KEY, BETA_KEY, GITLAB_TOKEN]) expect(r.stdout + r.stderr).not.toContain(secret);
  return r;
}

const issues = () => [...gitlab.issues.values()].sort((a, b) => a.iid - b.iid);

describe('sitesync ci drift on GitLab', () => {
  it('opens one issue, leaves it alone while the drift is the same, updates it when it changes, closes it with a note once converged', async () => {
    emu.seed(KEY, [{ domain: 'a.example.com' }]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const clean = await drift();
    expect(clean.code).toBe(0);
    expect(issues()).toEqual([]);
    expect(gitlab.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`GET /api/v4/projects/${PROJECT_ID}/issues?labels=sitesync-drift&state=opened&per_page=100`]);

    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com', 'b.example.com']));
    const first = await drift();
    expect(first.code).toBe(2);
    expect(issues()).toHaveLength(1);
    const [issue] = issues();
    expect(issue).toMatchObject({ title: 'sitesync drift: sitesync.yaml', labels: ['sitesync-drift'], state: 'opened', author: { username: BOT_USER } });
    expect(issue!.description.split('\n')[0]).toBe('<!-- sitesync-drift: sitesync.yaml -->');
    expect(issue!.description).toContain(`_Found by [this run](${JOB}) of \`sitesync ci drift\`._`);
    expect(issue!.description).toContain('| 🟢 create | `b.example.com` |');
    expect(first.stdout).toContain(`sitesync.yaml: drift; opened the issue: https://gitlab.example.com/octo/config/-/issues/${issue!.iid}`);

    let seen = gitlab.requests.length;
    expect((await drift([], { CI_JOB_URL: `${JOB}0` })).code).toBe(2);
    expect(writesSince(gitlab.requests, seen)).toEqual([]);

    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com', 'c.example.com']));
    seen = gitlab.requests.length;
    expect((await drift()).code).toBe(2);
    expect(writesSince(gitlab.requests, seen)).toEqual([`PUT /api/v4/projects/${PROJECT_ID}/issues/${issue!.iid}`]);
    expect(issues()[0]!.description).toContain('`c.example.com`');
    expect(issues()[0]!.description).not.toContain('`b.example.com`');

    emu.seed(KEY, [{ domain: 'c.example.com' }]);
    seen = gitlab.requests.length;
    const converged = await drift();
    expect(converged.code).toBe(0);
    expect(writesSince(gitlab.requests, seen)).toEqual([
      `POST /api/v4/projects/${PROJECT_ID}/issues/${issue!.iid}/notes`,
      `PUT /api/v4/projects/${PROJECT_ID}/issues/${issue!.iid}`,
    ]);
    expect(issues()[0]!.state).toBe('closed');
    expect(issues()[0]!.notes).toEqual([`The account equals \`sitesync.yaml\` again, as [this run](${JOB}) of \`sitesync ci drift\` found: closing.\n`]);
  });

  it("a person's issue with the marker is never touched; a failed account's issue says so and stays open", async () => {
    const pasted = gitlab.seedIssue({ description: '<!-- sitesync-drift: sitesync.yaml#beta -->\nmine', labels: ['sitesync-drift'], author: { username: 'alice' } });
    await writeFile(join(dir, 'sitesync.yaml'), twoAccounts(emu.url, ['a.acme.example'], ['b.beta.example']));
    const r = await drift([], { BETA_KEY: 'sk-test-WRONG-0123456789' });
    expect(r.code).toBe(1);
    expect(issues().map((i) => [i.title, i.author.username, i.description.split('\n')[1]])).toEqual([
      ['an issue', 'alice', 'mine'],
      ['sitesync drift: acme', BOT_USER, '## Drift: account `acme` differs from `sitesync.yaml`'],
      ['sitesync drift: beta', BOT_USER, '## Drift check failed: account `beta` of `sitesync.yaml`'],
    ]);
    expect(issues()[2]!.description).not.toContain('sk-test-WRONG');

    emu.seed(KEY, [{ domain: 'a.acme.example' }]);
    emu.seed(BETA_KEY, [{ domain: 'b.beta.example' }]);
    expect((await drift()).code).toBe(0);
    expect(issues().map((i) => i.state)).toEqual(['opened', 'closed', 'closed']);
    expect(gitlab.requests.filter((q) => q.method !== 'GET' && q.url.includes(`/issues/${pasted.iid}`))).toEqual([]);
    // Who the token is was asked once, when marked issues were found.
    expect(gitlab.requests.filter((q) => q.url === '/api/v4/user')).toHaveLength(2);
  });

  it('nothing secret in any request to GitLab: the token only in its header', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    expect((await drift()).code).toBe(2);
    expect((await drift([], { SITESYNC_API_KEY: 'sk-test-REVOKED-0123456789' })).code).toBe(1);
    for (const request of gitlab.requests) {
      const { 'private-token': token, ...headers } = request.headers;
      expect(token).toBe(GITLAB_TOKEN);
      const seen = JSON.stringify([request.url, headers, request.body]);
      for (const secret of [KEY, BETA_KEY, GITLAB_TOKEN, 'sk-test-REVOKED']) expect(seen).not.toContain(secret);
    }
  });

  it("GitLab's 429 is waited out as its Retry-After says", async () => {
    gitlab.failNext.push({ status: 429, body: { message: 'Retry later' }, headers: { 'retry-after': '1' } });
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const r = await drift();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("GitLab's API rate limit is used up: waiting 1 s, as it asks");
    expect(issues()).toHaveLength(1);
  });

  it('API calls per run, 1 and 30 drifted accounts: one listing, who the token is once there are issues, one write per changed issue', async () => {
    const figures = await callsPerRun({
      restart: async (keys) => {
        await emu.close();
        return (emu = await startEmulator({ keys, profile: 'deployed' }));
      },
      clearIssues: () => gitlab.issues.clear(),
      writeConfig: (text) => writeFile(join(dir, 'sitesync.yaml'), text),
      requests: () => gitlab.requests.length,
      drift: (env) => drift([], env),
    });
    expect(figures).toEqual({ 1: [2, 2, 4], 30: [31, 2, 62] });
    console.log(`GitLab API calls per run (drift opened / same drift / converged): 1 account ${figures[1]!.join(' / ')}, 30 accounts ${figures[30]!.join(' / ')}`);
  }, 120_000);
});

