/**
 * The CI recipes under examples/ cannot rot: every sitesync invocation in them uses commands and
 * flags the CLI has, and each workflow keeps the structure that makes it safe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { root, runCli } from '../helpers/cli.js';
import { CliSurface, helpOf, invocationsIn, sitesyncCalls, tokenize, type Invocation } from './recipe-lint.js';

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

describe('the recipe lint', () => {
  it('finds the recipes: three GitHub workflows and the GitLab file', () => {
    expect(files.map((f) => relative(examples, f)).sort()).toEqual([
      'github/sitesync-apply.yml',
      'github/sitesync-drift.yml',
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

  it("every sitesync invocation in the action's own script uses commands and flags that exist", async () => {
    const found = invocationsIn(readFileSync(join(root, 'action.yml'), 'utf8'), 'action.yml');
    expect(found.problems).toEqual([]);
    // `sitesync() { node …; }` defines the function the rest calls: not an invocation.
    const calls = found.invocations.filter((i) => i.args.length > 0);
    expect(lines(calls)).toEqual(expect.arrayContaining(['sitesync ci approved -o $out/approved.md --id $INPUT_CONFIG']));
    const problems = (await Promise.all(calls.map((i) => surface.lint(i)))).flat();
    expect(problems.map((p) => `${p.where}: ${p.message}`)).toEqual([]);
  });

  it("reads the help the built CLI prints: the top level's, a command's and a sub-command's, byte for byte", async () => {
    for (const path of [[], ['plan'], ['ci', 'drift']]) {
      const built = await runCli([...path, '--help']);
      expect(built.code).toBe(0);
      expect(await helpOf(path), path.join(' ')).toBe(built.stdout);
    }
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
      'no command "sitesync plna" (there are: validate, fmt, plan, apply, init, export, archive, import, account, show, verify, emulator, ci, completion)',
      '--format html: not one of text, markdown, json',
      '"sitesync apply" takes 1 argument(s), given 2',
      '"sitesync ci" needs a command: comment, summary, drift, approved, plan-open',
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
  const names = ['sitesync-plan.yml', 'sitesync-apply.yml', 'sitesync-drift.yml'];

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
      const node = all.findIndex((s) => s.uses?.startsWith('actions/setup-node@'));
      expect(all[node]).toMatchObject({ with: { 'node-version': 20 } });
      const runs = actionSteps(doc, job);
      expect(runs.length).toBeGreaterThan(0);
      for (const step of runs) {
        expect(all.indexOf(step)).toBeGreaterThan(node);
        expect(Object.keys(step.with ?? {}).filter((k) => !(k in action.inputs))).toEqual([]);
        expect(ACTION_COMMANDS).toContain(step.with?.command);
        for (const value of Object.values(step.with ?? {})) expect(String(value)).not.toMatch(/secrets\./);
      }
      for (const step of all) expect(step.run ?? '').not.toMatch(/secrets\.|SITESYNC_API_KEY|GITHUB_TOKEN|set -x|printenv/);
    }
  });

  it('every job that reads a secret: never on pull_request, always in the environment whose branch rule keeps the keys on the default branch', () => {
    const readers: string[] = [];
    for (const name of names) {
      const { doc } = load(`github/${name}`);
      const events = Object.keys(doc.on);
      for (const [id, job] of Object.entries(doc.jobs as Record<string, { environment?: unknown }>)) {
        if (!/\$\{\{[^}]*\bsecrets\./.test(JSON.stringify(job))) continue;
        readers.push(`${name}#${id}`);
        // A pull_request run executes the pull request's copy of the workflow: it must never hold a key.
        expect(events, name).not.toContain('pull_request');
        expect(job.environment, `${name}#${id}`).toBe('sitesync');
        // A push to any branch but the default one would run a branch's copy: only main.
        if (doc.on.push) expect(doc.on.push.branches).toEqual(['main']);
      }
    }
    expect(readers.sort()).toEqual(['sitesync-apply.yml#apply', 'sitesync-drift.yml#drift', 'sitesync-plan.yml#plan']);
  });

  it("the plan workflow: pull_request_target into main for every pull request, the default branch's files trusted, the pull request's checked out as data with the job's token not kept, nothing of them run, the full plan kept", () => {
    const { doc } = load('github/sitesync-plan.yml');
    expect(Object.keys(doc.on)).toEqual(['pull_request_target']);
    expect(doc.on.pull_request_target.branches).toEqual(['main']);
    expect(doc.on.pull_request_target.paths).toContain('sitesync.yaml');
    // One workflow for forks and this repository alike: no job is skipped by a fork test.
    expect(JSON.stringify(doc)).not.toMatch(/head\.repo\.fork/);
    expect(doc.jobs.plan.if).toBeUndefined();
    expect(doc.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(doc.concurrency).toEqual({ group: '${{ github.workflow }}-${{ github.event.pull_request.number }}', 'cancel-in-progress': true });
    const all = steps(doc, 'plan');
    const [trusted, data] = all.filter((s) => s.uses?.startsWith('actions/checkout@'));
    // The default branch, as pull_request_target checks it out (no ref: never the pull request's head).
    expect(trusted!.with).toEqual({ path: 'trusted', 'persist-credentials': false });
    // The pull request's head, from this repository (where a fork's head is too), with the job's token, not kept.
    expect(data!.with).toEqual({ ref: '${{ github.event.pull_request.head.sha }}', path: 'pull-request', token: '${{ github.token }}', 'persist-credentials': false });
    // Nothing of the pull request's is installed, built or run: no script at all, no action of its folder.
    for (const step of all) {
      expect(step.run).toBeUndefined();
      expect(step.uses).not.toMatch(/^\.|pull-request/);
    }
    const [plan] = actionSteps(doc, 'plan');
    expect(plan).toMatchObject({
      id: 'plan',
      with: { command: 'plan', comment: true, 'working-directory': 'pull-request', 'trusted-config': '${{ github.workspace }}/trusted/sitesync.yaml' },
    });
    expect(plan!.env).toMatchObject({ SITESYNC_API_KEY: '${{ secrets.SITESYNC_API_KEY }}', SITESYNC_BASE_URL: '${{ vars.SITESYNC_BASE_URL }}' });
    const upload = all.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toContain("steps.plan.outputs.plan-json != ''");
    expect(upload.if).toContain('!cancelled()');
    expect(upload.with).toMatchObject({ path: '${{ steps.plan.outputs.plan-json }}' });
  });

  it("the path filters cover the agency layout: a change to a client's included file plans and applies", () => {
    const included = ['clients/acme/websites.yaml', 'clients/globex/websites.yaml'];
    for (const [name, paths] of [
      ['github/sitesync-plan.yml', load('github/sitesync-plan.yml').doc.on.pull_request_target.paths],
      ['github/sitesync-apply.yml', load('github/sitesync-apply.yml').doc.on.push.paths],
    ] as const) {
      // A name, or a folder's `DIR/**` (GitHub's filter patterns): all the recipes use.
      const matches = (file: string) => (paths as string[]).some((p) => p === file || (p.endsWith('/**') && file.startsWith(p.slice(0, -2))));
      for (const file of ['sitesync.yaml', ...included]) expect(matches(file), `${name}: ${file}`).toBe(true);
    }
  });

  it('the apply workflow: pushes to main touching the config, one at a time, the baseline the push before, the result on the merged pull request', () => {
    const { doc } = load('github/sitesync-apply.yml');
    expect(doc.on.push).toEqual({ branches: ['main'], paths: ['sitesync.yaml', 'clients/**'] });
    expect(doc.on.workflow_dispatch.inputs).toHaveProperty('baseline-ref');
    expect(doc.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(doc.concurrency).toEqual({ group: '${{ github.workflow }}', 'cancel-in-progress': false });
    expect(actionSteps(doc, 'apply').map((s) => s.with)).toEqual([
      {
        command: 'apply',
        comment: "${{ github.event_name == 'push' }}",
        'baseline-ref': "${{ github.event_name == 'push' && github.event.before || inputs.baseline-ref }}",
      },
    ]);
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

  it('every concurrency group names its workflow, so that no two workflows cancel each other', () => {
    for (const name of names) expect(String(load(`github/${name}`).doc.concurrency.group)).toContain('${{ github.workflow }}');
  });

  it("examples/github/README.md names every workflow and its trigger", () => {
    const readme = readFileSync(join(examples, 'github/README.md'), 'utf8');
    expect(readme).toMatch(/^Three workflows/m);
    for (const name of names) expect(readme).toContain(`| \`${name}\` |`);
    expect(readme).toContain('`pull_request_target`');
    expect(readme).not.toMatch(/[Dd]o not use `pull_request_target`/);
  });
});

describe('the GitLab pipeline', () => {
  const { doc, text, invocations } = load('gitlab/.gitlab-ci.yml');
  const jobLines = (job: string) => lines(invocations.filter((i) => i.where.startsWith(`${job}.`)));
  const jobs = Object.keys(doc).filter((k) => doc[k]?.script);
  const DEFAULT_BRANCH = '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH';

  it('no key outside a job of the default branch: every job that reaches the service or GitLab runs only there; merge-request pipelines only validate', () => {
    // Commands that need no key and no token: the rest read the protected variables.
    const offline = /^sitesync (validate|fmt|show)\b/;
    const online = jobs.filter((job) => jobLines(job).some((l) => !offline.test(l)));
    expect(online.sort()).toEqual(['sitesync-apply', 'sitesync-drift', 'sitesync-plan-open']);
    for (const job of online) {
      for (const rule of doc[job].rules) {
        expect(rule.if, job).toContain(DEFAULT_BRANCH);
        expect(rule.if, job).not.toContain('merge_request_event');
      }
    }
    for (const job of jobs.filter((j) => JSON.stringify(doc[j].rules ?? []).includes('merge_request_event'))) {
      expect(jobLines(job).every((l) => offline.test(l)), job).toBe(true);
    }
    // The keys and the token are protected variables: no merge-request pipeline gets them.
    for (const name of ['SITESYNC_API_KEY', 'ACME_STATS_KEY', 'GITLAB_TOKEN']) expect(text).toContain(`#   ${name}`);
    expect(text).toMatch(/every one "Protected"/);
    expect(text).not.toMatch(/not "protected"/i);
  });

  it('validates every merge request, from this project or a fork, without any key', () => {
    expect(doc['sitesync-validate'].rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"', changes: ['sitesync.yaml', 'clients/**/*'] }]);
    expect(jobLines('sitesync-validate')).toEqual(['sitesync validate']);
    expect(JSON.stringify(doc['sitesync-validate'])).not.toMatch(/SITESYNC_API_KEY|GITLAB_TOKEN/);
  });

  it("plans the open merge requests on the default branch: its schedule, each push to it, or by hand; one run at a time", () => {
    expect(doc['sitesync-plan-open'].rules).toEqual([
      { if: `${DEFAULT_BRANCH} && $CI_PIPELINE_SOURCE == "schedule" && $SITESYNC_PLAN_OPEN == "true"` },
      { if: `${DEFAULT_BRANCH} && ($CI_PIPELINE_SOURCE == "push" || $CI_PIPELINE_SOURCE == "web")`, when: 'always' },
    ]);
    expect(doc['sitesync-plan-open'].resource_group).toBe('sitesync-plan-open');
    expect(jobLines('sitesync-plan-open')).toEqual(['sitesync ci plan-open']);
    // After apply in a push's pipeline: planned against what was just applied.
    expect(doc.stages.indexOf(doc['sitesync-plan-open'].stage)).toBeGreaterThan(doc.stages.indexOf(doc['sitesync-apply'].stage));
  });

  it('applies on pushes to the default branch only, one at a time, with the baseline the push before and the approved plan, its result on the merge request', () => {
    expect(doc['sitesync-apply'].rules).toEqual([{ if: `${DEFAULT_BRANCH} && $CI_PIPELINE_SOURCE == "push"`, changes: ['sitesync.yaml', 'clients/**/*'] }]);
    expect(doc['sitesync-apply'].resource_group).toBe('sitesync-apply');
    expect(jobLines('sitesync-apply')).toEqual([
      'sitesync ci approved --provider gitlab -o approved.md',
      // "$@": --baseline-ref $CI_COMMIT_BEFORE_SHA, or nothing for the push that created the branch (gitlab-job.test.ts runs both).
      'sitesync apply --auto-approve $@ --approved approved.md --report apply.md',
      'sitesync apply --auto-approve $@ --report apply.md',
      'sitesync ci comment --new --provider gitlab --file apply.md',
    ]);
    expect(doc['sitesync-apply'].script.join('\n')).toContain('set -- --baseline-ref "$CI_COMMIT_BEFORE_SHA"');
  });

  it("checks drift on the default branch's schedules (not the merge requests' one), one issue per drifted account: exit 2 a warning, the silent websites when the schedule asks", () => {
    expect(doc['sitesync-drift'].rules).toEqual([{ if: `$CI_PIPELINE_SOURCE == "schedule" && ${DEFAULT_BRANCH} && $SITESYNC_PLAN_OPEN != "true"` }]);
    expect(doc['sitesync-drift'].allow_failure).toEqual({ exit_codes: [2] });
    expect(jobLines('sitesync-drift')).toEqual([
      'sitesync ci drift --provider gitlab --verify --quiet-days $SITESYNC_QUIET_DAYS',
      'sitesync ci drift --provider gitlab --verify',
    ]);
  });

  it("the rules cover the agency layout: a change to a client's included file validates and applies", () => {
    for (const job of ['sitesync-validate', 'sitesync-apply']) expect(doc[job].rules[0].changes, job).toContain('clients/**/*');
  });

  it("keeps the folder archive: names as the apply job's artifact, also when the job fails", () => {
    expect(doc['sitesync-apply'].artifacts).toEqual({ name: 'sitesync-archive', when: 'always', expire_in: 'never', paths: ['archives/'] });
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
    expect(words.stdout.split('\n')).toEqual(expect.arrayContaining(['comment', 'summary', 'drift', 'approved', 'plan-open']));
  });
});
