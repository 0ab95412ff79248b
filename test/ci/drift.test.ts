/**
 * `sitesync ci drift` on GitHub and on GitLab: the CLI against the emulator and the fake GitHub
 * API (issues and their comments) or the fake GitLab API (project issues and their notes, with
 * the project access token's bot user). One issue per drifted account, opened, left alone while
 * the drift is the same, updated when it changes, commented on and closed once the account
 * converges; a failed check says so and stays open; a person's issue is never touched; nothing
 * secret in any request. What both forges do is one table over them; what one of them has alone
 * (GitHub's labels and permissions, --quiet-days) is under its name.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCliHere, type CliResult } from '../helpers/cli.js';
import { BETA_KEY, callsPerRun, KEY, singleAccount, twoAccounts, writesSince } from './drift-accounts.js';
import { actionsEnv, GITHUB_TOKEN, PERSON, REPO, startFakeGitHub, type Failure, type FakeGitHub, type Recorded } from './fake-github.js';
import { BOT_USER, GITLAB_TOKEN, PROJECT_ID, startFakeGitLab, type FakeGitLab } from './fake-gitlab.js';

const PASSWORD = 'pw-of-the-shop-0123';
const RUN = (id: string) => `https://github.com/${REPO}/actions/runs/${id}`;
const JOB = (id: string) => `https://gitlab.example.com/octo/config/-/jobs/70${id}`;

let emu: Emulator;
let github: FakeGitHub;
let gitlab: FakeGitLab;
let dir: string;

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY, BETA_KEY], profile: 'deployed' });
  github = await startFakeGitHub();
  gitlab = await startFakeGitLab();
  dir = await mkdtemp(join(tmpdir(), 'sitesync-drift-'));
});
afterEach(async () => {
  await emu.close();
  await github.close();
  await gitlab.close();
  await rm(dir, { recursive: true, force: true });
});

/** A drift issue as both forges have it: GitHub's `body`, GitLab's `description`; closed means closed as completed. */
interface Issue {
  id: number;
  title: string;
  body: string;
  labels: string[];
  state: string;
  /** Opened by the token's bot (GitHub: a Bot user; GitLab: the project token's user). */
  byBot: boolean;
  /** What was said on it: GitHub's comments, GitLab's notes. */
  said: string[];
}

/** One forge as the drift tests see it: its fake, the CI environment pointed at it, and its words. */
interface Forge {
  name: 'GitHub' | 'GitLab';
  args: string[];
  token: string;
  /** The CI environment of run `id`, pointed at the fake. */
  env(id: string): Record<string, string>;
  /** The link to run `id` that an issue names. */
  runUrl(id: string): string;
  issueUrl(id: number): string;
  issues(): Issue[];
  requests(): Recorded[];
  clearIssues(): void;
  /** The one request of a run without marked issues: the listing. */
  listing: string;
  update(id: number): string;
  comment(id: number): string;
  /** The header that carries the token, and the value it must have. */
  tokenHeader: string;
  tokenValue: string;
  rateLimited: Failure;
  rateLimitSays: string;
  /** API calls of the drift found, the same drift, the accounts converged: 1 account, 30. */
  calls: Record<number, number[]>;
}

const FORGES: Forge[] = [
  {
    name: 'GitHub',
    args: [],
    token: GITHUB_TOKEN,
    env: (id) => actionsEnv(github, id),
    runUrl: RUN,
    issueUrl: (id) => `https://github.com/${REPO}/issues/${id}`,
    issues: () =>
      [...github.issues.values()]
        .sort((a, b) => a.number - b.number)
        .map((i) => ({
          id: i.number,
          title: i.title,
          body: i.body,
          labels: i.labels,
          state: i.state === 'closed' && i.state_reason !== 'completed' ? `closed as ${i.state_reason}` : i.state,
          byBot: i.user.type === 'Bot',
          said: github.comments(i.number).map((c) => c.body),
        })),
    requests: () => github.requests,
    clearIssues: () => github.issues.clear(),
    listing: `GET /repos/${REPO}/issues?labels=sitesync-drift&state=open&per_page=100`,
    update: (id) => `PATCH /repos/${REPO}/issues/${id}`,
    comment: (id) => `POST /repos/${REPO}/issues/${id}/comments`,
    tokenHeader: 'authorization',
    tokenValue: `Bearer ${GITHUB_TOKEN}`,
    rateLimited: { status: 403, body: { message: 'You have exceeded a secondary rate limit' }, headers: { 'retry-after': '1' } },
    rateLimitSays: "GitHub's API rate limit is used up: waiting 1 s, as it asks, to list the open \"sitesync-drift\" issues of octo/config",
    calls: { 1: [2, 1, 3], 30: [31, 1, 61] },
  },
  {
    name: 'GitLab',
    args: ['--provider', 'gitlab'],
    token: GITLAB_TOKEN,
    env: (id) => ({
      GITLAB_CI: 'true',
      CI_API_V4_URL: gitlab.api,
      CI_PROJECT_ID: PROJECT_ID,
      CI_PROJECT_URL: 'https://gitlab.example.com/octo/config',
      CI_JOB_URL: JOB(id),
      GITLAB_TOKEN,
    }),
    runUrl: JOB,
    issueUrl: (id) => `https://gitlab.example.com/octo/config/-/issues/${id}`,
    issues: () =>
      [...gitlab.issues.values()]
        .sort((a, b) => a.iid - b.iid)
        .map((i) => ({
          id: i.iid,
          title: i.title,
          body: i.description,
          labels: i.labels,
          state: i.state === 'opened' ? 'open' : i.state,
          byBot: i.author.username === BOT_USER,
          said: i.notes,
        })),
    requests: () => gitlab.requests,
    clearIssues: () => gitlab.issues.clear(),
    listing: `GET /api/v4/projects/${PROJECT_ID}/issues?labels=sitesync-drift&state=opened&per_page=100`,
    update: (id) => `PUT /api/v4/projects/${PROJECT_ID}/issues/${id}`,
    comment: (id) => `POST /api/v4/projects/${PROJECT_ID}/issues/${id}/notes`,
    tokenHeader: 'private-token',
    tokenValue: GITLAB_TOKEN,
    rateLimited: { status: 429, body: { message: 'Retry later' }, headers: { 'retry-after': '1' } },
    rateLimitSays: "GitLab's API rate limit is used up: waiting 1 s, as it asks",
    calls: { 1: [2, 2, 4], 30: [31, 2, 62] },
  },
];

async function driftOn(forge: Forge, args: string[] = [], env: Record<string, string> = {}): Promise<CliResult> {
  const r = await runCliHere(['ci', 'drift', ...forge.args, ...args], {
    cwd: dir,
    env: {
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      ACME_KEY: KEY,
      BETA_KEY,
      SHOP_PW: PASSWORD,
      ...forge.env('99'),
      ...env,
    },
  });
  for (const secret of [KEY, BETA_KEY, PASSWORD, forge.token]) expect(r.stdout + r.stderr).not.toContain(secret);
  return r;
}

describe.each(FORGES)('sitesync ci drift on $name', (forge) => {
  const drift = (args: string[] = [], env: Record<string, string> = {}) => driftOn(forge, args, env);
  const issues = () => forge.issues();
  const requests = () => forge.requests();

  it('no drift: no issue, exit 0, one request (the listing)', async () => {
    emu.seed(KEY, [{ domain: 'a.example.com' }]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const r = await drift();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No changes: the account matches the file.');
    expect(r.stdout).toContain('sitesync.yaml: no drift');
    expect(issues()).toEqual([]);
    expect(requests().map((q) => `${q.method} ${q.url}`)).toEqual([forge.listing]);
  });

  it('drift opens one issue; the same drift writes nothing; a new drift updates it in place; converged, it is commented on and closed', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const first = await drift();
    expect(first.code).toBe(2);
    expect(first.stdout).toContain('+ create a.example.com');
    const [issue] = issues();
    expect(issues()).toHaveLength(1);
    expect(first.stdout).toContain(`sitesync.yaml: drift; opened the issue: ${forge.issueUrl(issue!.id)}`);
    expect(issue).toMatchObject({ title: 'sitesync drift: sitesync.yaml', labels: ['sitesync-drift'], state: 'open', byBot: true });
    expect(issue!.body.split('\n')[0]).toBe('<!-- sitesync-drift: sitesync.yaml -->');
    expect(issue!.body).toContain('## Drift: the account differs from `sitesync.yaml`');
    expect(issue!.body).toContain(`_Found by [this run](${forge.runUrl('99')}) of \`sitesync ci drift\`._`);
    expect(issue!.body).toContain('| 🟢 create | `a.example.com` |');
    expect(issue!.body).not.toContain('<!-- sitesync-plan');

    // The same drift, found by the next night's run: nothing written, nobody notified.
    let seen = requests().length;
    const again = await drift([], forge.env('100'));
    expect(again.code).toBe(2);
    expect(again.stdout).toContain(`sitesync.yaml: drift; the issue is up to date: ${forge.issueUrl(issue!.id)}`);
    expect(writesSince(requests(), seen)).toEqual([]);
    expect(issues()[0]!.body).toContain(forge.runUrl('99'));

    // The drift changes: the same issue, its text replaced.
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['b.example.com']));
    seen = requests().length;
    const changed = await drift([], forge.env('101'));
    expect(changed.code).toBe(2);
    expect(writesSince(requests(), seen)).toEqual([forge.update(issue!.id)]);
    expect(issues()).toHaveLength(1);
    expect(issues()[0]!.body).toContain('`b.example.com`');
    expect(issues()[0]!.body).not.toContain('`a.example.com`');
    expect(issues()[0]!.body).toContain(forge.runUrl('101'));

    // Applied: the account converges, and the issue says so and closes.
    expect((await runCliHere(['apply', '--auto-approve'], { cwd: dir, env: { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY } })).code).toBe(0);
    seen = requests().length;
    const converged = await drift([], forge.env('102'));
    expect(converged.code).toBe(0);
    expect(converged.stdout).toContain(`sitesync.yaml: no drift; commented on and closed the issue: ${forge.issueUrl(issue!.id)}`);
    expect(writesSince(requests(), seen)).toEqual([forge.comment(issue!.id), forge.update(issue!.id)]);
    expect(issues()[0]!.said).toEqual([`The account equals \`sitesync.yaml\` again, as [this run](${forge.runUrl('102')}) of \`sitesync ci drift\` found: closing.\n`]);
    expect(issues()[0]!.state).toBe('closed');

    // Drift after that: a new issue (the closed one is history).
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com', 'b.example.com', 'c.example.com']));
    expect((await drift()).code).toBe(2);
    expect(issues().map((i) => i.state)).toEqual(['closed', 'open']);
  });

  it('nothing secret in any request: no key, no password, the token only in its header', async () => {
    emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 0 }]);
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: shop.example.com\n    privacy: password\n    password: ${SHOP_PW}\n');
    expect((await drift()).code).toBe(2);
    expect(issues()[0]!.body).toContain('(sensitive, from \\${SHOP_PW})');
    expect((await drift([], { SITESYNC_API_KEY: BETA_KEY })).code).toBe(2);
    expect((await drift([], { SITESYNC_API_KEY: 'sk-test-REVOKED-0123456789' })).code).toBe(1);
    expect(requests().length).toBeGreaterThanOrEqual(5);
    for (const request of requests()) {
      const { [forge.tokenHeader]: token, ...headers } = request.headers;
      expect(token).toBe(forge.tokenValue);
      const seen = JSON.stringify([request.url, headers, request.body]);
      for (const secret of [KEY, BETA_KEY, PASSWORD, GITHUB_TOKEN, GITLAB_TOKEN, 'sk-test-REVOKED']) expect(seen).not.toContain(secret);
    }
  });

  it('a rate limit is waited out when the forge says how long; the issue is still opened', async () => {
    (forge.name === 'GitHub' ? github : gitlab).failNext.push(forge.rateLimited);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const r = await drift();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(forge.rateLimitSays);
    expect(issues()).toHaveLength(1);
  });

  it('API calls per run, 1 and 30 drifted accounts: one listing, then one write per account whose issue changes', async () => {
    const figures = await callsPerRun({
      restart: async (keys) => {
        await emu.close();
        return (emu = await startEmulator({ keys, profile: 'deployed' }));
      },
      clearIssues: () => forge.clearIssues(),
      writeConfig: (text) => writeFile(join(dir, 'sitesync.yaml'), text),
      requests: () => requests().length,
      drift: (env) => drift([], env),
    });
    expect(figures).toEqual(forge.calls);
    expect(issues().map((i) => i.state)).toEqual(Array(30).fill('closed'));
    console.log(`${forge.name} API calls per run (drift opened / same drift / converged): 1 account ${figures[1]!.join(' / ')}, 30 accounts ${figures[30]!.join(' / ')}`);
  }, 120_000);
});

describe('sitesync ci drift on GitHub', () => {
  const drift = (args: string[] = [], env: Record<string, string> = {}) => driftOn(FORGES[0]!, args, env);
  /** The drift issues of the repository, oldest first. */
  const issues = () => [...github.issues.values()].sort((a, b) => a.number - b.number);

  it('a failed check opens or updates the issue to say so, which stays open; exit 1', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    expect((await drift()).code).toBe(2);
    const revoked = await drift([], { SITESYNC_API_KEY: 'sk-test-REVOKED-0123456789', GITHUB_RUN_ID: '100' });
    expect(revoked.code).toBe(1);
    expect(revoked.stdout).toContain('sitesync.yaml: the check failed; updated the issue');
    const [issue] = issues();
    expect(issues()).toHaveLength(1);
    expect(issue!.state).toBe('open');
    expect(issue!.body).toContain('## Drift check failed: the account of `sitesync.yaml`');
    expect(issue!.body).toContain('whether it drifted is not known');
    expect(issue!.body).toMatch(/> \[!CAUTION\]\n> .*(key|401)/);
    expect(issue!.body).not.toContain('sk-test-REVOKED');

    // The service down, on a first run: an issue is opened to say so.
    github.issues.clear();
    const down = await drift([], { SITESYNC_BASE_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(issues()).toHaveLength(1);
    expect(issues()[0]!.body).toContain('cannot connect to 127.0.0.1:9');
  });

  it("a person's issue with the marker is never edited, commented on or closed; the drift gets an issue of its own", async () => {
    const pasted = github.seedIssue({
      title: 'sitesync drift: sitesync.yaml',
      body: '<!-- sitesync-drift: sitesync.yaml -->\nI pasted the marker',
      labels: ['sitesync-drift'],
      user: { ...PERSON },
    });
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    expect((await drift()).code).toBe(2);
    emu.seed(KEY, [{ domain: 'a.example.com' }]);
    expect((await drift()).code).toBe(0);
    const touched = github.requests.filter((r) => r.method !== 'GET' && r.url.includes(`/issues/${pasted.number}`));
    expect(touched).toEqual([]);
    expect(github.issues.get(pasted.number)).toMatchObject({ state: 'open', body: '<!-- sitesync-drift: sitesync.yaml -->\nI pasted the marker' });
    const own = issues().filter((i) => i.number !== pasted.number);
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ state: 'closed', user: { type: 'Bot' } });
  });

  it('a pull request listed among the issues is not an issue', async () => {
    github.seedIssue({ body: '<!-- sitesync-drift: sitesync.yaml -->', labels: ['sitesync-drift'], pull_request: { url: 'x' } });
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    expect((await drift()).code).toBe(2);
    expect(github.writes()).toEqual([`POST /repos/${REPO}/issues`]);
  });

  it('two accounts drifting: two issues, each updated or closed on its own', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), twoAccounts(emu.url, ['a.acme.example'], ['b.beta.example']));
    const r = await drift();
    expect(r.code).toBe(2);
    expect(issues().map((i) => [i.title, i.body.split('\n')[0]])).toEqual([
      ['sitesync drift: acme', '<!-- sitesync-drift: sitesync.yaml#acme -->'],
      ['sitesync drift: beta', '<!-- sitesync-drift: sitesync.yaml#beta -->'],
    ]);
    expect(issues()[0]!.body).toContain('### Account `acme`: 1 to create');
    expect(issues()[0]!.body).not.toContain('beta.example');
    expect(issues()[1]!.body).toContain('## Drift: account `beta` differs from `sitesync.yaml`');

    emu.seed(KEY, [{ domain: 'a.acme.example' }]);
    const next = await drift();
    expect(next.code).toBe(2);
    expect(next.stdout).toMatch(/acme: no drift; commented on and closed the issue: .*\n {2}beta: drift; the issue is up to date/);
    expect(issues().map((i) => i.state)).toEqual(['closed', 'open']);

    // --account: only that account's issue is looked at.
    emu.seed(BETA_KEY, [{ domain: 'b.beta.example' }]);
    const seen = github.requests.length;
    expect((await drift(['--account', 'beta'])).code).toBe(0);
    expect(writesSince(github.requests, seen)).toEqual([`POST /repos/${REPO}/issues/${issues()[1]!.number}/comments`, `PATCH /repos/${REPO}/issues/${issues()[1]!.number}`]);
  });

  it('one account failing and one drifting: both issues say what they found; exit 1', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), twoAccounts(emu.url, ['a.acme.example'], ['b.beta.example']));
    const r = await drift([], { BETA_KEY: 'sk-test-WRONG-0123456789' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: 1 of 2 accounts could not be checked: beta');
    expect(issues().map((i) => i.body.split('\n')[1])).toEqual([
      '## Drift: account `acme` differs from `sitesync.yaml`',
      '## Drift check failed: account `beta` of `sitesync.yaml`',
    ]);
  });

  it('--quiet-days: the managed websites without a pageview in the window keep the issue open, named with their last day of traffic', async () => {
    const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    emu.seed(KEY, [
      { domain: 'busy.example.com', traffic: { [ago(1)]: 40 } },
      { domain: 'moved.example.com', traffic: { [ago(60)]: 900, [ago(20)]: 12 } },
      { domain: 'never.example.com', traffic: {} },
      { domain: 'unlisted.example.com', traffic: {} },
    ]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['busy.example.com', 'moved.example.com', 'never.example.com']));
    expect((await drift()).code).toBe(0);
    expect(emu.stats.log.filter((l) => l.path.startsWith('/api/v1/stats/'))).toEqual([]);

    emu.resetStats();
    const r = await drift(['--quiet-days', '14']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('No changes: the account matches the file.');
    expect(r.stdout).toContain(`Silent websites: no pageview in the last 14 days\n  sitesync.yaml: moved.example.com (last pageview ${ago(20)}), never.example.com (never a pageview)`);
    // One stats request per managed website; none for the unmanaged one.
    expect(emu.stats.log.filter((l) => l.path.startsWith('/api/v1/stats/'))).toHaveLength(3);
    const body = issues()[0]!.body;
    expect(body).toContain('## Drift: silent websites in the account of `sitesync.yaml`');
    expect(body).toContain('check that their pages still carry the tracking snippet');
    expect(body).toContain('### 2 silent websites: no pageview in the last 14 days');
    expect(body).toContain(`| \`moved.example.com\` | ${ago(20)} |`);
    expect(body).toContain('| `never.example.com` | never |');
    expect(body).not.toContain('busy.example.com');

    // The daily check, without --quiet-days, cannot see them: the issue keeps them, untouched.
    const seen = github.requests.length;
    const daily = await drift();
    expect(daily.code).toBe(2);
    expect(daily.stdout).toContain('Silent websites found by an earlier run with --quiet-days, not checked by this one, keep the issue of: sitesync.yaml');
    expect(daily.stdout).toContain('sitesync.yaml: drift; the issue is up to date');
    expect(writesSince(github.requests, seen)).toEqual([]);
    expect(emu.stats.log.filter((l) => l.path.startsWith('/api/v1/stats/'))).toHaveLength(3);

    // A week later the snippets are back: converged, closed.
    emu.addTraffic(KEY, 'moved.example.com', { [ago(0)]: 5 });
    emu.addTraffic(KEY, 'never.example.com', { [ago(0)]: 5 });
    const back = await drift(['--quiet-days', '14']);
    expect(back.code).toBe(0);
    expect(github.comments(issues()[0]!.number)[0]!.body).toContain('each of its managed websites recorded a pageview in the last 14 days');
  });

  it('--quiet-days watches the website the plan manages, not the left-alone twin, and names each as the file writes it (issue 39, item 7)', async () => {
    const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    emu.seed(KEY, [
      { domain: 'lumen-dental.com', traffic: { [ago(1)]: 40 } },
      // The second of a live pair, left alone by the plan: never a pageview, and none of the file's business.
      { domain: 'lumen-dental.com.', traffic: {} },
      { domain: 'bäckerei-harbor.de', traffic: { [ago(60)]: 9 } },
    ]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['lumen-dental.com', 'Bäckerei-Harbor.de']));
    const r = await drift(['--quiet-days', '14']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`Silent websites: no pageview in the last 14 days\n  sitesync.yaml: Bäckerei-Harbor.de (last pageview ${ago(60)})\n`);
    expect(r.stdout).not.toContain('xn--');
    const body = issues()[0]!.body;
    expect(body).toContain('### 1 silent website: no pageview in the last 14 days');
    expect(body).toContain(`| <code>Bäckerei-Harbor.de</code> | ${ago(60)} |`);
    expect(body).not.toContain('xn--');
    expect(body).not.toMatch(/\| `lumen-dental\.com\.?` \|/);
    // One stats request per managed website: the twin is not read.
    expect(emu.stats.log.filter((l) => l.path.startsWith('/api/v1/stats/'))).toHaveLength(2);
  });

  it('--quiet-days must be a whole number of days', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount([]));
    const r = await drift(['--quiet-days', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--quiet-days must be a whole number of days, 1 or more');
    expect(github.requests).toEqual([]);
  });

  it('--quiet-days 1000000000 is a usage error naming the flag and its range, not an internal error', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount([]));
    for (const days of ['1000000000', '36501']) {
      const r = await drift(['--quiet-days', days]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('--quiet-days must be a whole number of days, 1 or more and at most 36,500 (a hundred years)');
      expect(r.stderr).not.toContain('Internal error');
    }
    expect(github.requests).toEqual([]);
  });

  it('a plan cut at the limit stays within GitHub’s 65,536 characters and says where the rest is', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => `site-${String(i).padStart(4, '0')}.example.com`);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(many));
    expect((await drift()).code).toBe(2);
    const body = issues()[0]!.body;
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toMatch(/cut to keep this issue under 65,536 characters \(deletes are listed first, then updates, then creates: those cut are \d+ creates\)\. The run's log shows the whole plan/);
  });

  it('a label GitHub dropped (a token that may not set labels) is said, since the next run would not find the issue', async () => {
    github.dropLabels = true;
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const r = await drift();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('without the label sitesync-drift (the token may not set labels): the next run will not find it and opens another');
  });

  it('a token that cannot read issues: the plan is still printed, no issue touched, exit 1 with what to grant', async () => {
    github.fail.GET = { status: 403, body: { message: 'Resource not accessible by integration' } };
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const r = await drift();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('+ create a.example.com');
    expect(r.stderr).toContain('the drift issues could not be listed, so none was opened, updated or closed');
    expect(r.stderr).toContain('(403: Resource not accessible by integration): give the job `permissions: issues: read` or more');
  });

  it('without GITHUB_TOKEN it fails before any request, saying which permission to grant', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const r = await drift([], { GITHUB_TOKEN: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('GITHUB_TOKEN is not set');
    expect(r.stderr).toContain('`permissions: issues: write`');
    expect(emu.stats.log).toEqual([]);
  });
});

describe('sitesync ci drift on GitLab', () => {
  const drift = (args: string[] = [], env: Record<string, string> = {}) => driftOn(FORGES[1]!, args, env);
  const issues = () => [...gitlab.issues.values()].sort((a, b) => a.iid - b.iid);

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
});
