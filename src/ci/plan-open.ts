/**
 * `sitesync ci plan-open`: on the default branch, where the keys are, the plan of every open
 * merge request's files, kept as that merge request's note. A merge-request pipeline runs the
 * branch's own .gitlab-ci.yml, so it gets no key; this job runs the default branch's, and reads
 * each merge request as data: its head fetched (git.ts), its files read from git's objects
 * (config/git-revision.ts), planned with the default branch's copy of the config as the trusted
 * copy and the baseline.
 */
import { join, resolve, sep } from 'node:path';
import { revisionAt } from '../config/git-revision.js';
import { loadWorkspace } from '../config/load.js';
import type { FileSource } from '../config/source.js';
import type { Env } from '../io/context.js';
import { markdownText } from '../messages/escape.js';
import { splitApproved } from '../render/markdown.js';
import { fetchMergeRequestHeads, headRef, prefixOf } from './git.js';
import { commitOf } from '../io/git.js';
import type { OpenMergeRequest } from './gitlab.js';
import { upsertPlanComment, type CommentThread, type UpsertOutcome } from './plan-comment.js';

/** What planning one merge request's files gave. */
export interface FilesPlan {
  /** The plan's exit code as `plan --detailed-exitcode --fail-unsafe` gives it: 0, 2, or 1. */
  code: number;
  /** The markdown plan; empty when the files could not be planned. */
  markdown: string;
  /** Why they could not be planned (or what failed after the plan), each line as the CLI says it. */
  problems: string[];
}

export type MergeRequestState = 'no changes' | 'changes' | 'refused' | 'unchanged' | 'not planned';

export interface MergeRequestOutcome {
  mr: OpenMergeRequest;
  state: MergeRequestState;
  /** The commit planned, when one was fetched. */
  commit?: string;
  /** What happened to its note; undefined when it was left alone (unchanged files). */
  note?: { outcome: UpsertOutcome; url: string } | { failed: string };
  /** Why it could not be planned, or why the note could not be kept. */
  problems: string[];
}

export interface PlanOpenInput {
  /** The job's checkout folder, and the config file relative to it (the default branch's copy). */
  cwd: string;
  config: string;
  /** The default branch: messages name its copy `BRANCH:PATH`. */
  branch: string;
  env: Env;
  requests: OpenMergeRequest[];
  /** Plans the config file `config` in `folder` (this checkout's folder, under a top that exists nowhere), its files read from `source`. */
  plan(folder: string, source: FileSource): Promise<FilesPlan>;
  thread(mr: OpenMergeRequest): CommentThread;
  /** Said before each merge request's files are read and planned: progress on long work. */
  onStart?(mr: OpenMergeRequest, commit: string): void;
  signal?: AbortSignal;
  /** How long reading one merge request's files may take (READ_LIMIT_MS unless said). */
  readLimitMs?: number;
}

/**
 * How long the contents of one merge request's files may take to read (the config's and its
 * includes' blobs fetched and read; its tree's listing has its own bounds): a few seconds for any
 * repository of configs; a merge request
 * that takes longer (a config that names a huge file, a slow or hanging remote) is not planned, and
 * its note says so, so that one merge request cannot hold up the job and the others' plans.
 */
export const READ_LIMIT_MS = 30_000;

/** Plans each open merge request in turn and keeps its note; a failure of one stops no other. */
export async function planOpenMergeRequests(input: PlanOpenInput): Promise<MergeRequestOutcome[]> {
  const { cwd, config, env, requests } = input;
  const prefix = await prefixOf(cwd, env);
  await fetchMergeRequestHeads(cwd, env, requests.map((mr) => mr.iid), input.signal);
  // What "unchanged" is measured against: the default branch's config and the files it includes.
  const trusted = await loadWorkspace(join(cwd, config), env, { lenientEnv: true });
  const outcomes: MergeRequestOutcome[] = [];
  for (const mr of requests) {
    input.signal?.throwIfAborted();
    const commit = await commitOf(cwd, env, headRef(mr.iid));
    const outcome: MergeRequestOutcome = { mr, commit, state: 'not planned', problems: [] };
    outcomes.push(outcome);
    // Its files are read from git's objects, as stored (no checkout, no git archive: nothing of
    // it is written to disk, and no .gitattributes of its own changes what is read), under a top
    // folder that exists nowhere, so that no path of it is one of this checkout's.
    const top = resolve(sep, `.sitesync-merge-request-${mr.iid}`);
    const folder = join(top, prefix);
    const file = join(folder, config);
    let planned: FilesPlan;
    if (!commit) {
      planned = notPlanned(`its head (refs/merge-requests/${mr.iid}/head) could not be fetched`);
    } else {
      input.onStart?.(mr, commit);
      const limitMs = input.readLimitMs ?? READ_LIMIT_MS;
      const limit = new AbortController();
      const signal = input.signal ? AbortSignal.any([input.signal, limit.signal]) : limit.signal;
      // Its tree is listed (bounded by its own limits), then its files' contents are read once here,
      // within the time allowed (planning reads them again from memory).
      const source = await revisionAt({ cwd, commit, root: top, at: `!${mr.iid} (${commit.slice(0, 12)})`, shown: (rel) => rel, env, signal }).then(
        (revision) => revision,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      const timer = setTimeout(() => limit.abort(), limitMs);
      const same = typeof source === 'string' || !source.has(file) ? false : await sameFiles(file, source, trusted.sha256, env).finally(() => clearTimeout(timer));
      clearTimeout(timer);
      input.signal?.throwIfAborted();
      if (limit.signal.aborted) {
        planned = notPlanned(`its files could not be read within ${limitMs / 1000} seconds (its config or an included file may name a very large file): sitesync reads none of it`);
      } else if (typeof source === 'string') {
        planned = notPlanned(source);
      } else if (!source.has(file)) {
        planned = notPlanned(`its files have no ${prefix}${config}`);
      } else if (same) {
        // Its config files are the default branch's: its plan would be the default branch's.
        outcome.state = 'unchanged';
        continue;
      } else {
        planned = await input.plan(folder, source);
        // Paths as the merge request's author knows them: from the top of the repository, the trusted copy as BRANCH:PATH.
        const checkoutTop = join(cwd, '/').slice(0, -1 - prefix.length) || '/';
        planned.problems = planned.problems.map((line) => line.replaceAll(`${top}/`, '').replaceAll(top, 'the top of the repository').replaceAll(`${checkoutTop}/`, `${input.branch}:`));
      }
    }
    outcome.state = stateOf(planned);
    outcome.problems = planned.problems;
    const text = noteText(planned, mr, commit, config);
    try {
      const kept = await upsertPlanComment(input.thread(mr), text, config);
      outcome.note = { outcome: kept.outcome, url: kept.comment.url };
    } catch (error) {
      outcome.note = { failed: error instanceof Error ? error.message : String(error) };
    }
  }
  return outcomes;
}

function notPlanned(why: string): FilesPlan {
  return { code: 1, markdown: '', problems: [why] };
}

function stateOf(planned: FilesPlan): MergeRequestState {
  if (planned.markdown.trim() === '') return 'not planned';
  return planned.code === 2 ? 'changes' : planned.code === 0 ? 'no changes' : 'refused';
}

/** Whether the merge request's config and the files it includes are the default branch's, names and text. */
async function sameFiles(file: string, source: FileSource, trustedSha256: string, env: Env): Promise<boolean> {
  const own = await loadWorkspace(file, env, { lenientEnv: true, source }).catch(() => undefined);
  return own?.sha256 === trustedSha256;
}

/** The note: the plan (its own marker first), or why there is none; then which commit was planned against what. */
function noteText(planned: FilesPlan, mr: OpenMergeRequest, commit: string | undefined, config: string): string {
  const at = commit ? ` at \`${commit.slice(0, 12)}\`` : '';
  const footer = `_The files of !${mr.iid}${at}, planned by the default branch's pipeline against its ${markdownText(config)} (the trusted copy and the baseline). A branch behind the default branch shows the default branch's later changes undone: rebase it._`;
  if (planned.markdown.trim() !== '') {
    // Above the hidden block of what the plan approves, which ends the plan (and the note) as plan wrote it.
    const { visible, block } = splitApproved(planned.markdown.trimEnd());
    const after = planned.problems.length ? `\n\n${planned.problems.map((l) => `- ${markdownText(l)}`).join('\n')}` : '';
    return `${visible}${after}\n\n${footer}\n${block ? `${block}\n` : ''}`;
  }
  return [
    '### sitesync plan failed',
    '',
    `The files of !${mr.iid}${at} could not be planned:`,
    '',
    ...planned.problems.map((line) => `- ${markdownText(line)}`),
    '',
    footer,
    '',
  ].join('\n');
}
