/**
 * The comments of a GitHub pull request, over the REST API: exactly what the plan comment needs.
 * Inputs come from what GitHub Actions sets: GITHUB_API_URL, GITHUB_TOKEN (passed by the
 * workflow), GITHUB_REPOSITORY and the event payload at GITHUB_EVENT_PATH.
 */
import { readFile } from 'node:fs/promises';
import type { Env } from '../config/interpolate.js';
import { SitesyncError } from '../errors.js';
import { packageVersion } from '../paths.js';
import { serviceMessage } from '../service/errors.js';
import { apiRoot, apiUrl, header, nextLink, pinnedNext, readAllPages, sendJson, type Answer, type HttpOptions } from './http.js';
import type { CommentThread, ThreadComment } from './upsert.js';

/** GitHub refuses longer comment bodies. */
export const GITHUB_MAX_BODY = 65_536;

export interface GitHubTarget {
  api: URL;
  token: string;
  owner: string;
  repo: string;
  pr: number;
  runUrl?: string;
}

/** Reads the target from the environment; `pr` (from --pr) wins over the event payload. */
export async function githubTarget(env: Env, pr?: number): Promise<GitHubTarget> {
  const token = env.GITHUB_TOKEN?.trim();
  if (!token) {
    throw new SitesyncError(
      'GITHUB_TOKEN is not set: pass it to the step (env: GITHUB_TOKEN: ${{ github.token }}) and give the job `permissions: pull-requests: write`',
    );
  }
  const api = apiRoot(env.GITHUB_API_URL || 'https://api.github.com', 'GITHUB_API_URL');
  const repository = env.GITHUB_REPOSITORY?.trim() ?? '';
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repository);
  if (!match) {
    throw new SitesyncError(
      repository ? `GITHUB_REPOSITORY is "${repository}", not owner/name` : 'GITHUB_REPOSITORY is not set (GitHub Actions sets it: owner/name)',
    );
  }
  const fromEvent = pr ?? (await prFromEvent(env.GITHUB_EVENT_PATH));
  const number =
    typeof fromEvent === 'number' ? fromEvent : await prOfCommit(apiUrl(api, `/repos/${repository}/commits/${fromEvent.pushed}/pulls`), token);
  const server = env.GITHUB_SERVER_URL;
  const runUrl = server && env.GITHUB_RUN_ID ? `${server.replace(/\/+$/, '')}/${repository}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  return { api, token, owner: match[1]!, repo: match[2]!, pr: number, runUrl };
}

/**
 * `pull_request.number` (pull_request events), else `issue.number` (comments on a pull request),
 * else, for a push (the apply after a merge), the commit pushed, whose pull request GitHub knows.
 */
async function prFromEvent(path: string | undefined): Promise<number | { pushed: string }> {
  const hint = 'run it in a pull_request workflow, or pass --pr N';
  if (!path) throw new SitesyncError(`no pull request number: GITHUB_EVENT_PATH is not set; ${hint}`);
  let event: { pull_request?: { number?: unknown }; issue?: { number?: unknown }; after?: unknown };
  try {
    event = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new SitesyncError(`cannot read the event payload at GITHUB_EVENT_PATH (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const number = event?.pull_request?.number ?? event?.issue?.number;
  if (number === undefined && typeof event?.after === 'string' && /^[0-9a-f]{40}$/.test(event.after)) return { pushed: event.after };
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1) {
    throw new SitesyncError(`no pull request number in this event's payload; ${hint}`);
  }
  return number;
}

/** The pull request a pushed commit came from: the one it merged, else the first GitHub lists. */
async function prOfCommit(url: URL, token: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': `sitesync/${packageVersion()}` };
  const answer = await sendJson({ method: 'GET', url, headers }, { service: 'GitHub' });
  const sha = url.pathname.split('/').at(-2);
  const pulls = answer.status === 200 && Array.isArray(answer.body) ? (answer.body as Array<{ number?: unknown; merge_commit_sha?: unknown }>) : [];
  const found = pulls.find((p) => p.merge_commit_sha === sha) ?? pulls[0];
  if (typeof found?.number !== 'number') {
    throw new SitesyncError(`no pull request found for the pushed commit ${sha?.slice(0, 12)} (GitHub answered ${answer.status}); pass --pr N`);
  }
  return found.number;
}

interface WireComment {
  id: number;
  body?: string | null;
  html_url?: string;
  user?: { login?: string; type?: string } | null;
}

export class GitHubThread implements CommentThread {
  readonly service = 'GitHub';
  readonly maxBody = GITHUB_MAX_BODY;
  readonly runUrl?: string;
  private readonly headers: Record<string, string>;
  private readonly where: string;

  constructor(
    private readonly target: GitHubTarget,
    private readonly http: Omit<HttpOptions, 'service'> = {},
  ) {
    this.runUrl = target.runUrl;
    this.headers = {
      authorization: `Bearer ${target.token}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': `sitesync/${packageVersion()}`,
    };
    this.where = `pull request #${target.pr} of ${target.owner}/${target.repo}`;
  }

  /**
   * Unknown: GitHub Actions' token may not read /user. Its comments are by a bot account, which
   * `pickPlanComment` prefers.
   */
  async whoAmI(): Promise<string | undefined> {
    return undefined;
  }

  async list(): Promise<ThreadComment[]> {
    const items = await readAllPages(
      this.url(`/issues/${this.target.pr}/comments`, { per_page: '100' }),
      (url) => this.send('GET', url, undefined, 'read the comments of'),
      (answer) => {
        const next = nextLink(answer.headers.link);
        return next === undefined ? undefined : pinnedNext(next, this.target.api, 'GitHub', 'GITHUB_API_URL');
      },
      `GitHub comments on ${this.where}`,
    );
    return (items as WireComment[]).map(toComment);
  }

  async create(body: string): Promise<ThreadComment> {
    const answer = await this.send('POST', this.url(`/issues/${this.target.pr}/comments`), { body }, 'write a comment on');
    return toComment(answer.body as WireComment);
  }

  async update(id: number, body: string): Promise<ThreadComment | undefined> {
    const url = this.url(`/issues/comments/${id}`);
    const answer = await this.send('PATCH', url, { body }, 'update a comment on', [404]);
    return answer.status === 404 ? undefined : toComment(answer.body as WireComment);
  }

  private url(path: string, query?: Record<string, string>): URL {
    const { owner, repo } = this.target;
    return apiUrl(this.target.api, `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${path}`, query);
  }

  private async send(method: 'GET' | 'POST' | 'PATCH', url: URL, json: unknown, action: string, allowed: number[] = []): Promise<Answer> {
    const answer = await sendJson({ method, url, headers: this.headers, json }, { ...this.http, service: 'GitHub' });
    if ((answer.status >= 200 && answer.status < 300) || allowed.includes(answer.status)) return answer;
    throw this.failure(answer, `${action} ${this.where}`, method !== 'GET');
  }

  private failure(answer: Answer, what: string, writing: boolean): SitesyncError {
    const { status } = answer;
    const said = serviceMessage(answer.body);
    const detail = `${status}${said ? `: ${said}` : ''}`;
    if (status === 401) {
      return new SitesyncError(`GitHub did not accept GITHUB_TOKEN (${detail}): is it expired, or for another GitHub than ${this.target.api.host}?`);
    }
    if (status === 403 || status === 429) {
      if (status === 429 || header(answer.headers, 'x-ratelimit-remaining') === '0' || /rate limit/i.test(said ?? '')) {
        return new SitesyncError(`GitHub's API rate limit is used up (${detail}); try again later`);
      }
      return new SitesyncError(
        writing
          ? `the token cannot ${what} (${detail}): give the job \`permissions: pull-requests: write\` (pull requests from forks only get a read-only token)`
          : `the token cannot ${what} (${detail}): give the job \`permissions: pull-requests: read\` or more`,
      );
    }
    if (status === 404) {
      return new SitesyncError(`GitHub has no ${this.where}, or the token cannot see it (${detail}): check GITHUB_REPOSITORY and --pr`);
    }
    if (status === 422) return new SitesyncError(`GitHub refused to ${what} (${detail})`);
    if (status >= 300 && status < 400) {
      return new SitesyncError(`GitHub answered with a redirect (${status}): GITHUB_API_URL should be the API's address, e.g. https://api.github.com`);
    }
    return new SitesyncError(`GitHub could not ${what} (${detail})`);
  }
}

function toComment(c: WireComment): ThreadComment {
  if (!c || typeof c.id !== 'number') throw new SitesyncError('GitHub answered with a comment that has no id');
  return {
    id: c.id,
    body: c.body ?? '',
    author: c.user?.login ?? '',
    bot: c.user?.type === 'Bot',
    url: c.html_url ?? `comment ${c.id}`,
  };
}
