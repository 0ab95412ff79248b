/**
 * The GitHub Action (action.yml) run as the runner runs a composite action: each step's shell
 * script with its `${{ … }}` expressions filled in, `bash -e -o pipefail`, GITHUB_OUTPUT a file,
 * against a service and the fake GitHub API.
 */
import { spawn } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { cleanEnv, root } from '../helpers/cli.js';
import { GITHUB_TOKEN, REPO } from './fake-github.js';

export const action = parse(await readFile(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: Array<{ name: string; id?: string; if?: string; run?: string; uses?: string; with?: Record<string, string>; shell?: string; env?: Record<string, string>; 'working-directory'?: string }>;
  };
};

/** Fills `${{ inputs.x }}`, `${{ github.token }}`, `${{ steps.sitesync.outputs.x }}`, `${{ github.event.x }}` as the runner would. */
export function fill(text: string, inputs: Record<string, string>, outputs: Record<string, string> = {}, event: Record<string, unknown> = {}): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (expr.startsWith('inputs.')) return inputs[expr.slice('inputs.'.length)] ?? '';
    if (expr === 'github.token') return GITHUB_TOKEN;
    if (expr.startsWith('steps.sitesync.outputs.')) return outputs[expr.slice('steps.sitesync.outputs.'.length)] ?? '';
    if (/^github\.event\.\w+$/.test(expr)) return String(event[expr.slice('github.event.'.length)] ?? '');
    throw new Error(`action.yml uses an expression this test does not know: ${expr}`);
  });
}

/** A step's `if:` as the runner reads the ones action.yml writes: `always()`, and outputs compared with ''. */
function runs(condition: string | undefined, failed: boolean, outputs: Record<string, string>): boolean {
  if (condition === undefined) return !failed;
  const terms = condition.split('&&').map((t) => t.trim());
  if (!terms.includes('always()') && failed) return false;
  return terms.every((term) => {
    if (term === 'always()') return true;
    const compared = /^steps\.sitesync\.outputs\.([\w-]+) != ''$/.exec(term);
    if (!compared) throw new Error(`action.yml has a condition this test does not know: ${term}`);
    return (outputs[compared[1]!] ?? '') !== '';
  });
}

/** What `actions/upload-artifact` uploaded, as the runner's steps gave it: name → the folder's files. */
export const UPLOADS = 'artifacts';

export interface ActionRun {
  code: number | null;
  log: string;
  outputs: Record<string, string>;
}

export interface Runner {
  /** The workspace: the checkout the steps run in. */
  dir: string;
  /** The GitHub API's address (the fake's). */
  githubApi: string;
  /** Where the action is checked out (GITHUB_ACTION_PATH): this repository, built, unless a test runs the CLI in its process (cli-server.ts). */
  actionPath?: string;
}

/** Runs the action's steps with `given` inputs for an event payload written in `dir`, with `env` as the step's environment. */
export async function runAction(runner: Runner, given: Record<string, string>, event: string, env: Record<string, string | undefined>): Promise<ActionRun> {
  const { dir } = runner;
  const payload = JSON.parse(await readFile(join(dir, event), 'utf8')) as Record<string, unknown>;
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) inputs[name] = given[name] ?? fill(spec.default ?? '', {}, {}, payload);
  const output = join(dir, `output-${Math.random()}`);
  await writeFile(output, '');
  let log = '';
  let failed: number | null = null;
  for (const step of action.runs.steps) {
    const outputs = await outputsOf(output);
    if (!runs(step.if, failed !== null, outputs)) continue;
    if (step.uses) {
      // The one action action.yml uses: its upload, kept in the workspace's artifacts/ folder.
      if (!step.uses.startsWith('actions/upload-artifact@')) throw new Error(`action.yml uses an action this test does not run: ${step.uses}`);
      const withs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, fill(String(v), inputs, outputs)]));
      await cp(withs.path!, join(dir, UPLOADS, withs.name!), { recursive: true });
      log += `uploaded artifact ${withs.name}\n`;
      continue;
    }
    const stepEnv = cleanEnv({
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: runner.actionPath ?? root,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
      GITHUB_WORKSPACE: dir,
      RUNNER_TEMP: dir,
      GITHUB_API_URL: runner.githubApi,
      GITHUB_REPOSITORY: REPO,
      GITHUB_EVENT_PATH: join(dir, event),
      // What the tests' payloads stand for: a push (it has `after`), else a pull request's event.
      GITHUB_EVENT_NAME: typeof payload.after === 'string' ? 'push' : 'pull_request_target',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_RUN_ID: '99',
      NO_COLOR: '1',
      ...env,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, fill(v, inputs)])),
    });
    const cwd = join(dir, fill(step['working-directory'] ?? '.', inputs));
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', fill(step.run!, inputs)], { cwd, env: stepEnv });
      child.stdout.on('data', (d: Buffer) => (log += d.toString()));
      child.stderr.on('data', (d: Buffer) => (log += d.toString()));
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) failed ??= code;
  }
  return { code: failed ?? 0, log, outputs: await outputsOf(output) };
}

async function outputsOf(file: string): Promise<Record<string, string>> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** Runs one `run:` script of a workflow step as the runner does (bash -e -o pipefail), in `cwd`. */
export function runStep(script: string, cwd: string, env: Record<string, string | undefined>): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env: cleanEnv(env) });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, log }));
  });
}
