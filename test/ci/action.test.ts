/** The GitHub Action (action.yml), its steps run as the runner runs them (run-action.ts), against the emulator and the fake GitHub API. */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { MARKER } from '../../src/render/markdown.js';
import { parse } from 'yaml';
import { root } from '../helpers/cli.js';
import { writes } from '../helpers/scenario.js';
import { BOT, GITHUB_TOKEN, REPO, startElsewhere, startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { git, INCLUDED_PASSWORD_CHANGE, pullRequestCheckout } from './pull-request-repo.js';
import { action, runAction as run, UPLOADS, type ActionRun, type Runner } from './run-action.js';
import { startCliServer, type CliServer } from '../helpers/cli-server.js';

const KEY = 'action-test-key-0123456789';
const SHA = 'a'.repeat(40);
let emu: Emulator;
let github: FakeGitHub;
let dir: string;
// The action's `node $GITHUB_ACTION_PATH/bin/sitesync.cjs` runs the CLI in this process (cli-server.ts); one test runs the built bundle.
let cli: CliServer;
beforeAll(async () => {
  cli = await startCliServer();
});
afterAll(() => cli.close());
/** The runner: the workspace (`dir` unless given), the fake GitHub, and the action's CLI in this process. */
const runner = (workspace: string = dir): Runner => ({ dir: workspace, githubApi: github.url, actionPath: cli.dir });

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

function runAction(given: Record<string, string>, event: 'pr-event.json' | 'push-event.json', extraEnv: Record<string, string | undefined> = {}, actionPath = cli.dir): Promise<ActionRun> {
  return run({ ...runner(), actionPath }, given, event, { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY, ...extraEnv });
}

describe('the GitHub Action', () => {
  it('is a composite action with the documented inputs and outputs', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual([
      'args',
      'baseline-ref',
      'command',
      'comment',
      'config',
      'github-token',
      'issue',
      'require-approved',
      'trusted-config',
      'working-directory',
    ]);
    expect(Object.keys(action.outputs).sort()).toEqual(['archive-artifact', 'archive-dir', 'exitcode', 'has_changes', 'plan-json']);
  });

  // The first run is the action as checked out, its CLI the built bundle in processes of its own
  // (five to eight Node start-ups): past 30 s on a machine busy with a second suite.
  it('plan posts the plan comment, then updates the same comment on the next push', { timeout: 120_000 }, async () => {
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    // The first run with the action as checked out: its bundle built, the CLI a process of its own.
    const first = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json', {}, root);
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
    expect(github.comments(7)[0]!.body).toContain('| 1 | 0 | 0 | 0 | done |');
    // Nothing deleted, nothing archived: no artifact.
    expect(r.outputs['archive-dir']).toBe('');
    expect(existsSync(join(dir, UPLOADS))).toBe(false);
  });

  it('apply that archives before deleting uploads the archives as an artifact and names it in the comment', async () => {
    github.pullsOfCommit.set(SHA, [{ number: 7, merge_commit_sha: SHA }]);
    emu.seed(KEY, [{ domain: 'old.example.com', traffic: { '2024-03-01': 120 } }]);
    await writeFile(join(dir, 'sitesync.yaml'), `version: 1\nprune: true\narchive: history/deleted\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: a.example.com\n`);
    const r = await runAction({ command: 'apply', comment: 'true' }, 'push-event.json');
    expect(r.code, r.log).toBe(0);
    expect(r.outputs['archive-artifact']).toBe('sitesync-archive');
    const day = new Date().toISOString().slice(0, 10);
    // By their paths from the repository's top, as the comment names them.
    const uploaded = await readdir(join(dir, UPLOADS, 'sitesync-archive'), { recursive: true });
    expect(uploaded.sort()).toEqual(['history', 'history/deleted', `history/deleted/old.example.com-1-${day}.csv`, `history/deleted/old.example.com-1-${day}.json`]);
    expect(JSON.parse(await readFile(join(dir, UPLOADS, 'sitesync-archive', `history/deleted/old.example.com-1-${day}.json`), 'utf8')).totals).toEqual({ pageviews: 120, visitors: 40 });
    const body = github.comments(7)[0]!.body;
    expect(body).toContain(`- \`old.example.com\` (id 1): \`history/deleted/old.example.com-1-${day}.json\` and its \`.csv\``);
    expect(body).toContain('The archives are in the artifact `sitesync-archive` of this run');
    expect(body + r.log).not.toContain(KEY);
  });

  it('an archive written beside a taken name (DOMAIN-ID-DATE-2.json) is uploaded too; the file that took the name is not, and nothing is flattened', async () => {
    github.pullsOfCommit.set(SHA, [{ number: 7, merge_commit_sha: SHA }]);
    emu.seed(KEY, [{ domain: 'old.example.com', traffic: { '2024-03-01': 120 } }]);
    const day = new Date().toISOString().slice(0, 10);
    await writeFile(join(dir, 'sitesync.yaml'), `version: 1\nprune: true\narchive: history/deleted\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: a.example.com\n`);
    // The name taken before the run (a link a pull request committed, or another installation's archive of that day).
    await mkdir(join(dir, 'history/deleted'), { recursive: true });
    for (const ext of ['json', 'csv']) await writeFile(join(dir, 'history/deleted', `old.example.com-1-${day}.${ext}`), 'taken\n');
    const past = new Date(Date.now() - 3_600_000);
    for (const ext of ['json', 'csv']) await utimes(join(dir, 'history/deleted', `old.example.com-1-${day}.${ext}`), past, past);
    const r = await runAction({ command: 'apply', comment: 'true' }, 'push-event.json');
    expect(r.code, r.log).toBe(0);
    const uploaded = await readdir(join(dir, UPLOADS, 'sitesync-archive', 'history/deleted'));
    expect(uploaded.sort()).toEqual([`old.example.com-1-${day}-2.csv`, `old.example.com-1-${day}-2.json`]);
    expect(github.comments(7)[0]!.body).toContain(`\`history/deleted/old.example.com-1-${day}-2.json\``);
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

  it('drift with issue: true keeps the drift issue: drift opens it and passes the step, a converged account closes it, a failed check fails the step', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    const drifted = await runAction({ command: 'drift', issue: 'true', args: '--quiet-days 7' }, 'push-event.json');
    expect(drifted.code).toBe(0);
    expect(drifted.outputs).toMatchObject({ exitcode: '2' });
    expect(drifted.log).toContain('::notice title=sitesync drift::an account differs from sitesync.yaml: see its sitesync-drift issue');
    expect(drifted.log).toContain(`sitesync.yaml: drift; opened the issue: https://github.com/${REPO}/issues/`);
    const [issue] = [...github.issues.values()];
    expect(issue).toMatchObject({ title: 'sitesync drift: sitesync.yaml', labels: ['sitesync-drift'], state: 'open' });
    expect(issue!.body).toContain(`[this run](https://github.com/${REPO}/actions/runs/99)`);

    const failed = await runAction({ command: 'drift', issue: 'true' }, 'push-event.json', { SITESYNC_API_KEY: 'sk-test-REVOKED-0123456789' });
    expect(failed.code).toBe(1);
    expect(failed.outputs).toMatchObject({ exitcode: '1' });
    expect(issue!.body).toContain('## Drift check failed');

    await runAction({ command: 'apply' }, 'push-event.json');
    const clean = await runAction({ command: 'drift', issue: 'true' }, 'push-event.json');
    expect(clean.code).toBe(0);
    expect(clean.outputs).toMatchObject({ exitcode: '0' });
    expect(issue).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect(drifted.log + failed.log + clean.log).not.toContain(KEY);
  });
});

describe('the GitHub Action with a file with accounts', () => {
  const ACME = 'sk-test-ACME-action-0123456789';
  const BETA = 'sk-test-BETA-action-0123456789';
  const accounts = (url: string, betaSafety = '') =>
    [
      'version: 1',
      'accounts:',
      '  acme:',
      `    base_url: ${url}`,
      '    api_key_env: ACME_KEY',
      '    websites:',
      '      - domain: acme.example.com',
      '  beta:',
      `    base_url: ${url}`,
      '    api_key_env: BETA_KEY',
      '    prune: true',
      ...(betaSafety ? [`    safety: ${betaSafety}`] : []),
      '    websites:',
      '      - domain: beta.example.com',
      '',
    ].join('\n');

  it('plan: has_changes and exitcode from the one JSON shape, and one comment with a section per account', async () => {
    const agency = await startEmulator({ keys: [ACME, BETA] });
    onTestFinished(() => agency.close());
    await writeFile(join(dir, 'sitesync.yaml'), accounts(agency.url));
    const r = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json', { SITESYNC_BASE_URL: undefined, SITESYNC_API_KEY: undefined, ACME_KEY: ACME, BETA_KEY: BETA });
    expect(r.log).not.toContain('TypeError');
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ exitcode: '2', has_changes: 'true' });
    const body = github.comments(7)[0]!.body;
    expect(body).toContain('### sitesync plan, 2 accounts: 2 to create, 0 to update, 0 to delete');
    expect(body).toContain('### Account `acme`');
    expect(body).toContain('### Account `beta`');
    expect(r.log + body).not.toMatch(new RegExp(`${ACME}|${BETA}`));
  });

  it("apply: the comment names each account with its counts and the total, and an account refused by its safety check says why", async () => {
    const agency = await startEmulator({ keys: [ACME, BETA] });
    onTestFinished(() => agency.close());
    agency.seed(BETA, [{ domain: 'old1.beta.example.com' }, { domain: 'old2.beta.example.com' }]);
    github.pullsOfCommit.set(SHA, [{ number: 7, merge_commit_sha: SHA }]);
    await writeFile(join(dir, 'sitesync.yaml'), accounts(agency.url, '{ max_delete_percent: 10, min_existing: 1 }'));
    const r = await runAction({ command: 'apply', comment: 'true' }, 'push-event.json', { SITESYNC_BASE_URL: undefined, SITESYNC_API_KEY: undefined, ACME_KEY: ACME, BETA_KEY: BETA });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ exitcode: '1' });
    const body = github.comments(7)[0]!.body;
    expect(body).toContain('### sitesync apply: failed');
    expect(body).toContain('| `acme` | 1 | 0 | 0 | 0 | done |');
    expect(body).toContain('| `beta` | 0 | 0 | 0 | 0 | **not applied** |');
    expect(body).toContain('- `beta`: not applied: refusing to delete 2 of 2 managed websites, 100 % &gt; 10 %; nothing was written\n  - Check the file and the plan; pass --force');
    expect(body).toContain('**Total for 2 accounts: 1 created, 0 updated, 0 deleted, 0 failed.**');
    // One item per line: nothing runs together.
    expect(body.split('\n').filter((l) => l.startsWith('| `')).length).toBe(2);
  });
});

describe('the GitHub Action in pull requests it must not plan with the keys', () => {
  it('a pull request without a key is validated, and the comment says why it was not planned', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    const r = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json', { SITESYNC_API_KEY: '' });
    expect(r.code).toBe(0);
    expect(r.outputs).toMatchObject({ exitcode: '0', has_changes: 'false', 'plan-json': '' });
    expect(github.comments(7)[0]!.body).toContain('### sitesync plan: not run');
    expect(github.comments(7)[0]!.body).toContain('this run has no API key: is the job in the environment that holds the keys (environment: sitesync)');
    expect(emu.stats.requests).toBe(0);
  });

  it("a pull request that moves an account's base_url is refused before any request: the key never reaches the new host", async () => {
    const elsewhere = await startElsewhere();
    onTestFinished(() => elsewhere.close());
    const base = { 'sitesync.yaml': `version: 1\napi:\n  base_url: ${emu.url}\nwebsites:\n  - domain: a.example.com\n` };
    const change = { 'sitesync.yaml': `version: 1\napi:\n  base_url: ${elsewhere.url}\nwebsites:\n  - domain: a.example.com\n` };
    const origin = await pullRequestCheckout(dir, base, change);
    onTestFinished(() => rm(origin, { recursive: true, force: true }));
    const r = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json', { GITHUB_BASE_REF: 'main', SITESYNC_BASE_URL: '' });
    expect(r.code).toBe(1);
    expect(r.log).toContain("sitesync.yaml: api.base_url differs from the trusted config's");
    expect(github.comments(7)[0]!.body).toContain('### sitesync plan failed');
    expect(elsewhere.requests).toEqual([]);
    expect(emu.stats.requests).toBe(0);
  });

  it('a pull request that adds the config file, which the base branch does not have yet, is validated, not planned', async () => {
    const origin = await pullRequestCheckout(dir, { 'README.md': 'config\n' }, { 'sitesync.yaml': config(['a.example.com']) });
    onTestFinished(() => rm(origin, { recursive: true, force: true }));
    const r = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json', { GITHUB_BASE_REF: 'main' });
    expect(r.code).toBe(0);
    expect(github.comments(7)[0]!.body).toContain('the base branch (main) has no sitesync.yaml yet, so nothing says where its keys may be sent');
    expect(emu.stats.requests).toBe(0);
  });

  it('validate from a working-directory annotates paths from the repository top, where GitHub puts them', async () => {
    await mkdir(join(dir, 'stats'));
    await writeFile(join(dir, 'stats/sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: secret\n');
    const r = await runAction({ command: 'validate', 'working-directory': 'stats' }, 'pr-event.json');
    expect(r.code).toBe(1);
    expect(r.log).toContain('::error file=stats/sitesync.yaml,line=4,col=14::');
  });
});

type RecipeStep = { run?: string; uses?: string; id?: string; env?: Record<string, string>; with?: Record<string, string | boolean> };
const recipe = (name: string) => parse(readFileSync(join(root, `examples/github/${name}`), 'utf8')) as { jobs: Record<string, { steps: RecipeStep[] }> };

/**
 * actions/checkout as the recipe's `with:` asks: `path`, `ref` (default: the default branch's
 * latest commit, as pull_request_target gives it), fetched with `token` (a header on the one
 * fetch) and kept in the folder's git config only when `persist-credentials` is not false.
 */
function checkout(origin: string, options: Record<string, string | boolean>, workspace: string): void {
  const folder = join(workspace, String(options.path ?? '.'));
  mkdirSync(folder, { recursive: true });
  const token = options.token === '${{ github.token }}' ? GITHUB_TOKEN : String(options.token ?? GITHUB_TOKEN);
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  git(folder, 'init', '-q');
  git(folder, 'remote', 'add', 'origin', origin);
  git(folder, '-c', `http.extraheader=${header}`, 'fetch', '-q', '--no-tags', '--depth=1', 'origin', String(options.ref ?? 'main'));
  git(folder, 'checkout', '-q', '--detach', 'FETCH_HEAD');
  if (options['persist-credentials'] !== false) git(folder, 'config', 'http.extraheader', header);
}

describe('the plan recipe: pull_request_target for every pull request, its files as data', () => {
  const steps = recipe('sitesync-plan.yml').jobs.plan!.steps;
  let workspace: string;
  beforeEach(async () => {
    workspace = join(dir, 'workspace');
    await mkdir(workspace);
  });

  /**
   * The recipe's steps as the runner runs them for pull request #7: the pull request's head is on
   * origin as refs/pull/7/head (a fork's is only there; a branch of this repository's is also a
   * branch), each checkout as its `with:` says, then the action with the recipe's inputs.
   */
  async function runRecipe(base: Record<string, string>, change: Record<string, string>, env: Record<string, string | undefined>, fork: boolean) {
    const origin = await pullRequestCheckout(dir, base, change);
    onTestFinished(() => rm(origin, { recursive: true, force: true }));
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    git(dir, 'push', '-q', 'origin', `${head}:refs/pull/7/head`);
    if (!fork) git(dir, 'push', '-q', 'origin', 'change');
    const event = {
      pull_request: { number: 7, head: { sha: head, repo: { full_name: fork ? 'someone/config' : REPO, fork: false } }, base: { ref: 'main' } },
    };
    await writeFile(join(workspace, 'event.json'), JSON.stringify(event));
    for (const step of steps.filter((s) => s.uses?.startsWith('actions/checkout@'))) {
      const options = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, v === '${{ github.event.pull_request.head.sha }}' ? head : v]));
      checkout(origin, options, workspace);
    }
    const plan = steps.find((s) => s.uses?.startsWith('OWNER/sitesync@'))!;
    const inputs = Object.fromEntries(Object.entries(plan.with!).map(([k, v]) => [k, String(v).replace('${{ github.workspace }}', workspace)]));
    return run(runner(workspace), inputs, 'event.json', { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY, GITHUB_BASE_REF: 'main', ...env });
  }

  it.each([
    ['a same-repository pull request', false],
    ["a fork's pull request", true],
  ])("%s: planned with the keys against the default branch's copy, its digest in the comment, nothing of it run, the checkout's token not kept", async (_name, fork) => {
    const base = { 'sitesync.yaml': config(['a.example.com']) };
    // A hook the pull request ships would run if its tree were installed or built: it never is.
    const change = { 'sitesync.yaml': config(['a.example.com', 'b.example.com']), 'package.json': '{"scripts":{"prepare":"touch PWNED"}}' };
    const r = await runRecipe(base, change, {}, fork);
    expect(r.code, r.log).toBe(0);
    expect(r.outputs).toMatchObject({ exitcode: '2', has_changes: 'true' });
    const body = github.comments(7)[0]!.body;
    expect(body).toContain('🟢 create | `b.example.com`');
    // The digest of the changes, hidden, that the apply after the merge compares with.
    expect(body).toMatch(/<!-- sitesync-approved: [\s\S]+?-->/);
    expect(existsSync(join(workspace, 'PWNED')) || existsSync(join(workspace, 'pull-request/PWNED'))).toBe(false);
    // The token fetched the pull request's files and was not kept in their folder.
    for (const folder of ['trusted', 'pull-request']) expect(readFileSync(join(workspace, folder, '.git/config'), 'utf8')).not.toContain('extraheader');
    expect(r.log).not.toContain(KEY);
    expect(r.log).not.toContain(GITHUB_TOKEN);
  });

  it("refuses a pull request that points an account's key elsewhere, before any request", async () => {
    const elsewhere = await startElsewhere();
    onTestFinished(() => elsewhere.close());
    const accountsFile = (url: string, env: string) => `version: 1\naccounts:\n  acme:\n    base_url: ${url}\n    api_key_env: ${env}\n    websites:\n      - domain: a.example.com\n`;
    const r = await runRecipe(
      { 'sitesync.yaml': accountsFile(emu.url, 'ACME_KEY') },
      { 'sitesync.yaml': accountsFile(elsewhere.url, 'GITHUB_TOKEN') },
      { ACME_KEY: KEY, SITESYNC_API_KEY: undefined, SITESYNC_BASE_URL: undefined },
      true,
    );
    expect(r.code).toBe(1);
    expect(r.log).toContain("account acme: base_url differs from the trusted config's");
    expect(r.log).toContain("account acme: api_key_env differs from the trusted config's");
    expect(elsewhere.requests).toEqual([]);
    expect(emu.stats.requests).toBe(0);
    expect(r.log + JSON.stringify(github.requests)).not.toContain(KEY);
  });

  it("a run without keys (Dependabot's) is validated only, and the comment says why", async () => {
    const r = await runRecipe({ 'sitesync.yaml': config(['a.example.com']) }, { 'sitesync.yaml': config(['b.example.com']) }, { SITESYNC_API_KEY: '', GITHUB_ACTOR: 'dependabot[bot]' }, false);
    expect(r.code, r.log).toBe(0);
    expect(github.comments(7)[0]!.body).toContain("this run has no API key: Dependabot's pull requests get Dependabot's secrets, not the environment's");
    expect(emu.stats.requests).toBe(0);
  });
});

describe('the apply recipe after a merge: what the pull request showed is what is applied, and the comment says so', () => {
  const apply = recipe('sitesync-apply.yml').jobs.apply!.steps.find((s) => s.uses?.startsWith('OWNER/sitesync@'))!;
  const shop = (password: string) => `version: 1\n# The variables its passwords may read, as the default branch allows them.\npassword_env: [PW_*]\nwebsites:\n  - domain: shop.example.com\n    privacy: password\n    password: \${${password}}\n`;
  const PASSWORDS = { PW_OLD: 'old-password-1', PW_NEW: 'new-password-2' };

  /**
   * Pull request #7 changes sitesync.yaml from `base` to `change`: planned as the plan recipe
   * plans it (the comment posted), then merged: main's checkout at the merge commit, and the
   * push's payload with `before` the commit before it. Gives the apply recipe's run.
   */
  async function planMergeApply(base: string, change: string, between?: () => void, extra: Record<string, string> = {}) {
    const origin = await pullRequestCheckout(dir, { 'sitesync.yaml': base }, { 'sitesync.yaml': change });
    onTestFinished(() => rm(origin, { recursive: true, force: true }));
    const planned = await runAction({ command: 'plan', comment: 'true' }, 'pr-event.json', { GITHUB_BASE_REF: 'main', ...PASSWORDS });
    expect(planned.code, planned.log).toBe(0);
    between?.();
    const before = git(dir, 'rev-parse', 'main').trim();
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #7', 'change');
    const merge = git(dir, 'rev-parse', 'HEAD').trim();
    github.pullsOfCommit.set(merge, [{ number: 7, merge_commit_sha: merge }]);
    await writeFile(join(dir, 'merge-event.json'), JSON.stringify({ after: merge, before }));
    const inputs = { ...Object.fromEntries(Object.entries(apply.with!).map(([k, v]) => [k, String(v)])), comment: 'true', ...extra };
    delete (inputs as Record<string, string>)['baseline-ref']; // the action's default: the push's before
    return run(runner(), inputs, 'merge-event.json', { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY, ...PASSWORDS });
  }

  const applyComment = () => github.comments(7).find((c) => c.body.includes('sitesync apply'))!.body;

  it('a rotated password the pull request showed is sent, and the comment says "as approved"', async () => {
    emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 2, email: 0, exclude_bots: 1, password: PASSWORDS.PW_OLD }]);
    const r = await planMergeApply(shop('PW_OLD'), shop('PW_NEW'));
    expect(r.code, r.log).toBe(0);
    expect(github.comments(7)[0]!.body).toMatch(/update \| `shop\.example\.com`[^\n]*password/);
    expect(emu.websites(KEY)[0]!.password).toBe(PASSWORDS.PW_NEW);
    expect(applyComment()).toContain("**As approved**: the plan applied is the one approved in the merged pull request's plan comment (1 change).");
    expect(JSON.stringify(github.requests) + r.log).not.toMatch(/old-password-1|new-password-2/);
  });

  it('a change at the service between the plan and the merge: the comment names what differs and why, and require-approved writes nothing', async () => {
    emu.seed(KEY, [{ domain: 'a.example.com' }]);
    // Someone created b.example.com by hand after the plan that creates it.
    const drift = () => {
      emu.seed(KEY, [{ domain: 'b.example.com' }]);
      emu.resetStats();
    };
    const r = await planMergeApply(config(['a.example.com']), config(['a.example.com', 'b.example.com']), drift, { 'require-approved': 'true' });
    expect(r.code).toBe(1);
    const body = applyComment();
    expect(body).toContain('### sitesync apply: failed');
    expect(body).toContain("**Not as approved**: 1 difference from the plan approved in the merged pull request's plan comment, changed at the service since the plan:");
    expect(body).toContain('> - missing: create `b.example.com`');
    expect(emu.websites(KEY).map((w) => w.domain).sort()).toEqual(['a.example.com', 'b.example.com']);
    expect(writes(emu)).toEqual([]);
  });

  it("the plan comment edited by a person after the plan (a writer may edit any comment: here hiding a create) is no approval: require-approved writes nothing, and says why", async () => {
    emu.seed(KEY, [{ domain: 'a.example.com' }]);
    const doctor = () => {
      const comment = github.comments(7)[0]!;
      // The visible plan without b.example.com; the hidden block left as the bot wrote it.
      github.edit(7, comment.id, comment.body.split('\n').filter((line) => line.startsWith('<!-- sitesync-approved:') || !line.includes('b.example.com')).join('\n'), 'mallory');
    };
    const r = await planMergeApply(config(['a.example.com']), config(['a.example.com', 'b.example.com']), doctor, { 'require-approved': 'true' });
    expect(r.code).toBe(1);
    expect(r.log).toContain("pull request #7 of octo/config: its sitesync plan comment was last edited by mallory, not by this token's user (github-actions[bot]): it is not the plan sitesync posted");
    expect(applyComment()).toContain('### sitesync apply: not applied');
    expect(emu.websites(KEY).map((w) => w.domain)).toEqual(['a.example.com']);
    expect(writes(emu)).toEqual([]);
  });

  it('a push that merged no pull request with a plan comment, under require-approved: nothing is written, and the log says why', async () => {
    github.seed(7, [{ body: '<!-- sitesync-plan -->\n### sitesync plan: pasted by a person', user: { login: 'mallory', type: 'User' } }]);
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    github.pullsOfCommit.set(SHA, [{ number: 7, merge_commit_sha: SHA }]);
    const r = await runAction({ command: 'apply', comment: 'true', 'require-approved': 'true', 'baseline-ref': '' }, 'push-event.json');
    expect(r.code).toBe(1);
    expect(emu.websites(KEY)).toEqual([]);
    const body = github.comments(7).at(-1)!.body;
    expect(body).toContain('### sitesync apply: not applied');
    expect(body).toContain('has no sitesync plan comment written by this token');
  });
});

describe('the apply run by hand (workflow_dispatch): its baseline-ref input is a writer\'s', () => {
  it('a baseline-ref that is an option of git (--upload-pack=COMMAND) never reaches git; sitesync refuses it, and nothing is written', async () => {
    const origin = await pullRequestCheckout(dir, { 'sitesync.yaml': config(['a.example.com']) }, { 'README.md': 'docs\n' });
    onTestFinished(() => rm(origin, { recursive: true, force: true }));
    git(dir, 'checkout', '-q', 'main');
    await writeFile(join(dir, 'dispatch-event.json'), JSON.stringify({ inputs: { 'baseline-ref': '--upload-pack=touch PWNED;true' } }));
    const r = await run(runner(), { command: 'apply', 'baseline-ref': '--upload-pack=touch PWNED;true' }, 'dispatch-event.json', {
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      GITHUB_EVENT_NAME: 'workflow_dispatch',
    });
    // git fetch … origin "--upload-pack=…" would run the command (over a local or ssh remote).
    expect(existsSync(join(dir, 'PWNED'))).toBe(false);
    expect(r.code).toBe(1);
    expect(r.log).toContain('--baseline-ref "--upload-pack=touch PWNED;true" is not a name of a git revision');
    expect(writes(emu)).toEqual([]);
  });
});

describe('the action applies a saved plan of another job', () => {
  it('apply with args: plan.json (the artifact of the plan job) applies exactly that plan', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), config(['a.example.com']));
    const planned = await runAction({ command: 'plan' }, 'pr-event.json');
    expect(planned.outputs).toMatchObject({ exitcode: '2', has_changes: 'true' });
    // The artifact, downloaded into the apply job's checkout.
    await writeFile(join(dir, 'plan.json'), await readFile(planned.outputs['plan-json']!, 'utf8'));
    const applied = await runAction({ command: 'apply', args: 'plan.json' }, 'push-event.json');
    expect(applied.code, applied.log).toBe(0);
    expect(applied.log).toContain('Applied: 1 created, 0 updated, 0 deleted, 0 failed.');
    expect(emu.websites(KEY).map((w) => w.domain)).toEqual(['a.example.com']);
  });
});
