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

const files = yamlFiles(examples).filter((f) => !f.endsWith('sitesync.yaml'));
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
      expect(found.invocations.length, file).toBeGreaterThan(0);
      count += found.invocations.length;
      for (const inv of found.invocations) problems.push(...(await surface.lint(inv)).map((p) => `${p.where}: ${p.message}`));
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(12);
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
      'no command "sitesync plna" (there are: validate, plan, apply, export, account, emulator, ci, completion)',
      '--format html: not one of text, markdown, json',
      '"sitesync apply" takes 1 argument(s), given 2',
      '"sitesync ci" needs a command: comment, summary',
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

describe('the GitHub workflows', () => {
  it('the plan workflow: pull requests, minimal permissions, validate, baseline plan, the marked comment', () => {
    const { doc, text, invocations } = load('github/sitesync-plan.yml');
    expect(Object.keys(doc.on)).toEqual(['pull_request']);
    expect(doc.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(lines(invocations)).toEqual([
      'sitesync validate',
      'sitesync plan --format markdown --baseline $RUNNER_TEMP/baseline.yaml',
      'sitesync plan --format markdown',
      'sitesync ci comment --file plan.md',
      'sitesync ci summary --file plan.md',
    ]);
    // validate runs unconditionally, before the plan, so its errors fail the job.
    const all = steps(doc, 'plan');
    const validate = all.findIndex((s) => s.run === 'npx sitesync validate');
    expect(all[validate]!.if).toBeUndefined();
    expect(validate).toBeLessThan(all.findIndex((s) => s.run?.includes('sitesync plan')));
    const plan = stepRunning(doc, 'plan', 'sitesync plan')!;
    expect(plan.run).toContain('git show "origin/${GITHUB_BASE_REF}:sitesync.yaml" > "$RUNNER_TEMP/baseline.yaml"');
    expect(plan.env).toMatchObject({ SITESYNC_API_KEY: '${{ secrets.SITESYNC_API_KEY }}', SITESYNC_BASE_URL: '${{ vars.SITESYNC_BASE_URL }}' });
    expect(plan.if).toContain('fork');
    const comment = stepRunning(doc, 'plan', 'sitesync ci comment')!;
    expect(comment.env).toEqual({ GITHUB_TOKEN: '${{ github.token }}' });
    expect(comment.if).toContain('!cancelled()');
    expect(text).toContain('<!-- sitesync-plan -->');
  });

  it('the apply workflow: push to main, one at a time, never cancelled, apply --auto-approve', () => {
    const { doc, invocations } = load('github/sitesync-apply.yml');
    expect(doc.on.push.branches).toEqual(['main']);
    expect(doc.permissions).toEqual({ contents: 'read' });
    expect(doc.concurrency).toEqual({ group: 'sitesync-apply', 'cancel-in-progress': false });
    expect(lines(invocations)).toEqual(['sitesync apply --auto-approve']);
  });

  it('the drift workflow: scheduled, --detailed-exitcode, exit 2 reported in the summary and failing the job', () => {
    const { doc, invocations } = load('github/sitesync-drift.yml');
    expect(doc.on.schedule[0].cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/);
    expect(doc.on).toHaveProperty('workflow_dispatch');
    expect(doc.permissions).toEqual({ contents: 'read' });
    expect(lines(invocations)).toEqual([
      'sitesync plan --detailed-exitcode --format markdown',
      'sitesync ci summary --file drift.md --title The account has drifted from sitesync.yaml',
    ]);
    const summary = stepRunning(doc, 'drift', 'sitesync ci summary')!;
    expect(summary.if).toBe("${{ steps.plan.outputs.exitcode == '2' }}");
    const fail = steps(doc, 'drift').at(-1)!;
    expect(fail.if).toBe("${{ steps.plan.outputs.exitcode != '0' }}");
    expect(fail.run).toMatch(/exit 1\s*$/);
  });

  it.each(['sitesync-plan.yml', 'sitesync-apply.yml', 'sitesync-drift.yml'])(
    '%s: Node 20 with the npm cache, npm ci, secrets only through env, nothing echoed',
    (name) => {
      const { doc } = load(`github/${name}`);
      for (const job of Object.keys(doc.jobs)) {
        const all = steps(doc, job);
        expect(all[0]!.uses).toBe('actions/checkout@v4');
        expect(all[1]).toMatchObject({ uses: 'actions/setup-node@v4', with: { 'node-version': 20, cache: 'npm' } });
        expect(all[2]!.run).toBe('npm ci');
        for (const step of all) {
          // A secret in `run:` would be pasted into the script itself; through env it is only a variable.
          expect(step.run ?? '').not.toMatch(/secrets\.|SITESYNC_API_KEY|GITHUB_TOKEN/);
          expect(step.run ?? '').not.toMatch(/set -x|printenv|\benv\s*$/m);
        }
      }
    },
  );
});

describe('the GitLab pipeline', () => {
  const { doc, invocations } = load('gitlab/.gitlab-ci.yml');
  const jobLines = (job: string) => lines(invocations.filter((i) => i.where.startsWith(`${job}.`)));

  it('plans merge requests and writes the note with --provider gitlab', () => {
    expect(doc['sitesync-plan'].rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]);
    expect(jobLines('sitesync-plan')).toEqual([
      'sitesync validate',
      'sitesync plan --format markdown --baseline baseline.yaml',
      'sitesync plan --format markdown',
      'sitesync ci comment --provider gitlab --file plan.md',
      'sitesync ci comment --provider gitlab --file plan.md',
    ]);
  });

  it('applies on pushes to the default branch only, one at a time', () => {
    expect(doc['sitesync-apply'].rules).toEqual([{ if: '$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH && $CI_PIPELINE_SOURCE == "push"' }]);
    expect(doc['sitesync-apply'].resource_group).toBe('sitesync-apply');
    expect(jobLines('sitesync-apply')).toEqual(['sitesync apply --auto-approve']);
  });

  it('checks drift on schedules, failing on exit 2', () => {
    expect(doc['sitesync-drift'].rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }]);
    expect(doc['sitesync-drift'].allow_failure).toBeUndefined();
    expect(jobLines('sitesync-drift')).toEqual(['sitesync plan --detailed-exitcode']);
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
    expect(words.stdout.split('\n')).toEqual(expect.arrayContaining(['comment', 'summary']));
  });
});
