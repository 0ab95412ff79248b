/**
 * The GitLab pipeline's merge-request job (examples/gitlab/.gitlab-ci.yml, `sitesync-plan`) run
 * as GitLab's runner runs it: its script lines in order in one shell that stops at the first
 * failure, then its after_script, in a git checkout of the merge request with the target branch
 * on `origin`, against the emulator and the fake GitLab API. `npx sitesync` is this build.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { bin, cleanEnv, root } from '../helpers/cli.js';
import { GITLAB_TOKEN, PROJECT_ID, startFakeGitLab, type FakeGitLab } from './fake-gitlab.js';
import { git, INCLUDED_PASSWORD_CHANGE, pullRequestCheckout } from './pull-request-repo.js';

const KEY = 'gitlab-job-test-key-0123456789';
const pipeline = parse(await readFile(join(root, 'examples/gitlab/.gitlab-ci.yml'), 'utf8')) as Record<string, { script: string[]; after_script?: string[] }>;

let emu: Emulator;
let gitlab: FakeGitLab;
let dir: string;

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
function runLines(lines: string[], env: Record<string, string>): Promise<{ code: number | null; log: string }> {
  // `npx sitesync …` is this build's CLI, as npx finds it in an installed config repository.
  const npx = `npx() { if [ "$1" = sitesync ]; then shift; node ${JSON.stringify(bin)} "$@"; else command npx "$@"; fi; }`;
  const script = [npx, ...lines.map((line) => `${line}\n`)].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: dir, env: cleanEnv(env) });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, log }));
  });
}

async function runPlanJob(env: Record<string, string>) {
  const job = pipeline['sitesync-plan']!;
  const vars = {
    GITLAB_CI: 'true',
    CI_API_V4_URL: gitlab.api,
    CI_PROJECT_ID: PROJECT_ID,
    CI_MERGE_REQUEST_PROJECT_ID: PROJECT_ID,
    CI_MERGE_REQUEST_IID: '3',
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_PROJECT_URL: 'https://gitlab.example.com/group/config',
    CI_JOB_URL: 'https://gitlab.example.com/group/config/-/jobs/77',
    GITLAB_TOKEN,
    SITESYNC_BASE_URL: emu.url,
    SITESYNC_API_KEY: KEY,
    NO_COLOR: '1',
    ...env,
  };
  const script = await runLines(job.script, vars);
  const after = await runLines(job.after_script ?? [], { ...vars, CI_JOB_STATUS: script.code === 0 ? 'success' : 'failed' });
  return { code: script.code, log: script.log + after.log };
}

describe('the GitLab merge-request job', () => {
  it("plans against the target branch's files, the ones it includes too: a password changed in an included file is sent, and the note says so", async () => {
    const { base, change, env: secrets, live } = INCLUDED_PASSWORD_CHANGE;
    emu.seed(KEY, [live]);
    const origin = await pullRequestCheckout(dir, base, change);
    try {
      const r = await runPlanJob(secrets);
      expect(r.log).not.toContain('matches no file');
      expect(r.code).toBe(0);
      const saved = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8'));
      expect(saved.changes).toEqual([expect.objectContaining({ action: 'update', domain: 'a.example.com', fields: ['password'] })]);
      expect(saved.changes[0].details[0]).toMatchObject({ field: 'password', write_only: 'baseline' });
      expect(gitlab.writes()).toEqual([`POST /api/v4/projects/${PROJECT_ID}/merge_requests/3/notes`]);
      expect(gitlab.notes(3)[0]!.body).toMatch(/update \| `a\.example\.com`[^\n]*password/);
      expect(JSON.stringify(gitlab.requests) + r.log).not.toContain('new-secret-2');
      // The target branch's tree went outside the checkout: nothing new in it but the job's outputs.
      expect(git(dir, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual(['?? plan.json', '?? plan.md']);
    } finally {
      await rm(origin, { recursive: true, force: true });
    }
  });
});

describe('the GitLab drift job', () => {
  const run = (env: Record<string, string> = {}) =>
    runLines(pipeline['sitesync-drift']!.script, {
      GITLAB_CI: 'true',
      CI_API_V4_URL: gitlab.api,
      CI_PROJECT_ID: PROJECT_ID,
      CI_PIPELINE_SOURCE: 'schedule',
      CI_JOB_URL: 'https://gitlab.example.com/group/config/-/jobs/78',
      GITLAB_TOKEN,
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      NO_COLOR: '1',
      ...env,
    });

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
