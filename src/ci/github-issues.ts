/** The issues of the workflow's GitHub repository, over the REST API: what the drift issues need. */
import { githubHeaders, githubLogin, GITHUB, GITHUB_MAX_BODY, type GitHubRepository } from './github.js';
import { JsonApi, wireText, type CiService, type HttpOptions } from './http.js';
import { ApiIssues, labelNames, type IssueTracker } from './issues.js';

const ISSUES: CiService = {
  ...GITHUB,
  cannotWrite: 'give the job `permissions: issues: write`',
  cannotRead: 'give the job `permissions: issues: read` or more',
  notFound: 'check GITHUB_REPOSITORY',
};

/** An issue as GitHub sends it; read liberally, as any field may be missing or of another type. */
interface WireIssue {
  number?: unknown;
  title?: unknown;
  body?: unknown;
  html_url?: unknown;
  user?: { login?: unknown; type?: unknown } | null;
  labels?: unknown;
  /** Set on the pull requests that GitHub lists among the issues. */
  pull_request?: unknown;
}

export function githubIssues(target: GitHubRepository, http: HttpOptions = {}): IssueTracker {
  const { owner, repo } = target;
  const api = new JsonApi(target.api, ISSUES, githubHeaders(target.token), `${owner}/${repo}`, http);
  const url = (path: string, query?: Record<string, string>) => api.url(`/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}${path}`, query);
  return new ApiIssues<WireIssue>(
    api,
    {
      listOpen: (label) => url('/issues', { labels: label, state: 'open', per_page: '100' }),
      create: ['POST', url('/issues')],
      createBody: (title, body, label) => ({ title, body, labels: [label] }),
      issue: (number) => ['PATCH', url(`/issues/${number}`)],
      editBody: (body) => ({ body }),
      closeBody: { state: 'closed', state_reason: 'completed' },
      comments: (number) => url(`/issues/${number}/comments`),
      read: (i) => ({
        number: typeof i.number === 'number' ? i.number : Number.NaN,
        title: wireText(i.title),
        body: wireText(i.body),
        author: wireText(i.user?.login),
        labels: labelNames(i.labels),
        url: wireText(i.html_url) || `issue #${String(i.number)}`,
      }),
      skip: (i) => i.pull_request !== undefined && i.pull_request !== null,
      whoAmI: () => githubLogin(api, target.actions),
    },
    GITHUB_MAX_BODY,
    target.runUrl,
  );
}
