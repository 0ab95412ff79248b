/**
 * The comments of a GitHub pull request, over the REST API: exactly what the plan comment needs.
 * Inputs come from what GitHub Actions sets: GITHUB_API_URL, GITHUB_TOKEN (passed by the
 * workflow), GITHUB_REPOSITORY and the event payload at GITHUB_EVENT_PATH.
 */
import { readFile } from 'node:fs/promises';
import type { Env } from '../io/context.js';
import { SitesyncError } from '../messages/errors.js';
import { packageVersion } from '../io/paths.js';
import { apiRoot, ApiThread, JsonApi, wireText, type CiService, type HttpOptions } from './http.js';
import type { CommentThread, ThreadComment } from './plan-comment.js';

/** GitHub refuses longer comment bodies. */
export const GITHUB_MAX_BODY = 65_536;

export const GITHUB: CiService = {
  name: 'GitHub',
  addressVariable: 'GITHUB_API_URL',
  tokenVariable: 'GITHUB_TOKEN',
  example: 'https://api.github.com',
  unauthorized: (api) => `is it expired, or for another GitHub than ${api.host}?`,
  cannotWrite: 'give the job `permissions: pull-requests: write` (pull requests from forks only get a read-only token)',
  cannotRead: 'give the job `permissions: pull-requests: read` or more',
  notFound: 'check GITHUB_REPOSITORY and --pr',
};

export function githubHeaders(token: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
    'user-agent': `sitesync/${packageVersion()}`,
  };
}

/** The repository a workflow runs in, and the token it was given. */
export interface GitHubRepository {
  api: URL;
  token: string;
  owner: string;
  repo: string;
  runUrl?: string;
  /** Run by GitHub Actions (GITHUB_ACTIONS), whose token writes as github-actions[bot]. */
  actions: boolean;
}

export interface GitHubTarget extends GitHubRepository {
  pr: number;
}

/** Reads the repository from the environment; `permission` is what the job must grant the token. */
export function githubRepository(env: Env, permission = 'pull-requests: write'): GitHubRepository {
  const token = env.GITHUB_TOKEN?.trim();
  if (!token) {
    throw new SitesyncError(
      `GITHUB_TOKEN is not set: pass it to the step (env: GITHUB_TOKEN: \${{ github.token }}) and give the job \`permissions: ${permission}\``,
    );
  }
  const api = apiRoot(env.GITHUB_API_URL || GITHUB.example, GITHUB);
  const repository = env.GITHUB_REPOSITORY?.trim() ?? '';
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repository);
  if (!match) {
    throw new SitesyncError(
      repository ? `GITHUB_REPOSITORY is "${repository}", not owner/name` : 'GITHUB_REPOSITORY is not set (GitHub Actions sets it: owner/name)',
    );
  }
  const server = env.GITHUB_SERVER_URL;
  const runUrl = server && env.GITHUB_RUN_ID ? `${server.replace(/\/+$/, '')}/${repository}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  return { api, token, owner: match[1]!, repo: match[2]!, runUrl, actions: env.GITHUB_ACTIONS === 'true' };
}

/** The login GitHub Actions' own token (GITHUB_TOKEN) writes comments and issues as. */
export const ACTIONS_LOGIN = 'github-actions[bot]';

/**
 * The login the token writes as. In GitHub Actions, the workflow's token, which cannot read
 * /user: github-actions[bot]. Elsewhere (a personal token), as /user says; undefined when it
 * will not say, and then no marked comment or issue is taken for the token's own.
 */
export async function githubLogin(api: JsonApi, actions: boolean): Promise<string | undefined> {
  if (actions) return ACTIONS_LOGIN;
  const answer = await api.send('GET', api.url('/user'));
  if (answer.status === 401) throw api.failure(answer, 'read', false);
  const login = (answer.body as { login?: unknown } | undefined)?.login;
  return answer.status === 200 && typeof login === 'string' ? login : undefined;
}

/** Reads the target from the environment; `pr` (from --pr) wins over the event payload. */
export async function githubTarget(env: Env, pr?: number, http: HttpOptions = {}): Promise<GitHubTarget> {
  const repository = githubRepository(env);
  const { api, token, owner, repo } = repository;
  const fromEvent = pr ?? (await prFromEvent(env.GITHUB_EVENT_PATH));
  const number = typeof fromEvent === 'number' ? fromEvent : await prOfCommit(api, token, `${owner}/${repo}`, fromEvent.pushed, http);
  return { ...repository, pr: number };
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

/**
 * The pull request a pushed commit came from: the one it merged, else the first GitHub lists (for
 * a commit of the default branch, GitHub lists only the merged pull request that brought it);
 * never an open one, which merged nothing (GitHub lists those for a commit of another branch).
 */
async function prOfCommit(root: URL, token: string, repository: string, sha: string, http: HttpOptions): Promise<number> {
  const api = new JsonApi(root, GITHUB, githubHeaders(token), `commit ${sha.slice(0, 12)} of ${repository}`, http);
  const answer = await api.send('GET', api.url(`/repos/${repository}/commits/${sha}/pulls`));
  // Read liberally: entries that are not objects are skipped.
  const pulls = (answer.status === 200 && Array.isArray(answer.body) ? (answer.body as unknown[]) : []).filter(
    (p): p is { number?: unknown; merge_commit_sha?: unknown; state?: unknown } => typeof p === 'object' && p !== null && (p as { state?: unknown }).state !== 'open',
  );
  const found = pulls.find((p) => p.merge_commit_sha === sha) ?? pulls[0];
  if (typeof found?.number !== 'number') {
    throw new SitesyncError(`no pull request found for the pushed commit ${sha.slice(0, 12)} (GitHub answered ${answer.status}); pass --pr N`);
  }
  return found.number;
}

const EDITOR_QUERY = 'query($id: ID!) { node(id: $id) { ... on IssueComment { editor { login } } } }';

/**
 * Who last edited a comment, null when nobody has: GitHub's REST API does not say, its GraphQL
 * API does (`editor`), at the same host (`/graphql`; GitHub Enterprise Server's `/api/graphql`
 * beside `/api/v3`). An answer that does not say is an error: an edit cannot be ruled out.
 */
async function commentEditor(api: JsonApi, comment: ThreadComment): Promise<string | null> {
  const unknown = (why: string) => new SitesyncError(`cannot tell who last edited the plan comment of ${api.where} (${why}), so it is not taken as approved`);
  if (!comment.nodeId) throw unknown('GitHub sent it without its node_id');
  const url = new URL(api.root.href);
  url.pathname = `${api.root.pathname.replace(/\/+$/, '').replace(/\/v3$/, '')}/graphql`;
  const answer = await api.call('POST', url, 'read who last edited the plan comment of', { json: { query: EDITOR_QUERY, variables: { id: comment.nodeId } } });
  const node = (answer.body as { data?: { node?: { editor?: { login?: unknown } | null } | null } } | undefined)?.data?.node;
  if (!node || typeof node !== 'object') throw unknown('its GraphQL API did not answer with the comment');
  const login = node.editor?.login;
  if (node.editor === null || node.editor === undefined) return null;
  if (typeof login !== 'string') throw unknown('its GraphQL API named an editor without a login');
  return login;
}

/** A comment as GitHub sends it; read liberally, as any field may be missing or of another type. */
interface WireComment {
  id: number;
  body?: unknown;
  html_url?: unknown;
  node_id?: unknown;
  user?: { login?: unknown; type?: unknown } | null;
}

/** The comments of the pull request, over GitHub's REST API. */
export function githubThread(target: GitHubTarget, http: HttpOptions = {}): CommentThread {
  const { owner, repo, pr } = target;
  const api = new JsonApi(target.api, GITHUB, githubHeaders(target.token), `pull request #${pr} of ${owner}/${repo}`, http);
  const url = (path: string, query?: Record<string, string>) => api.url(`/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${path}`, query);
  return new ApiThread<WireComment>(
    api,
    {
      list: url(`/issues/${pr}/comments`, { per_page: '100' }),
      create: ['POST', url(`/issues/${pr}/comments`)],
      update: (id) => ['PATCH', url(`/issues/comments/${id}`)],
      noun: 'comment',
      read: (c) => ({
        id: c.id,
        body: wireText(c.body),
        author: wireText(c.user?.login),
        url: wireText(c.html_url) || `comment ${c.id}`,
        nodeId: wireText(c.node_id) || undefined,
      }),
      whoAmI: () => githubLogin(api, target.actions),
      lastEditor: (comment) => commentEditor(api, comment),
    },
    GITHUB_MAX_BODY,
    target.runUrl,
  );
}
