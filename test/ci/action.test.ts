/**
 * The GitHub Action (action.yml) run as the runner runs a composite action: each step's shell
 * script with its `${{ … }}` expressions filled in, `bash -e -o pipefail`, GITHUB_OUTPUT a file,
 * against the emulator and the fake GitHub API.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { MARKER } from '../../src/render/markdown.js';
import { cleanEnv, root } from '../helpers/cli.js';
import { BOT, GITHUB_TOKEN, REPO, startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { INCLUDED_PASSWORD_CHANGE, pullRequestCheckout } from './pull-request-repo.js';

const KEY = 'action-test-key-0123456789';
const SHA = 'a'.repeat(40);
const action = parse(await readFile(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ name: string; id?: string; run: string; shell: string; env?: Record<string, string>; 'working-directory'?: string }> };
};

let emu: Emulator;
let github: FakeGitHub;
let dir: string;

beforeEach(async () => {
  emu = await startEmulator({ keys: [{ key: KEY, websiteLimit: 3 }] });
  github = await startFakeGitHub();
  dir = await mkdtemp(join(tmpdir(), 'sitesync-action-'));
  await writeFile(join(dir, 'pr-event.json'), JSON.stringify({ pull_request: { number: 7 } }));
  await writeFile(join(dir, 'push-event.json'), JSON.stringify({ after: SHA }));
});
afterEach(async () => {
  await emu.close();
  await github.close();
  await rm(dir, { recursive: true, force: true });
});

const config = (domains: string[]) => `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`;

/** Fills `${{ inputs.x }}`, `${{ github.token }}`, `${{ inputs.command }}` as the runner would. */
function fill(text: string, inputs: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (expr.startsWith('inputs.')) return inputs[expr.slice('inputs.'.length)] ?? '';
    if (expr === 'github.token') return GITHUB_TOKEN;
    throw new Error(`action.yml uses an expression this test does not know: ${expr}`);
  });
}

interface ActionRun {
  code: number | null;
  log: string;
  outputs: Record<string, string>;
}

async function runAction(given: Record<string, string>, event: 'pr-event.json' | 'push-event.json', extraEnv: Record<string, string> = {}): Promise<ActionRun> {
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) inputs[name] = given[name] ?? fill(spec.default ?? '', {});
  const output = join(dir, `output-${Math.random()}`);
  await writeFile(output, '');
  let log = '';
  for (const step of action.runs.steps) {
    const env = cleanEnv({
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: root,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
      RUNNER_TEMP: dir,
      GITHUB_API_URL: github.url,
      GITHUB_REPOSITORY: REPO,
      GITHUB_EVENT_PATH: join(dir, event),
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_RUN_ID: '99',
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      NO_COLOR: '1',
      ...extraEnv,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, fill(v, inputs)])),
    });
    const cwd = join(dir, fill(step['working-directory'] ?? '.', inputs));
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', fill(step.run, inputs)], { cwd, env });
      child.stdout.on('data', (d: Buffer) => (log += d.toString()));
      child.stderr.on('data', (d: Buffer) => (log += d.toString()));
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) return { code, log, outputs: await outputsOf(output) };
  }
  return { code: 0, log, outputs: await outputsOf(output) };
}

async function outputsOf(file: string): Promise<Record<string, string>> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

describe('the GitHub Action', () => {
  it('is a composite action with the documented inputs and outputs', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual(['args', 'command', 'comment', 'config', 'github-token', 'working-directory']);
    expect(Object.keys(action.outputs).sort()).toEqual(['exitcode', 'has_changes', 'plan-json']);
  });

  it('plan posts the plan comment, then updates the same comment on the next push', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    const first = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json');
    expect(first.code).toBe(0);
    expect(first.outputs).toMatchObject({ exitcode: '2', has_changes: 'true' });
    const saved = JSON.parse(await readFile(first.outputs['plan-json']!, 'utf8'));
    expect(saved.summary.create).toBe(1);
    expect(github.comments(7)).toHaveLength(1);
    expect(github.comments(7)[0]!.body).toContain('🟢 create | `a.example.com`');
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('a.example.com');

    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com', 'b.example.com']));
    const second = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json');
    expect(second.code).toBe(0);
    expect(github.writes()).toEqual([`POST /repos/${REPO}/issues/7/comments`, `PATCH /repos/${REPO}/issues/comments/${github.comments(7)[0]!.id}`]);
    expect(github.comments(7)[0]!.body).toContain('`b.example.com`');
    expect(first.log + second.log).not.toContain(KEY);
  });

  it("validate, as a fork's pull request runs it: no secrets needed, an unset ${NAME} is a warning on its line", async () => {
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: ${SHOP_PW}\n');
    const r = await runAction({ command: 'validate' }, 'pr-event.json');
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ exitcode: '0' });
    expect(r.log).toContain('::warning file=sitesync.yaml,line=5,col=15::websites[0].password: environment variable SHOP_PW is not set');
  });

  it('a pull request whose file fails validate turns the comment into "plan failed" and fails the check', async () => {
    github.seed(7, [{ body: `${MARKER}\n### sitesync plan: 1 to create, 0 to update, 0 to delete`, user: { ...BOT } }]);
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: secret\n');
    const r = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json');
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ exitcode: '1', has_changes: 'false', 'plan-json': '' });
    // The problem is annotated on its line of the pull request.
    expect(r.log).toContain('::error file=sitesync.yaml,line=4,col=14::websites[0].privacy must be public, private or password');
    expect(github.comments(7)).toHaveLength(1);
    expect(github.comments(7)[0]!.body).toContain('### sitesync plan failed');
    expect(github.comments(7)[0]!.body).toContain('https://github.com/octo/config/actions/runs/99');
  });

  it.each(['', 'stats'])(
    "plan in a pull request compares with the base branch's files, the ones it includes too: a password changed in an included file is sent (working directory %j)",
    async (folder) => {
      const { base, change, env: secrets, live } = INCLUDED_PASSWORD_CHANGE;
      const inFolder = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([path, text]) => [join(folder, path), text]));
      emu.seed(KEY, [live]);
      const origin = await pullRequestCheckout(dir, inFolder(base), inFolder(change));
      onTestFinished(() => rm(origin, { recursive: true, force: true }));
      const env = { GITHUB_BASE_REF: 'main', ...secrets };
      const r = await runAction({ command: 'plan', comment: 'true', 'working-directory': folder || '.' }, 'pr-event.json', env);
      expect(r.log).not.toContain('matches no file');
      expect(r.code).toBe(0);
      expect(r.outputs).toMatchObject({ exitcode: '2', has_changes: 'true' });
      const saved = JSON.parse(await readFile(r.outputs['plan-json']!, 'utf8'));
      expect(saved.changes).toEqual([expect.objectContaining({ action: 'update', domain: 'a.example.com', fields: ['password'] })]);
      expect(saved.changes[0].details[0]).toMatchObject({ field: 'password', write_only: 'baseline' });
      expect(JSON.stringify(github.comments(7)) + r.log).not.toContain('new-secret-2');
    },
  );

  it('a plan that apply would refuse (over the website limit) fails the check, with the reason in the comment', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com', 'b.example.com', 'c.example.com', 'd.example.com']));
    const r = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json');
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ exitcode: '1', has_changes: 'true' });
    const body = github.comments(7)[0]!.body;
    expect(body).toContain("the account's plan allows 3 websites; after this plan it would hold 4 (0 now): apply will refuse");
    expect(body).toContain('🟢 create | `d.example.com`');
  });

  it('apply after a merge applies, and posts its result on the merged pull request', async () => {
    github.pullsOfCommit.set(SHA, [{ number: 7, merge_commit_sha: SHA }]);
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    const r = await runAction({ command: 'apply', comment: 'true' }, 'push-event.json');
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ exitcode: '0', has_changes: 'false' });
    expect(emu.websites(KEY).map((w) => w.domain)).toEqual(['a.example.com']);
    expect(github.comments(7)).toHaveLength(1);
    expect(github.comments(7)[0]!.body).toContain('### sitesync apply: done');
    expect(github.comments(7)[0]!.body).toContain('Applied: 1 created, 0 updated, 0 deleted, 0 failed.');
  });

  it('drift: exit 0 and a green step when the account matches; exit 2 and a failed step when it drifted', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    const drifted = await runAction({ command: 'drift', args: "--target '*.example.com'" }, 'push-event.json');
    expect(drifted.code).toBe(1);
    expect(drifted.outputs).toMatchObject({ exitcode: '2', has_changes: 'true' });
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain('The account has drifted from sitesync.yaml');
    await runAction({ command: 'apply' }, 'push-event.json');
    const clean = await runAction({ command: 'drift' }, 'push-event.json');
    expect(clean.code).toBe(0);
    expect(clean.outputs).toMatchObject({ exitcode: '0', has_changes: 'false' });
    expect(github.writes()).toEqual([]);
  });
});
