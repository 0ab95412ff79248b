/**
 * The notes of a GitLab merge request, over the REST API (v4). Inputs come from what GitLab CI
 * sets (CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID in merge-request pipelines) and
 * GITLAB_TOKEN: a project access token with the `api` scope. CI_JOB_TOKEN cannot be used: GitLab
 * does not let it write merge-request notes.
 */
import type { Env } from '../io/context.js';
import { SitesyncError } from '../messages/errors.js';
import { packageVersion } from '../io/paths.js';
import { apiRoot, ApiThread, JsonApi, wireText, type CiService, type HttpOptions } from './http.js';
import { header, type Answer } from '../service/transport.js';
import type { CommentThread } from './plan-comment.js';

/** GitLab's own limit is 1,000,000; the plan stays far below either way. */
export const GITLAB_MAX_BODY = 1_000_000;

export const GITLAB: CiService = {
  name: 'GitLab',
  addressVariable: 'CI_API_V4_URL',
  tokenVariable: 'GITLAB_TOKEN',
  example: 'https://gitlab.com/api/v4',
  unauthorized: () => 'is it expired or revoked? It must be a project access token with the api scope (CI_JOB_TOKEN cannot write notes)',
  cannotWrite: 'it needs the api scope and at least the Reporter role in the project',
  cannotRead: 'it needs the api scope and access to the project',
  notFound: 'check CI_PROJECT_ID and --pr',
};

/** The project a pipeline runs in, and the token to write with. */
export interface GitLabProject {
  api: URL;
  token: string;
  project: string;
  /** The project's web page. */
  projectUrl?: string;
  runUrl?: string;
}

export interface GitLabTarget extends GitLabProject {
  iid: number;
  /** The merge request's web page, for the note's link. */
  mrUrl?: string;
}

/** Reads the project from the environment; `what` is what the token writes ("merge-request notes"). */
export function gitlabProject(env: Env, what = 'merge-request notes'): GitLabProject {
  const token = env.GITLAB_TOKEN?.trim();
  if (!token) {
    throw new SitesyncError(
      `GITLAB_TOKEN is not set: create a project access token (role Reporter, scope api) and add it as a masked CI/CD variable GITLAB_TOKEN; CI_JOB_TOKEN cannot write ${what}`,
    );
  }
  if (!env.CI_API_V4_URL) throw new SitesyncError(`CI_API_V4_URL is not set (GitLab CI sets it, e.g. ${GITLAB.example})`);
  const api = apiRoot(env.CI_API_V4_URL, GITLAB);
  const project = env.CI_PROJECT_ID?.trim();
  if (!project) throw new SitesyncError('CI_PROJECT_ID is not set (GitLab CI sets it)');
  return { api, token, project, projectUrl: env.CI_PROJECT_URL?.replace(/\/+$/, '') || undefined, runUrl: env.CI_JOB_URL || undefined };
}

/**
 * The merge request: CI_MERGE_REQUEST_IID (a merge-request pipeline), `iid` (--pr), else, in a
 * pipeline of a push to a branch (the apply after a merge), the one the pushed commit merged.
 */
export async function gitlabTarget(env: Env, iid?: number, http: HttpOptions = {}): Promise<GitLabTarget> {
  const project = gitlabProject(env);
  const given = iid ?? (env.CI_MERGE_REQUEST_IID ? Number(env.CI_MERGE_REQUEST_IID) : undefined);
  const pushed = env.CI_COMMIT_SHA?.trim();
  const number = given ?? (pushed && /^[0-9a-f]{40}$/.test(pushed) ? await mergeRequestOfCommit(project, pushed, http) : Number.NaN);
  if (!Number.isInteger(number) || number < 1) {
    throw new SitesyncError(
      'no merge request: CI_MERGE_REQUEST_IID is not set. Run the job in merge-request pipelines (rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event"), or pass --pr IID',
    );
  }
  const projectUrl = env.CI_MERGE_REQUEST_PROJECT_URL || env.CI_PROJECT_URL;
  return {
    ...project,
    iid: number,
    mrUrl: projectUrl ? `${projectUrl.replace(/\/+$/, '')}/-/merge_requests/${number}` : undefined,
  };
}

/**
 * The merge request a pushed commit came from: the one it merged (or squashed), else a merged one
 * (a fast-forward merge records neither commit). Never an open one, which merged nothing: GitLab
 * also lists every open merge request that holds the commit, and its note approves what it shows.
 */
async function mergeRequestOfCommit(target: GitLabProject, sha: string, http: HttpOptions): Promise<number> {
  const api = new JsonApi(target.api, GITLAB, gitlabHeaders(target.token), `commit ${sha.slice(0, 12)} of project ${target.project}`, http);
  const answer = await api.call('GET', api.url(`/projects/${encodeURIComponent(target.project)}/repository/commits/${sha}/merge_requests`), 'find the merge request of');
  // Read liberally: entries that are not objects are skipped.
  const requests = (Array.isArray(answer.body) ? (answer.body as unknown[]) : []).filter(
    (m): m is { iid?: unknown; state?: unknown; merge_commit_sha?: unknown; squash_commit_sha?: unknown } => typeof m === 'object' && m !== null,
  );
  const found = requests.find((m) => m.merge_commit_sha === sha || m.squash_commit_sha === sha) ?? requests.find((m) => m.state === 'merged');
  if (typeof found?.iid !== 'number') {
    throw new SitesyncError(`no merge request found for the pushed commit ${sha.slice(0, 12)} (a push straight to the branch?); pass --pr IID`);
  }
  return found.iid;
}

/** The headers of every request to GitLab's API: the token as PRIVATE-TOKEN. */
export function gitlabHeaders(token: string): Record<string, string> {
  return { 'private-token': token, accept: 'application/json', 'user-agent': `sitesync/${packageVersion()}` };
}

/** The username the token writes as (a project access token has its own bot user); undefined if GitLab will not say. */
export async function gitlabUser(api: JsonApi): Promise<string | undefined> {
  const answer = await api.send('GET', api.url('/user'));
  if (answer.status === 401) throw api.failure(answer, 'read', false);
  const username = (answer.body as { username?: unknown } | undefined)?.username;
  return answer.status === 200 && typeof username === 'string' ? username : undefined;
}

/** X-Next-Page (a page number, asked of our own URL) first; else a `Link` on the same origin. */
export function gitlabNextPage(api: JsonApi, first: URL): (answer: Answer) => URL | undefined {
  return (answer) => {
    const page = header(answer.headers, 'x-next-page')?.trim();
    if (page === undefined) return api.linkedNext(answer);
    if (!/^\d+$/.test(page)) return undefined; // empty on the last page
    const next = new URL(first.href);
    next.searchParams.set('page', page);
    return next;
  };
}

/** A note as GitLab sends it; read liberally, as any field may be missing or of another type. */
interface WireNote {
  id: number;
  body?: unknown;
  system?: unknown;
  author?: { username?: unknown } | null;
}

/** The notes of the merge request, over GitLab's REST API. */
export function gitlabThread(target: GitLabTarget, http: HttpOptions = {}): CommentThread {
  const { project, iid, mrUrl } = target;
  const api = new JsonApi(target.api, GITLAB, gitlabHeaders(target.token), `merge request !${iid} of project ${project}`, http);
  const url = (path: string, query?: Record<string, string>) => api.url(`/projects/${encodeURIComponent(project)}/merge_requests/${iid}${path}`, query);
  const first = url('/notes', { per_page: '100', sort: 'asc', order_by: 'created_at' });
  return new ApiThread<WireNote>(
    api,
    {
      list: first,
      nextPage: gitlabNextPage(api, first),
      create: ['POST', url('/notes')],
      update: (id) => ['PUT', url(`/notes/${id}`)],
      noun: 'note',
      read: (n) => ({
        id: n.id,
        body: wireText(n.body),
        author: wireText(n.author?.username),
        url: mrUrl ? `${mrUrl}#note_${n.id}` : `note ${n.id} on !${iid}`,
      }),
      skip: (n) => n?.system === true,
      whoAmI: () => gitlabUser(api),
    },
    GITLAB_MAX_BODY,
    target.runUrl,
  );
}

/** An open merge request, as `ci plan-open` needs it. */
export interface OpenMergeRequest {
  iid: number;
  title: string;
  /** Its head commit, as GitLab last saw it. */
  sha: string;
  webUrl?: string;
}

/** The open merge requests into `targetBranch`, a page of 100 per request. */
export async function openMergeRequests(target: GitLabProject, targetBranch: string, http: HttpOptions = {}): Promise<OpenMergeRequest[]> {
  const api = new JsonApi(target.api, GITLAB, gitlabHeaders(target.token), `project ${target.project}`, http);
  const first = api.url(`/projects/${encodeURIComponent(target.project)}/merge_requests`, {
    state: 'opened',
    target_branch: targetBranch,
    per_page: '100',
    order_by: 'created_at',
    sort: 'asc',
  });
  const items = (await api.list(first, 'list the open merge requests of', gitlabNextPage(api, first))) as Array<Record<string, unknown> | null>;
  // Read liberally: an entry without a number is no merge request to plan.
  return items.flatMap((m) =>
    typeof m?.iid === 'number' && Number.isInteger(m.iid) && m.iid > 0
      ? [{ iid: m.iid, title: wireText(m.title), sha: wireText(m.sha), webUrl: wireText(m.web_url) || undefined }]
      : [],
  );
}
