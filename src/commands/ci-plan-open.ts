/**
 * `sitesync ci plan-open`: on GitLab's default branch (a schedule, or each push to it), the plan
 * of every open merge request into it, as that merge request's note (ci/plan-open.ts). Each is
 * planned by `sitesync plan` itself, its files read from git's objects, with this checkout's
 * config as `--trusted-config` and `--baseline`. Exit 0 when every merge request was planned (or left
 * alone: its config files are the default branch's) and its note kept, 1 otherwise.
 */
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { FileSource } from '../config/source.js';
import { gitlabProject, gitlabThread, openMergeRequests, type OpenMergeRequest } from '../ci/gitlab.js';
import { planOpenMergeRequests, type FilesPlan, type MergeRequestOutcome } from '../ci/plan-open.js';
import { ConfigError, formatDiagnostic, SitesyncError, UsageError } from '../messages/errors.js';
import { printable } from '../messages/escape.js';
import { failureOf } from '../run/open.js';
import { colorsFor, type Context } from '../io/context.js';
import { ciHttp } from './ci.js';
import { config, defineCommand, type CommandArgs } from './define.js';
import { planCommand } from './plan.js';

const options = { config } as const;

export const ciPlanOpenCommand = defineCommand({
  path: ['ci', 'plan-open'],
  describe:
    "On the default branch, where the keys are: plan every open merge request's files as data (never installed or run) against this checkout's config, and keep each one's plan note. Exit 1 when one could not be planned or its note kept",
  options,
  online: true,
  examples: [
    ['$0 ci plan-open', "In a GitLab job on the default branch, with the keys and GITLAB_TOKEN (protected variables)"],
    ['$0 ci plan-open -c stats/sitesync.yaml', 'A config in a folder: the same path in each merge request'],
  ],
  run: runCiPlanOpen,
});

async function runCiPlanOpen(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  const branch = ctx.env.CI_DEFAULT_BRANCH?.trim();
  if (!branch) throw new SitesyncError('CI_DEFAULT_BRANCH is not set (GitLab CI sets it): run this in a GitLab pipeline');
  // This checkout's config is what every merge request is trusted against: only the default branch's may be.
  const current = ctx.env.CI_COMMIT_BRANCH?.trim();
  if (current !== branch) {
    throw new UsageError(
      `ci plan-open runs on the default branch (${branch}), whose config is the trusted copy; this pipeline is ${current ? `on ${current}` : 'not on a branch'}`,
    );
  }
  const project = gitlabProject(ctx.env);
  ctx.secrets.add(project.token);
  const http = ciHttp(ctx);
  const requests = await openMergeRequests(project, branch, http);
  ctx.stdout.write(`${requests.length} open merge request${requests.length === 1 ? '' : 's'} into ${printable(branch)}.\n`);
  // One question to GitLab of who the token is, for every merge request's note.
  let self: Promise<string | undefined> | undefined;
  const thread = (mr: OpenMergeRequest) => {
    const made = gitlabThread({ ...project, iid: mr.iid, mrUrl: mr.webUrl }, http);
    const ask = made.whoAmI.bind(made);
    return Object.assign(made, { whoAmI: () => (self ??= ask()) });
  };
  const trusted = resolve(ctx.cwd, args.config);
  const outcomes = await planOpenMergeRequests({
    cwd: ctx.cwd,
    branch,
    config: args.config,
    env: ctx.env,
    requests,
    plan: (folder, source) => planFiles(folder, args.config, source, trusted, ctx),
    thread,
    onStart: (mr, commit) => ctx.stderr.write(`${ctx.err.dim(`Planning !${mr.iid} ${printable(mr.title)} (${commit.slice(0, 12)})…`)}\n`),
    signal: ctx.signal,
  });
  for (const o of outcomes) ctx.stdout.write(outcomeLine(o, ctx));
  const failed = outcomes.filter((o) => o.state === 'not planned' || (o.note && 'failed' in o.note));
  const planned = outcomes.filter((o) => o.state !== 'unchanged' && o.state !== 'not planned').length;
  const unchanged = outcomes.length - planned - outcomes.filter((o) => o.state === 'not planned').length;
  ctx.stdout.write(`Planned ${planned} of ${outcomes.length}${unchanged ? ` (${unchanged} with the default branch's config files, left alone)` : ''}; ${failed.length} failed.\n`);
  return failed.length ? 1 : 0;
}

/** `sitesync plan` itself, of the merge request's files as `source` reads them, its markdown kept rather than printed. */
async function planFiles(folder: string, file: string, source: FileSource, trusted: string, ctx: Context): Promise<FilesPlan> {
  let markdown = '';
  const capture = { write: (text: string) => (markdown += text) };
  const sub: Context = Object.create(ctx, {
    cwd: { value: folder },
    stdout: { value: capture },
    stdin: { value: Readable.from([]) },
    out: { value: colorsFor(capture, ctx.env, false) },
  });
  // `source` is no flag: the run reads the config from it (RunArgs.source), not from the disk.
  const args: Parameters<typeof planCommand.run>[0] & { source: FileSource } = {
    config: file,
    trustedConfig: trusted,
    baseline: trusted,
    format: 'markdown',
    failUnsafe: true,
    detailedExitcode: true,
    source,
  };
  try {
    const code = await planCommand.run(args, sub);
    return { code, markdown, problems: [] };
  } catch (error) {
    const problems = error instanceof ConfigError ? error.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic) : failureLines(error, ctx);
    return { code: 1, markdown: '', problems };
  }
}

function failureLines(error: unknown, ctx: Context): string[] {
  const failure = failureOf(error, ctx);
  return [failure.message, ...failure.details];
}

const SAID = { 'no changes': 'no changes', changes: 'changes', refused: 'a plan apply would refuse', unchanged: '', 'not planned': 'could not be planned' };

function outcomeLine(o: MergeRequestOutcome, ctx: Context): string {
  const c = ctx.out;
  const name = `!${o.mr.iid} ${printable(o.mr.title)}${o.commit ? ` (${o.commit.slice(0, 12)})` : ''}`;
  if (o.state === 'unchanged') return `${c.dim(`${name}: its config files are the default branch's; not planned`)}\n`;
  const lines = [`${name}: ${SAID[o.state]}`];
  if (o.note && 'failed' in o.note) lines[0] += c.red(`; its note could not be kept: ${printable(o.note.failed)}`);
  else if (o.note) lines[0] += `; ${o.note.outcome === 'unchanged' ? 'the note is up to date' : `${o.note.outcome} the note`}: ${printable(o.note.url)}`;
  if (o.state === 'not planned') lines.push(...o.problems.map((p) => `    ${printable(p)}`));
  return `${lines.join('\n')}\n`;
}
