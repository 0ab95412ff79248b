/** `sitesync ci comment` and `sitesync ci summary`: the CI recipes' helpers. */
import { resolve } from 'node:path';
import { readTextFile } from '../config/read.js';
import { ConfigError, SitesyncError, UsageError } from '../messages/errors.js';
import { githubTarget, githubThread } from '../ci/github.js';
import { gitlabTarget, gitlabThread } from '../ci/gitlab.js';
import { cutMarkdown } from '../ci/cut.js';
import { appendJobSummary, summarySection } from '../ci/summary.js';
import { upsertPlanComment, type CommentThread } from '../ci/upsert.js';
import type { Env } from '../config/interpolate.js';
import { printable } from '../messages/escape.js';
import type { Context } from '../io/terminal.js';

type Provider = 'github' | 'gitlab';

export interface CiCommentArgs {
  file: string;
  provider?: Provider;
  pr?: number;
  new?: boolean;
  /** Which config's comment: default, the id in FILE's marker (plan writes the config's path there). */
  id?: string;
}

export interface CiSummaryArgs {
  file: string;
  title?: string;
}

const SAID = { posted: 'Posted the plan comment', updated: 'Updated the plan comment', unchanged: 'The plan comment is up to date' };

export async function runCiComment(args: CiCommentArgs, ctx: Context): Promise<number> {
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

export async function runCiSummary(args: CiSummaryArgs, ctx: Context): Promise<number> {
  const section = summarySection(await readInput(args.file, ctx), args.title);
  if (await appendJobSummary(ctx.env.GITHUB_STEP_SUMMARY, section)) {
    ctx.stdout.write(`Added ${args.file} to the job summary.\n`);
  } else {
    ctx.stdout.write(section);
  }
  return 0;
}

async function threadFor(provider: Provider, pr: number | undefined, ctx: Context): Promise<CommentThread> {
  const http = {
    signal: ctx.signal,
    secrets: ctx.secrets,
    log: ctx.verbose ? (line: string) => ctx.stderr.write(`${printable(line)}\n`) : undefined,
  };
  if (provider === 'github') {
    const target = await githubTarget(ctx.env, pr, http);
    ctx.secrets.add(target.token);
    return githubThread(target, http);
  }
  const target = gitlabTarget(ctx.env, pr);
  ctx.secrets.add(target.token);
  return gitlabThread(target, http);
}

function detectProvider(env: Env): Provider {
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
