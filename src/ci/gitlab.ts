/**
 * The notes of a GitLab merge request, over the REST API (v4). Inputs come from what GitLab CI
 * sets (CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID in merge-request pipelines) and
 * GITLAB_TOKEN: a project access token with the `api` scope. CI_JOB_TOKEN cannot be used: GitLab
 * does not let it write merge-request notes.
 */
import type { Env } from '../config/interpolate.js';
import { SitesyncError } from '../errors.js';
import { packageVersion } from '../paths.js';
import { serviceMessage } from '../service/errors.js';
import { apiRoot, apiUrl, header, nextLink, pinnedNext, readAllPages, sendJson, type Answer, type HttpOptions } from './http.js';
import type { CommentThread, ThreadComment } from './upsert.js';

/** GitLab's own limit is 1,000,000; the plan stays far below either way. */
export const GITLAB_MAX_BODY = 1_000_000;

export interface GitLabTarget {
  api: URL;
  token: string;
  project: string;
  iid: number;
  /** The merge request's web page, for the note's link. */
  mrUrl?: string;
  runUrl?: string;
}

export function gitlabTarget(env: Env, iid?: number): GitLabTarget {
  const token = env.GITLAB_TOKEN?.trim();
  if (!token) {
    throw new SitesyncError(
      'GITLAB_TOKEN is not set: create a project access token (role Reporter, scope api) and add it as a masked CI/CD variable GITLAB_TOKEN; CI_JOB_TOKEN cannot write merge-request notes',
    );
  }
  if (!env.CI_API_V4_URL) throw new SitesyncError('CI_API_V4_URL is not set (GitLab CI sets it, e.g. https://gitlab.com/api/v4)');
  const api = apiRoot(env.CI_API_V4_URL, 'CI_API_V4_URL');
  const project = env.CI_PROJECT_ID?.trim();
  if (!project) throw new SitesyncError('CI_PROJECT_ID is not set (GitLab CI sets it)');
  const number = iid ?? Number(env.CI_MERGE_REQUEST_IID);
  if (!Number.isInteger(number) || number < 1) {
    throw new SitesyncError(
      'no merge request: CI_MERGE_REQUEST_IID is not set. Run the job in merge-request pipelines (rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event"), or pass --pr IID',
    );
  }
  const projectUrl = env.CI_MERGE_REQUEST_PROJECT_URL || env.CI_PROJECT_URL;
  return {
    api,
    token,
    project,
    iid: number,
    mrUrl: projectUrl ? `${projectUrl.replace(/\/+$/, '')}/-/merge_requests/${number}` : undefined,
    runUrl: env.CI_JOB_URL || undefined,
  };
}

interface WireNote {
  id: number;
  body?: string | null;
  system?: boolean;
  author?: { username?: string } | null;
}

export class GitLabThread implements CommentThread {
  readonly service = 'GitLab';
  readonly maxBody = GITLAB_MAX_BODY;
  readonly runUrl?: string;
  private readonly headers: Record<string, string>;
  private readonly where: string;

  constructor(
    private readonly target: GitLabTarget,
    private readonly http: Omit<HttpOptions, 'service'> = {},
  ) {
    this.runUrl = target.runUrl;
    this.headers = { 'private-token': target.token, accept: 'application/json', 'user-agent': `sitesync/${packageVersion()}` };
    this.where = `merge request !${target.iid} of project ${target.project}`;
  }

  /** The token's user (a project access token has its own bot user); unknown if GitLab will not say. */
  async whoAmI(): Promise<string | undefined> {
    const answer = await sendJson({ method: 'GET', url: apiUrl(this.target.api, '/user'), headers: this.headers }, this.options());
    if (answer.status === 401) throw this.failure(answer, `read ${this.where}`, false);
    const username = (answer.body as { username?: unknown } | undefined)?.username;
    return answer.status === 200 && typeof username === 'string' ? username : undefined;
  }

  async list(): Promise<ThreadComment[]> {
    const first = this.url('/notes', { per_page: '100', sort: 'asc', order_by: 'created_at' });
    const items = await readAllPages(
      first,
      (url) => this.send('GET', url, undefined, 'read the notes of'),
      (answer) => this.nextPage(answer, first),
      `GitLab notes on ${this.where}`,
    );
    return (items as WireNote[]).filter((n) => !n?.system).map((n) => this.toComment(n));
  }

  async create(body: string): Promise<ThreadComment> {
    const answer = await this.send('POST', this.url('/notes'), { body }, 'write a note on');
    return this.toComment(answer.body as WireNote);
  }

  async update(id: number, body: string): Promise<ThreadComment | undefined> {
    const answer = await this.send('PUT', this.url(`/notes/${id}`), { body }, 'update a note on', [404]);
    return answer.status === 404 ? undefined : this.toComment(answer.body as WireNote);
  }

  /** X-Next-Page (a page number, asked of our own URL) first; else a `Link` on the same origin. */
  private nextPage(answer: Answer, first: URL): URL | undefined {
    const page = header(answer.headers, 'x-next-page');
    if (page !== undefined) {
      if (!/^\d+$/.test(page.trim())) return undefined; // empty on the last page
      const url = new URL(first.href);
      url.searchParams.set('page', page.trim());
      return url;
    }
    const next = nextLink(answer.headers.link);
    return next === undefined ? undefined : pinnedNext(next, this.target.api, 'GitLab', 'CI_API_V4_URL');
  }

  private url(path: string, query?: Record<string, string>): URL {
    const { project, iid } = this.target;
    return apiUrl(this.target.api, `/projects/${encodeURIComponent(project)}/merge_requests/${iid}${path}`, query);
  }

  private options(): HttpOptions {
    return { ...this.http, service: 'GitLab' };
  }

  private async send(method: 'GET' | 'POST' | 'PUT', url: URL, json: unknown, action: string, allowed: number[] = []): Promise<Answer> {
    const answer = await sendJson({ method, url, headers: this.headers, json }, this.options());
    if ((answer.status >= 200 && answer.status < 300) || allowed.includes(answer.status)) return answer;
    throw this.failure(answer, `${action} ${this.where}`, method !== 'GET');
  }

  private failure(answer: Answer, what: string, writing: boolean): SitesyncError {
    const { status } = answer;
    // GitLab says why in `message`, or in `error` (OAuth-style answers such as insufficient_scope).
    const said = serviceMessage(answer.body) ?? serviceMessage({ message: (answer.body as { error?: unknown } | undefined)?.error });
    const detail = `${status}${said ? `: ${said}` : ''}`;
    if (status === 401) {
      return new SitesyncError(
        `GitLab did not accept GITLAB_TOKEN (${detail}): is it expired or revoked? It must be a project access token with the api scope (CI_JOB_TOKEN cannot write notes)`,
      );
    }
    if (status === 403) {
      return new SitesyncError(
        writing
          ? `the token cannot ${what} (${detail}): it needs the api scope and at least the Reporter role in the project`
          : `the token cannot ${what} (${detail}): it needs the api scope and access to the project`,
      );
    }
    if (status === 404) {
      return new SitesyncError(`GitLab has no ${this.where}, or the token cannot see it (${detail})`);
    }
    if (status === 400 || status === 422) return new SitesyncError(`GitLab refused to ${what} (${detail})`);
    if (status === 429) return new SitesyncError(`GitLab's rate limit is used up (${detail}); try again later`);
    if (status >= 300 && status < 400) {
      return new SitesyncError(`GitLab answered with a redirect (${status}): CI_API_V4_URL should be the API's address, e.g. https://gitlab.com/api/v4`);
    }
    return new SitesyncError(`GitLab could not ${what} (${detail})`);
  }

  private toComment(n: WireNote): ThreadComment {
    if (!n || typeof n.id !== 'number') throw new SitesyncError('GitLab answered with a note that has no id');
    return {
      id: n.id,
      body: n.body ?? '',
      author: n.author?.username ?? '',
      // Project and group access tokens write as bot users named like this.
      bot: /^(project|group)_\d+_bot/.test(n.author?.username ?? ''),
      url: this.target.mrUrl ? `${this.target.mrUrl}#note_${n.id}` : `note ${n.id} on !${this.target.iid}`,
    };
  }
}
