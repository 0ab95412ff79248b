/**
 * The CI recipes under examples/ cannot rot: every sitesync invocation in them uses commands and
 * flags the CLI has, and each workflow keeps the structure that makes it safe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { root, runCli } from '../helpers/cli.js';
import { CliSurface, invocationsIn, sitesyncCalls, tokenize, type Invocation } from './recipe-lint.js';

const examples = join(root, 'examples');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

// The recipes: every YAML file of examples/ but the config files (sitesync.yaml and the agency example's).
const files = yamlFiles(examples).filter((f) => !f.endsWith('sitesync.yaml') && !f.includes('/accounts/'));
const surface = new CliSurface();

function load(name: string): { doc: any; text: string; invocations: Invocation[] } {
  const text = readFileSync(join(examples, name), 'utf8');
  return { doc: parse(text), text, invocations: invocationsIn(text, name).invocations };
}

/** Each invocation as one line, for readable assertions. */
const lines = (invs: Invocation[]) => invs.map((i) => `sitesync ${i.args.map((w) => w.text).join(' ')}`);

type Step = { name?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, unknown> };
const steps = (doc: any, job: string): Step[] => doc.jobs[job].steps;
const stepRunning = (doc: any, job: string, text: string) => steps(doc, job).find((s) => s.run?.includes(text));

describe('the recipe lint', () => {
  it('finds the recipes: four GitHub workflows and the GitLab file', () => {
    expect(files.map((f) => relative(examples, f)).sort()).toEqual([
      'github/sitesync-apply.yml',
      'github/sitesync-drift.yml',
      'github/sitesync-plan-forks.yml',
      'github/sitesync-plan.yml',
      'gitlab/.gitlab-ci.yml',
    ]);
  });

  it('every sitesync invocation in every recipe uses commands and flags that exist', async () => {
    const problems: string[] = [];
    let count = 0;
    for (const file of files) {
      const found = invocationsIn(readFileSync(file, 'utf8'), relative(examples, file));
      problems.push(...found.problems.map((p) => `${p.where}: ${p.message}`));
      // The GitHub workflows run sitesync through the action (checked below); the rest call it.
      if (!file.includes('/github/')) expect(found.invocations.length, file).toBeGreaterThan(0);
      count += found.invocations.length;
      for (const inv of found.invocations) problems.push(...(await surface.lint(inv)).map((p) => `${p.where}: ${p.message}`));
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(5);
  });

  it('reports a bogus flag, an unknown command, a wrong choice and a stray argument', async () => {
    const yaml = `jobs:
  x:
    steps:
      - run: npx sitesync plan --format markdown --bogus-flag > plan.md
      - run: |
          npx sitesync plna
          npx sitesync plan --format html
          npx --yes sitesync apply plan.json extra --auto-approve
          npx sitesync ci --file plan.md
          sitesync validate --no-verbose --no-config
          echo "npx sitesync plan --not-checked-inside-quotes"
          echo sitesync plan
`;
    const { invocations, problems } = invocationsIn(yaml, 'synthetic.yml');
    expect(problems.map((p) => p.message)).toEqual([
      '"echo sitesync plan" is not recognised as a sitesync invocation; write it as `npx sitesync …`',
    ]);
    const found = (await Promise.all(invocations.map((i) => surface.lint(i)))).flat().map((p) => p.message);
    expect(found).toEqual([
      'no flag --bogus-flag for "sitesync plan"',
      'no command "sitesync plna" (there are: validate, fmt, plan, apply, export, archive, import, account, show, emulator, ci, completion)',
      '--format html: not one of text, markdown, json',
      '"sitesync apply" takes 1 argument(s), given 2',
      '"sitesync ci" needs a command: comment, summary, drift',
      'no flag --no-config for "sitesync validate"',
    ]);
  });

  it('reads shell as CI writes it: continuations, expressions, quotes, redirects, if blocks', () => {
    const script = [
      'if git cat-file -e "origin/${GITHUB_BASE_REF}:sitesync.yaml" 2>/dev/null; then',
      '  npx sitesync plan --format markdown \\',
      '    --baseline "$RUNNER_TEMP/baseline.yaml" 2>&1 > plan.md && echo ok',
      'else VAR=1 npx sitesync ci comment --pr ${{ github.event.number }} --file "plan (1).md"; fi',
      'x=$(npx sitesync plan --format json | jq .summary) # sitesync in a comment',
    ].join('\n');
    expect(sitesyncCalls(script).calls.map((c) => c.map((w) => w.text).join(' '))).toEqual([
      'plan --format markdown --baseline $RUNNER_TEMP/baseline.yaml',
      'ci comment --pr ${{ github.event.number }} --file plan (1).md',
    ]);
    // Inside $(…) is a script of its own, unchecked here; the recipes keep sitesync outside it.
    expect(tokenize('x=$(a b)').length).toBe(1);
  });
});

const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> };
const ACTION_COMMANDS = ['plan', 'apply', 'drift', 'validate'];
const SITESYNC_ACTION = /^OWNER\/sitesync@[0-9a-f]{40}$/;
const usesOf = (doc: any, job: string) => steps(doc, job).filter((s) => s.uses);
const actionSteps = (doc: any, job: string) => steps(doc, job).filter((s) => s.uses && SITESYNC_ACTION.test(s.uses));

describe('the GitHub workflows', () => {
  const names = ['sitesync-plan.yml', 'sitesync-plan-forks.yml', 'sitesync-apply.yml', 'sitesync-drift.yml'];

  it.each(names)('%s: every action pinned by a full commit SHA, with its tag in a comment', (name) => {
    const { doc, text } = load(`github/${name}`);
    for (const step of usesOf(doc, Object.keys(doc.jobs)[0]!)) {
      expect(step.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
      const line = text.split('\n').find((l) => l.includes(step.uses!))!;
      // Third-party actions: their tag; sitesync (no tags yet): its package version.
      expect(line).toMatch(SITESYNC_ACTION.test(step.uses!) ? /@[0-9a-f]{40} # sitesync \d+\.\d+\.\d+\b/ : /@[0-9a-f]{40} # v\d+(\.\d+)*\b/);
    }
  });

  it.each(names)('%s: Node 20 (the floor is 20.19; 20 resolves to the newest 20.x), the action with inputs it has, secrets only through env', (name) => {
    const { doc } = load(`github/${name}`);
    for (const job of Object.keys(doc.jobs)) {
      const all = steps(doc, job);
      expect(all[0]!.uses).toMatch(/^actions\/checkout@/);
      expect(all[1]).toMatchObject({ uses: expect.stringMatching(/^actions\/setup-node@/), with: { 'node-version': 20 } });
      const runs = actionSteps(doc, job);
      expect(runs.length).toBeGreaterThan(0);
      for (const step of runs) {
        expect(Object.keys(step.with ?? {}).filter((k) => !(k in action.inputs))).toEqual([]);
        expect(ACTION_COMMANDS).toContain(step.with?.command);
        for (const value of Object.values(step.with ?? {})) expect(String(value)).not.toMatch(/secrets\./);
      }
      for (const step of all) expect(step.run ?? '').not.toMatch(/secrets\.|SITESYNC_API_KEY|GITHUB_TOKEN|set -x|printenv/);
    }
  });

  it('the plan workflow: pull requests touching the config, the plan comment, forks only validated, the full plan kept', () => {
    const { doc } = load('github/sitesync-plan.yml');
    expect(doc.on.pull_request.paths).toContain('sitesync.yaml');
    expect(doc.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    const [validate, plan] = actionSteps(doc, 'plan');
    expect(validate).toMatchObject({ with: { command: 'validate' }, if: '${{ github.event.pull_request.head.repo.fork }}' });
    expect(validate!.env).toBeUndefined();
    expect(plan).toMatchObject({ id: 'plan', with: { command: 'plan', comment: true }, if: '${{ !github.event.pull_request.head.repo.fork }}' });
    expect(plan!.env).toMatchObject({ SITESYNC_API_KEY: '${{ secrets.SITESYNC_API_KEY }}', SITESYNC_BASE_URL: '${{ vars.SITESYNC_BASE_URL }}' });
    const upload = steps(doc, 'plan').find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toContain("steps.plan.outputs.plan-json != ''");
    expect(upload.if).toContain('!cancelled()');
    expect(upload.with).toMatchObject({ path: '${{ steps.plan.outputs.plan-json }}' });
  });

  it("the forks' plan workflow: pull_request_target for forks only, the base branch checked out without credentials, the pull request's files unpacked as data and planned against the trusted copy", () => {
    const { doc } = load('github/sitesync-plan-forks.yml');
    expect(Object.keys(doc.on)).toEqual(['pull_request_target']);
    expect(doc.jobs.plan.if).toBe('${{ github.event.pull_request.head.repo.fork }}');
    expect(doc.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    const [checkout, , fetch] = steps(doc, 'plan');
    // The default ref of pull_request_target: the base branch. Never the pull request's head.
    expect(checkout!.with).toEqual({ 'persist-credentials': false });
    expect(fetch!.run).toMatch(/git fetch [^\n]*refs\/pull\/\$PR\/head/);
    expect(fetch!.run).toMatch(/git archive refs\/remotes\/pull\/head \| tar -x -C \.sitesync-pr/);
    // Nothing of the pull request's is installed or run: no npm, node, make or script in it.
    for (const step of steps(doc, 'plan')) expect(step.run ?? '').not.toMatch(/\b(npm|npx|node|yarn|pnpm|make|bash|sh)\b|\.sitesync-pr\//);
    expect(actionSteps(doc, 'plan').map((s) => s.with)).toEqual([
      { command: 'plan', comment: true, 'working-directory': '.sitesync-pr', 'trusted-config': '${{ github.workspace }}/sitesync.yaml' },
    ]);
  });

  it('the apply workflow: pushes to main touching the config, one at a time, the result on the merged pull request', () => {
    const { doc } = load('github/sitesync-apply.yml');
    expect(doc.on.push).toEqual({ branches: ['main'], paths: ['sitesync.yaml'] });
    expect(doc.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(doc.concurrency).toEqual({ group: 'sitesync-apply', 'cancel-in-progress': false });
    expect(actionSteps(doc, 'apply').map((s) => s.with)).toEqual([{ command: 'apply', comment: "${{ github.event_name == 'push' }}" }]);
  });

  it('the drift workflow: scheduled daily, the silent websites weekly, one issue per drifted account, in the environment of the keys', () => {
    const { doc, text } = load('github/sitesync-drift.yml');
    const crons = doc.on.schedule.map((s: { cron: string }) => s.cron);
    for (const cron of crons) expect(cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/);
    expect(doc.on).toHaveProperty('workflow_dispatch');
    expect(doc.permissions).toEqual({ contents: 'read', issues: 'write' });
    expect(doc.jobs.drift.environment).toBe('sitesync');
    expect(doc.concurrency).toEqual({ group: '${{ github.workflow }}', 'cancel-in-progress': false });
    const [step] = actionSteps(doc, 'drift');
    expect(step!.with).toEqual({ command: 'drift', issue: true, args: expect.stringContaining("'--quiet-days 7'") });
    // The weekly schedule is the one that reads the statistics.
    const weekly = /github\.event\.schedule == '([^']+)'/.exec(String(step!.with!.args))![1];
    expect(crons).toContain(weekly);
    expect(crons.filter((c: string) => c !== weekly)).toHaveLength(1);
    expect(text).toMatch(/disables scheduled workflows[\s\S]*60 days/);
  });
});

describe('the GitLab pipeline', () => {
  const { doc, invocations } = load('gitlab/.gitlab-ci.yml');
  const jobLines = (job: string) => lines(invocations.filter((i) => i.where.startsWith(`${job}.`)));

  it('plans merge requests and writes the note with --provider gitlab', () => {
    expect(doc['sitesync-plan'].rules).toEqual([
      {
        if: '$CI_PIPELINE_SOURCE == "merge_request_event" && $CI_PROJECT_ID == $CI_MERGE_REQUEST_PROJECT_ID',
        changes: ['sitesync.yaml', '.gitlab-ci.yml'],
      },
    ]);
    expect(jobLines('sitesync-plan')).toEqual([
      'sitesync validate --strict-env',
      'sitesync plan --format markdown --fail-unsafe --out plan.json --trusted-config $base/sitesync.yaml --baseline $base/sitesync.yaml',
      'sitesync ci comment --provider gitlab --file plan.md',
      'sitesync ci comment --provider gitlab --file plan.md',
    ]);
    // Emptied before validate, so a failed validate also turns the note into "plan failed".
    const script = doc['sitesync-plan'].script as string[];
    expect(script.indexOf(': > plan.md')).toBeLessThan(script.indexOf('npx sitesync validate --strict-env'));
    expect(script.indexOf(': > plan.md')).toBeGreaterThanOrEqual(0);
  });

  it('merge requests from forks are validated without secrets, and never planned', () => {
    expect(doc['sitesync-validate'].rules).toEqual([
      {
        if: '$CI_PIPELINE_SOURCE == "merge_request_event" && $CI_PROJECT_ID != $CI_MERGE_REQUEST_PROJECT_ID',
        changes: ['sitesync.yaml', '.gitlab-ci.yml'],
      },
    ]);
    expect(jobLines('sitesync-validate')).toEqual(['sitesync validate']);
    expect(JSON.stringify(doc['sitesync-validate'])).not.toMatch(/SITESYNC_API_KEY|GITLAB_TOKEN/);
  });

  it('applies on pushes to the default branch only, one at a time', () => {
    expect(doc['sitesync-apply'].rules).toEqual([{ if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH && $CI_PIPELINE_SOURCE == "push"', changes: ['sitesync.yaml'] }]);
    expect(doc['sitesync-apply'].resource_group).toBe('sitesync-apply');
    expect(jobLines('sitesync-apply')).toEqual(['sitesync apply --auto-approve']);
  });

  it("checks drift on the default branch's schedules, one issue per drifted account: exit 2 a warning, the silent websites when the schedule asks", () => {
    expect(doc['sitesync-drift'].rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH' }]);
    expect(doc['sitesync-drift'].allow_failure).toEqual({ exit_codes: [2] });
    expect(jobLines('sitesync-drift')).toEqual([
      'sitesync ci drift --provider gitlab --quiet-days $SITESYNC_QUIET_DAYS',
      'sitesync ci drift --provider gitlab',
    ]);
  });

  it('uses Node 20 and npm ci', () => {
    expect(doc.default.image).toBe('node:20');
    expect(doc.default.before_script).toEqual([expect.stringMatching(/^npm ci\b/)]);
  });
});

describe('shell completion', () => {
  it('prints a script, and completes the ci commands', async () => {
    const script = await runCli(['completion']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('###-begin-sitesync-completions-###');
    const words = await runCli(['--get-yargs-completions', 'sitesync', 'ci', '']);
    expect(words.stdout.split('\n')).toEqual(expect.arrayContaining(['comment', 'summary', 'drift']));
  });
});
