/** `sitesync ci comment` and `sitesync ci summary`: the CI recipes' helpers. */
import { resolve } from 'node:path';
import { readTextFile } from '../config/read.js';
import { assertOutputFile, writeAtomic, writeFailure } from '../io/files.js';
import { ConfigError, SitesyncError, UsageError } from '../messages/errors.js';
import { githubTarget, githubThread } from '../ci/github.js';
import { gitlabTarget, gitlabThread } from '../ci/gitlab.js';
import { cutMarkdown } from '../ci/cut-markdown.js';
import type { HttpOptions } from '../ci/http.js';
import { appendJobSummary, summarySection } from '../ci/summary.js';
import { findApprovedComment, upsertPlanComment, type CommentThread } from '../ci/plan-comment.js';
import { printable } from '../messages/escape.js';
import type { Context, Env } from '../io/context.js';
import { defineCommand, type CommandArgs } from './define.js';

export type Provider = 'github' | 'gitlab';

const commentOptions = {
  file: { type: 'string', demandOption: true, requiresArg: true, describe: 'The markdown plan (sitesync plan --format markdown)' },
  provider: { choices: ['github', 'gitlab'], describe: 'Default: detected from the CI environment' },
  pr: {
    type: 'number',
    requiresArg: true,
    describe: 'The pull/merge request number (default: from the CI environment; after a merge, the pushed commit’s pull request)',
  },
  new: { type: 'boolean', describe: 'Post FILE as a new comment (e.g. the result of apply) instead of updating the plan comment' },
  id: {
    type: 'string',
    requiresArg: true,
    describe: "Which config's plan comment (default: the config path plan wrote into FILE's marker): one comment per config",
  },
} as const;

const approvedOptions = {
  output: { alias: 'o', type: 'string', demandOption: true, requiresArg: true, describe: 'Where to write the approved plan (the comment as posted), for apply --approved FILE' },
  id: { type: 'string', requiresArg: true, describe: "Which config's plan comment (default: sitesync.yaml's): the config path, as plan -c names it" },
  provider: commentOptions.provider,
  pr: { ...commentOptions.pr, describe: 'The pull/merge request number (default: the one the pushed commit merged)' },
} as const;

const summaryOptions = {
  file: { type: 'string', demandOption: true, requiresArg: true, describe: 'The markdown to add' },
  title: { type: 'string', requiresArg: true, describe: 'A heading above it' },
} as const;

export const ciCommentCommand = defineCommand({
  path: ['ci', 'comment'],
  describe: 'Post FILE as the plan comment of this pull/merge request, updating the one found by its marker',
  options: commentOptions,
  online: false,
  examples: [
    ['$0 ci comment --file plan.md', 'In a pull-request job, with GITHUB_TOKEN set'],
    ['$0 ci comment --file plan.md --id sites/eu.yaml', 'The comment of a second config, even when its plan failed'],
  ],
  run: runCiComment,
});

export const ciApprovedCommand = defineCommand({
  path: ['ci', 'approved'],
  describe:
    "After a merge: write the merged pull/merge request's plan comment (the plan its reviewers approved) to FILE, for `apply --approved FILE`. Only a comment this token's own user wrote, never a person's or another bot's, nor (GitHub) one anyone else edited since",
  options: approvedOptions,
  online: false,
  examples: [
    ['$0 ci approved -o approved.md && sitesync apply --auto-approve --approved approved.md', 'In the job that applies a push to the default branch'],
    ['$0 ci approved -o approved.md --id sites/eu.yaml', "A second config's plan comment"],
    ['$0 ci approved -o approved.md --provider gitlab', 'On GitLab: the merge request of CI_COMMIT_SHA'],
  ],
  run: runCiApproved,
});

export const ciSummaryCommand = defineCommand({
  path: ['ci', 'summary'],
  describe: "Append FILE to the job summary (GitHub's $GITHUB_STEP_SUMMARY), or print it",
  options: summaryOptions,
  online: false,
  run: runCiSummary,
});

const SAID = { posted: 'Posted the plan comment', updated: 'Updated the plan comment', unchanged: 'The plan comment is up to date' };

async function runCiComment(args: CommandArgs<typeof commentOptions>, ctx: Context): Promise<number> {
  if (args.pr !== undefined && !(Number.isInteger(args.pr) && args.pr > 0)) {
    throw new UsageError('--pr must be the number of the pull/merge request, e.g. --pr 12');
  }
  const text = await readInput(args.file, ctx);
  const thread = await threadFor(args.provider ?? detectProvider(ctx.env), args.pr, ctx);
  if (args.new) {
    const note = (n: number) => `_…cut: ${n.toLocaleString('en-US')} characters, over ${thread.service}'s limit; the rest is in the job log._`;
    const comment = await thread.create(cutMarkdown(text, thread.maxBody - 1_000, note));
    ctx.stdout.write(`Posted a comment: ${printable(comment.url)}\n`);
    return 0;
  }
  const { outcome, comment } = await upsertPlanComment(thread, text, args.id);
  ctx.stdout.write(`${SAID[outcome]}: ${printable(comment.url)}\n`);
  return 0;
}

async function runCiApproved(args: CommandArgs<typeof approvedOptions>, ctx: Context): Promise<number> {
  if (args.pr !== undefined && !(Number.isInteger(args.pr) && args.pr > 0)) {
    throw new UsageError('--pr must be the number of the pull/merge request, e.g. --pr 12');
  }
  const out = resolve(ctx.cwd, args.output);
  await assertOutputFile(out, args.output, '--output', true);
  const thread = await threadFor(args.provider ?? detectProvider(ctx.env), args.pr, ctx);
  const comment = await findApprovedComment(thread, args.id);
  if (typeof comment === 'string') throw new SitesyncError(comment);
  await writeAtomic(out, comment.body).catch((error: unknown) => {
    throw writeFailure(error, '--output', args.output);
  });
  ctx.stdout.write(`Wrote the approved plan of ${thread.where} (${printable(comment.url)}) to ${args.output}\n`);
  return 0;
}

async function runCiSummary(args: CommandArgs<typeof summaryOptions>, ctx: Context): Promise<number> {
  const section = summarySection(await readInput(args.file, ctx), args.title);
  if (await appendJobSummary(ctx.env.GITHUB_STEP_SUMMARY, section)) {
    ctx.stdout.write(`Added ${args.file} to the job summary.\n`);
  } else {
    ctx.stdout.write(section);
  }
  return 0;
}

async function threadFor(provider: Provider, pr: number | undefined, ctx: Context): Promise<CommentThread> {
  const http = ciHttp(ctx);
  if (provider === 'github') {
    const target = await githubTarget(ctx.env, pr, http);
    ctx.secrets.add(target.token);
    return githubThread(target, http);
  }
  const target = await gitlabTarget(ctx.env, pr, http);
  ctx.secrets.add(target.token);
  return gitlabThread(target, http);
}

/** How the CI helpers talk to GitHub and GitLab in this run: its signal, its secrets, its log. */
export function ciHttp(ctx: Context): HttpOptions {
  return {
    signal: ctx.signal,
    secrets: ctx.secrets,
    log: ctx.verbose ? (line: string) => ctx.stderr.write(`${printable(line)}\n`) : undefined,
    note: (line: string) => ctx.stderr.write(`${ctx.err.dim(`Note: ${printable(line)}`)}\n`),
  };
}

export function detectProvider(env: Env): Provider {
  if (env.GITHUB_ACTIONS === 'true') return 'github';
  if (env.GITLAB_CI === 'true') return 'gitlab';
  throw new UsageError('cannot tell which CI this is (neither GITHUB_ACTIONS nor GITLAB_CI is set): pass --provider github or --provider gitlab');
}

async function readInput(file: string, ctx: Context): Promise<string> {
  try {
    return await readTextFile(resolve(ctx.cwd, file), 'markdown file');
  } catch (error) {
    // The config loader's wording ("N problems found; nothing was changed on the service") does not fit here.
    if (error instanceof ConfigError) throw new SitesyncError(`--file ${file}: ${error.diagnostics[0]?.message ?? error.message}`);
    throw error;
  }
}
