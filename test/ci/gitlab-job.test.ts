/**
 * The GitLab pipeline's jobs (examples/gitlab/.gitlab-ci.yml) run as GitLab's runner runs them:
 * a job's script lines in order in one shell that stops at the first failure, then its
 * after_script, in a git checkout of the default branch with the merge requests' heads on
 * `origin`, against the emulator and the fake GitLab API. `npx sitesync` is this build.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { bin, cleanEnv, root } from '../helpers/cli.js';
import { startCliServer, type CliServer } from '../helpers/cli-server.js';
import { GITLAB_TOKEN, PROJECT_ID, startFakeGitLab, type FakeGitLab } from './fake-gitlab.js';
import { startElsewhere } from './fake-github.js';
import { git, INCLUDED_PASSWORD_CHANGE } from './pull-request-repo.js';
import { code, html, startProxy, startSites, TEST_CA } from '../verify/sites.js';

const KEY = 'gitlab-job-test-key-0123456789';
const pipeline = parse(await readFile(join(root, 'examples/gitlab/.gitlab-ci.yml'), 'utf8')) as Record<string, { script: string[]; after_script?: string[] }>;

let emu: Emulator;
let gitlab: FakeGitLab;
let dir: string;
// `npx sitesync` runs the CLI in this process (cli-server.ts); one test runs the built bundle.
let cli: CliServer;
beforeAll(async () => {
  cli = await startCliServer();
});
afterAll(() => cli.close());

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY] });
  gitlab = await startFakeGitLab();
  dir = await mkdtemp(join(tmpdir(), 'sitesync-gitlab-job-'));
});
afterEach(async () => {
  await emu.close();
  await gitlab.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `lines` as the runner does: one bash script, stopping at the first failing line. */
function runLines(lines: string[], env: Record<string, string>, cwd = dir, sitesync = cli.bin): Promise<{ code: number | null; log: string }> {
  // `npx sitesync …` is this build's CLI, as npx finds it in an installed config repository.
  const npx = `npx() { if [ "$1" = sitesync ]; then shift; node ${JSON.stringify(sitesync)} "$@"; else command npx "$@"; fi; }`;
  const script = [npx, ...lines.map((line) => `${line}\n`)].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env: cleanEnv(env) });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, log }));
  });
}

/** A GitLab job's environment on the default branch, with the protected variables (keys, token). */
function defaultBranchVars(env: Record<string, string> = {}): Record<string, string> {
  return {
    GITLAB_CI: 'true',
    CI_API_V4_URL: gitlab.api,
    CI_PROJECT_ID: PROJECT_ID,
    CI_DEFAULT_BRANCH: 'main',
    CI_COMMIT_BRANCH: 'main',
    CI_PROJECT_URL: 'https://gitlab.example.com/group/config',
    CI_JOB_URL: 'https://gitlab.example.com/group/config/-/jobs/77',
    GITLAB_TOKEN,
    SITESYNC_BASE_URL: emu.url,
    SITESYNC_API_KEY: KEY,
    NO_COLOR: '1',
    ...env,
  };
}

const site = (domains: string[], extra = '') => `version: 1\n${extra}websites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`;

/**
 * The default branch's checkout in `dir` (a clone of origin), with each merge request's head on
 * origin as GitLab keeps it: refs/merge-requests/IID/head. Gives the origin's folder.
 */
async function openMergeRequests(base: Record<string, string>, heads: Record<number, Record<string, string>>): Promise<string> {
  for (const [path, text] of Object.entries(base)) await writeFile(join(dir, path), text);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  const origin = await mkdtemp(join(tmpdir(), 'sitesync-origin-'));
  git(dir, 'clone', '-q', '--bare', '.', origin);
  git(dir, 'remote', 'add', 'origin', origin);
  for (const [iid, change] of Object.entries(heads)) {
    git(dir, 'checkout', '-q', '-b', `mr-${iid}`, 'main');
    for (const [path, text] of Object.entries(change)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `mr ${iid}`);
    git(dir, 'push', '-q', 'origin', `HEAD:refs/merge-requests/${iid}/head`);
    gitlab.mergeRequests.set(Number(iid), { iid: Number(iid), title: `change ${iid}`, state: 'opened', target_branch: 'main', sha: git(dir, 'rev-parse', 'HEAD').trim() });
  }
  git(dir, 'checkout', '-q', 'main');
  return origin;
}

/** The job's own clone of the default branch, as the runner makes it (apart from the developers' repository in `dir`). */
async function jobCheckout(origin: string): Promise<string> {
  const job = await mkdtemp(join(tmpdir(), 'sitesync-gitlab-checkout-'));
  git(job, 'clone', '-q', '--branch', 'main', origin, '.');
  return job;
}

/**
 * A job's run is real git work as the runner's: a repository and a bare origin built, a clone per
 * job, a fetch per merge request (and a git bomb's trees written), a dozen git processes or more
 * a test, 3 to 10 s of CPU quiet. Beside a second suite on two cores, that is minutes.
 */
const GIT_JOBS = { timeout: 180_000 };

describe("the GitLab merge requests' plans (sitesync-plan-open, on the default branch)", GIT_JOBS, () => {
  const job = () => pipeline['sitesync-plan-open']!;

  it("plans each open merge request's files as data against the default branch's copy, keeps each one's note, and says why one cannot be planned", async () => {
    const elsewhere = await startElsewhere();
    emu.seed(KEY, [{ domain: 'a.example.com' }]);
    const base = { 'sitesync.yaml': site(['a.example.com'], `api:\n  base_url: ${emu.url}\n`) };
    const origin = await openMergeRequests(base, {
      // A website added; its package.json would run a hook if anything of it were installed.
      1: { 'sitesync.yaml': site(['a.example.com', 'b.example.com'], `api:\n  base_url: ${emu.url}\n`), 'package.json': '{"scripts":{"prepare":"touch PWNED"}}' },
      // The key sent elsewhere: refused before any request.
      2: { 'sitesync.yaml': site(['a.example.com'], `api:\n  base_url: ${elsewhere.url}\n`) },
      // Nothing of the config: left alone.
      3: { 'README.md': 'docs\n' },
    });
    // A person's note with the marker is never the one updated.
    gitlab.seed(1, [{ body: '<!-- sitesync-plan -->\nlooks fine to me', author: { username: 'mallory' } }]);
    const checkout = await jobCheckout(origin);
    try {
      const r = await runLines(job().script, defaultBranchVars({ SITESYNC_BASE_URL: '' }), checkout);
      expect(r.code, r.log).toBe(1);
      expect(r.log).toContain('3 open merge requests into main.');
      expect(r.log).toMatch(/!1 change 1 \([0-9a-f]{12}\): changes; posted the note: https:\/\/gitlab\.example\.com\/group\/config\/-\/merge_requests\/1#note_\d+/);
      expect(r.log).toContain("!3 change 3");
      expect(r.log).toContain("its config files are the default branch's; not planned");
      expect(r.log).toContain('Planned 1 of 3 (1 with the default branch\'s config files, left alone); 1 failed.');
      const [person, note] = gitlab.notes(1);
      expect(person!.body).toBe('<!-- sitesync-plan -->\nlooks fine to me');
      expect(note!.body).toMatch(/^<!-- sitesync-plan -->\n/);
      expect(note!.body).toContain('`b.example.com`');
      expect(note!.body).toMatch(/The files of !1 at `[0-9a-f]{12}`, planned by the default branch's pipeline/);
      // What the plan approves ends the note, for the apply after the merge.
      expect(note!.body).toMatch(/_\n<!-- sitesync-approved: \{[^\n]+\} -->\n$/);
      const refused = gitlab.notes(2)[0]!.body;
      expect(refused).toContain('### sitesync plan failed');
      expect(refused).toContain("- sitesync.yaml: api.base_url differs from the trusted config's (main:sitesync.yaml)");
      expect(refused).not.toContain(tmpdir());
      expect(gitlab.notes(3)).toEqual([]);
      expect(elsewhere.requests).toEqual([]);
      // Nothing was written to the service, and nothing of a merge request ran.
      expect(emu.websites(KEY).map((w) => w.domain)).toEqual(['a.example.com']);
      expect(existsSync(join(checkout, 'PWNED'))).toBe(false);
      // Few calls: the list, who the token is, then per planned merge request its notes and one write.
      expect(gitlab.requests.map((q) => `${q.method} ${q.url.split('?')[0]}`).sort()).toEqual([
        `GET /api/v4/projects/${PROJECT_ID}/merge_requests`,
        `GET /api/v4/projects/${PROJECT_ID}/merge_requests/1/notes`,
        `GET /api/v4/projects/${PROJECT_ID}/merge_requests/2/notes`,
        'GET /api/v4/user',
        `POST /api/v4/projects/${PROJECT_ID}/merge_requests/1/notes`,
        `POST /api/v4/projects/${PROJECT_ID}/merge_requests/2/notes`,
      ]);
      expect(JSON.stringify(gitlab.requests) + r.log).not.toContain(KEY);

      // The next run updates nothing that did not change: no write, nobody notified.
      const before = gitlab.writes().length;
      const again = await runLines(job().script, defaultBranchVars({ SITESYNC_BASE_URL: '' }), checkout);
      expect(again.log).toContain('!1 change 1');
      expect(again.log).toContain('the note is up to date');
      expect(gitlab.writes()).toHaveLength(before);
    } finally {
      await elsewhere.close();
      await rm(origin, { recursive: true, force: true });
      await rm(checkout, { recursive: true, force: true });
    }
  });

  it("compares with the default branch's files, the ones it includes too: a password changed in an included file is shown, never its value", async () => {
    const { base, change, env: secrets, live } = INCLUDED_PASSWORD_CHANGE;
    emu.seed(KEY, [live]);
    await mkdir(join(dir, 'sites'));
    const origin = await openMergeRequests(base, { 4: change });
    const checkout = await jobCheckout(origin);
    try {
      const r = await runLines(job().script, defaultBranchVars(secrets), checkout);
      expect(r.log).not.toContain('matches no file');
      expect(r.code, r.log).toBe(0);
      expect(gitlab.notes(4)[0]!.body).toMatch(/update \| `a\.example\.com`[^\n]*password/);
      expect(JSON.stringify(gitlab.requests) + r.log).not.toContain('new-secret-2');
      // The merge request's tree went outside the checkout: nothing new in it.
      expect(git(checkout, 'status', '--porcelain')).toBe('');
    } finally {
      await rm(origin, { recursive: true, force: true });
      await rm(checkout, { recursive: true, force: true });
    }
  });

  it("plans the merge request's files as they are merged, read from git's objects: its .gitattributes cannot hide an included file (export-ignore) or rewrite one (export-subst), and nothing of it is unpacked", async () => {
    emu.seed(KEY, [{ domain: 'a.example.com' }]);
    await mkdir(join(dir, 'sites'));
    const base = { 'sitesync.yaml': 'version: 1\ninclude: [sites/*.yaml]\nwebsites: []\n', 'sites/a.yaml': 'websites:\n  - domain: a.example.com\n' };
    const origin = await openMergeRequests(base, {
      5: {
        // git archive leaves out what .gitattributes marks export-ignore, and expands $Format:…$ in export-subst files: the merge does neither.
        '.gitattributes': 'sites/hidden.yaml export-ignore\nsites/a.yaml export-subst\n',
        'sites/hidden.yaml': 'websites:\n  - domain: hidden.example.com\n',
        'sites/a.yaml': 'websites:\n  - domain: a.example.com\n    exclude_params: ["$Format:%H$"]\n',
      },
    });
    const checkout = await jobCheckout(origin);
    const scratch = await mkdtemp(join(tmpdir(), 'sitesync-job-tmp-'));
    try {
      const r = await runLines(job().script, defaultBranchVars({ TMPDIR: scratch }), checkout);
      expect(r.code, r.log).toBe(0);
      const note = gitlab.notes(5)[0]!.body;
      expect(note).toContain('🟢 create | `hidden.example.com`');
      expect(JSON.stringify(gitlab.requests) + r.log).not.toContain(KEY);
      expect(note).toContain('\\$Format:%H\\$ _(write-only');
      // Nothing of the merge request was written to disk.
      expect(await readdir(scratch)).toEqual([]);
    } finally {
      await rm(origin, { recursive: true, force: true });
      await rm(checkout, { recursive: true, force: true });
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('a merge request of a git bomb (a billion files from a push of kilobytes) or of a huge file costs the job seconds: its note says why, the others are planned', async () => {
    const base = { 'sitesync.yaml': site(['a.example.com']) };
    const origin = await openMergeRequests(base, { 1: { 'sitesync.yaml': site(['a.example.com', 'b.example.com']) } });
    // Trees that hold one tree ten times, nine levels deep: git archive | tar would write 10^9 files.
    const commit = (entries: string) => {
      const tree = execFileSync('git', ['mktree'], { cwd: dir, input: entries, encoding: 'utf8' }).trim();
      return git(dir, 'commit-tree', tree, '-p', 'main', '-m', 'bomb').trim();
    };
    const blob = (text: string) => execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: text, encoding: 'utf8' }).trim();
    let tree = execFileSync('git', ['mktree'], { cwd: dir, input: Array.from({ length: 10 }, (_, i) => `100644 blob ${blob('x\n')}\tf${i}\n`).join(''), encoding: 'utf8' }).trim();
    for (let level = 0; level < 8; level++) {
      tree = execFileSync('git', ['mktree'], { cwd: dir, input: Array.from({ length: 10 }, (_, i) => `040000 tree ${tree}\td${i}\n`).join(''), encoding: 'utf8' }).trim();
    }
    const config = blob(site(['a.example.com', 'c.example.com']));
    const bomb = commit(`100644 blob ${config}\tsitesync.yaml\n040000 tree ${tree}\tdocs\n`);
    // A config of 20 MiB (a few KB in git): never read, by its size alone.
    const huge = commit(`100644 blob ${blob(`${site(['a.example.com'])}#${' '.repeat(20 * 1024 * 1024)}\n`)}\tsitesync.yaml\n`);
    for (const [iid, sha] of [[6, bomb], [7, huge]] as const) {
      git(dir, 'push', '-q', origin, `${sha}:refs/merge-requests/${iid}/head`);
      gitlab.mergeRequests.set(iid, { iid, title: `change ${iid}`, state: 'opened', target_branch: 'main', sha });
    }
    const checkout = await jobCheckout(origin);
    try {
      const r = await runLines(job().script, defaultBranchVars(), checkout);
      expect(r.code).toBe(1);
      expect(r.log).toMatch(/!1 change 1 \([0-9a-f]{12}\): changes; posted the note/);
      expect(gitlab.notes(6)[0]!.body).toMatch(/- the tree at !6 \([0-9a-f]{12}\) holds more than 1,000,000 files, more than any repository of configs: sitesync reads none of it/);
      expect(gitlab.notes(7)[0]!.body).toMatch(/- sitesync\.yaml: the file is 20\.0 MiB at !7 \([0-9a-f]{12}\); a config file may be at most 16 MiB/);
      expect(JSON.stringify(gitlab.requests) + r.log).not.toContain(KEY);
    } finally {
      await rm(origin, { recursive: true, force: true });
      await rm(checkout, { recursive: true, force: true });
    }
  });

  it("a merge request whose head cannot be fetched gets a note saying so; the others are still planned", async () => {
    const base = { 'sitesync.yaml': site(['a.example.com']) };
    const origin = await openMergeRequests(base, { 1: { 'sitesync.yaml': site(['a.example.com', 'b.example.com']) } });
    gitlab.mergeRequests.set(9, { iid: 9, title: 'gone', state: 'opened', target_branch: 'main', sha: 'f'.repeat(40) });
    const checkout = await jobCheckout(origin);
    try {
      const r = await runLines(job().script, defaultBranchVars(), checkout);
      expect(r.code).toBe(1);
      expect(r.log).toMatch(/!1 change 1 \([0-9a-f]{12}\): changes; posted the note/);
      expect(r.log).toContain('!9 gone: could not be planned; posted the note');
      expect(gitlab.notes(9)[0]!.body).toContain('its head (refs/merge-requests/9/head) could not be fetched');
    } finally {
      await rm(origin, { recursive: true, force: true });
      await rm(checkout, { recursive: true, force: true });
    }
  });

  it('refuses to run anywhere but the default branch, whose config is the trusted copy', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), site(['a.example.com']));
    // The built bundle, as npx runs it.
    const r = await runLines(job().script, defaultBranchVars({ CI_COMMIT_BRANCH: 'feature' }), dir, bin);
    expect(r.code).toBe(1);
    expect(r.log).toContain('ci plan-open runs on the default branch (main), whose config is the trusted copy; this pipeline is on feature');
    expect(gitlab.requests).toEqual([]);
    expect(emu.stats.requests).toBe(0);
  });
});

describe('the GitLab apply job after a merge', GIT_JOBS, () => {
  /** Runs a job as the runner does: its script, then its after_script with the job's status. */
  async function runJob(name: string, vars: Record<string, string>, cwd: string) {
    const job = pipeline[name]!;
    const script = await runLines(job.script, vars, cwd);
    const after = await runLines(job.after_script ?? [], { ...vars, CI_JOB_STATUS: script.code === 0 ? 'success' : 'failed' }, cwd);
    return { code: script.code, log: script.log + after.log };
  }

  it('a rotated password the merge request showed is sent (baseline: the commit before the push), and its note says "as approved"', async () => {
    const PW = { PW_OLD: 'old-password-1', PW_NEW: 'new-password-2' };
    const shop = (name: string) => `version: 1\n# The variables its passwords may read, as the default branch allows them.\npassword_env: [PW_*]\nwebsites:\n  - domain: shop.example.com\n    privacy: password\n    password: \${${name}}\n`;
    emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 2, email: 0, exclude_bots: 1, password: PW.PW_OLD }]);
    const origin = await openMergeRequests({ 'sitesync.yaml': shop('PW_OLD') }, { 3: { 'sitesync.yaml': shop('PW_NEW') } });
    const scheduled = await jobCheckout(origin);
    let pushed: string | undefined;
    try {
      // Planned on the default branch, as the schedule does; then merged.
      const planned = await runLines(pipeline['sitesync-plan-open']!.script, defaultBranchVars(PW), scheduled);
      expect(planned.code, planned.log).toBe(0);
      expect(gitlab.notes(3)[0]!.body).toMatch(/update \| `shop\.example\.com`[^\n]*password/);
      const before = git(dir, 'rev-parse', 'main').trim();
      git(dir, 'merge', '-q', '--no-ff', '-m', 'Merge branch mr-3', 'mr-3');
      const merge = git(dir, 'rev-parse', 'HEAD').trim();
      git(dir, 'push', '-q', 'origin', 'main');
      Object.assign(gitlab.mergeRequests.get(3)!, { state: 'merged', merge_commit_sha: merge });
      // The push's pipeline: a shallow clone of the merge commit, as GitLab makes it; the job fetches the commit before.
      pushed = await mkdtemp(join(tmpdir(), 'sitesync-gitlab-checkout-'));
      git(pushed, 'clone', '-q', '--depth=1', '--branch', 'main', `file://${origin}`, '.');
      const r = await runJob('sitesync-apply', defaultBranchVars({ ...PW, CI_PIPELINE_SOURCE: 'push', CI_COMMIT_SHA: merge, CI_COMMIT_BEFORE_SHA: before }), pushed);
      expect(r.code, r.log).toBe(0);
      expect(emu.websites(KEY)[0]!.password).toBe(PW.PW_NEW);
      const result = gitlab.notes(3).at(-1)!.body;
      expect(result).toContain('**As approved**: the plan applied is the one approved in `approved.md` (1 change).');
      expect(JSON.stringify(gitlab.requests) + r.log + planned.log).not.toMatch(/old-password-1|new-password-2/);
    } finally {
      await rm(origin, { recursive: true, force: true });
      await rm(scheduled, { recursive: true, force: true });
      if (pushed) await rm(pushed, { recursive: true, force: true });
    }
  });

  it('the push that created the default branch (no commit before it: all zeros) applies without a baseline, and says so', async () => {
    const origin = await openMergeRequests({ 'sitesync.yaml': site(['first.example.com']) }, {});
    const pushed = await jobCheckout(origin);
    try {
      const r = await runJob('sitesync-apply', defaultBranchVars({ CI_PIPELINE_SOURCE: 'push', CI_COMMIT_SHA: git(pushed, 'rev-parse', 'HEAD').trim(), CI_COMMIT_BEFORE_SHA: '0'.repeat(40) }), pushed);
      expect(r.code, r.log).toBe(0);
      expect(r.log).toContain('this push created the branch: no commit before it, so no baseline');
      expect(emu.websites(KEY).map((w) => w.domain)).toEqual(['first.example.com']);
    } finally {
      await rm(origin, { recursive: true, force: true });
      await rm(pushed, { recursive: true, force: true });
    }
  });
});

describe('the GitLab drift job', () => {
  // The recipe verifies the managed websites' pages (--verify): quiet.example.com is served on
  // loopback with the installation's tracking code, reached through a proxy as behind a runner's.
  const run = async (env: Record<string, string> = {}) => {
    const sites = await startSites({ 'quiet.example.com': html(code(emu.url)) });
    const proxy = await startProxy(sites);
    try {
      // The built bundle as a process: the test CA is trusted through NODE_EXTRA_CA_CERTS, which Node reads as it starts.
      return await runLines(pipeline['sitesync-drift']!.script, {
      GITLAB_CI: 'true',
      CI_API_V4_URL: gitlab.api,
      CI_PROJECT_ID: PROJECT_ID,
      CI_PIPELINE_SOURCE: 'schedule',
      CI_JOB_URL: 'https://gitlab.example.com/group/config/-/jobs/78',
      GITLAB_TOKEN,
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      NO_COLOR: '1',
      NODE_EXTRA_CA_CERTS: TEST_CA,
      HTTPS_PROXY: proxy.url,
      ...env,
    }, dir, bin);
    } finally {
      await proxy.close();
      await sites.close();
    }
  };

  it('opens the drift issue with exit 2 (allowed: a warning); the weekly schedule also names the silent websites, which the daily one keeps', async () => {
    emu.seed(KEY, [{ domain: 'quiet.example.com', traffic: {} }]);
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: quiet.example.com\n');
    const daily = await run();
    expect(daily.code).toBe(0);
    expect(gitlab.issues.size).toBe(0);
    const weekly = await run({ SITESYNC_QUIET_DAYS: '7' });
    expect(weekly.code).toBe(2);
    expect(weekly.log).toContain('quiet.example.com (never a pageview)');
    const [issue] = [...gitlab.issues.values()];
    expect(issue!.description).toContain('| `quiet.example.com` | never |');
    const before = gitlab.writes().length;
    expect((await run()).code).toBe(2);
    expect(gitlab.writes()).toHaveLength(before);
    expect(JSON.stringify(gitlab.requests)).not.toContain(KEY);
  });
});
