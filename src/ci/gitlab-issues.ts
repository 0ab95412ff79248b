/** The issues of the pipeline's GitLab project, over the REST API (v4): what the drift issues need. */
import { GITLAB, GITLAB_MAX_BODY, gitlabHeaders, gitlabNextPage, gitlabUser, type GitLabProject } from './gitlab.js';
import { JsonApi, wireText, type CiService, type HttpOptions } from './http.js';
import { ApiIssues, labelNames, type IssueTracker } from './issues.js';

const ISSUES: CiService = {
  ...GITLAB,
  cannotWrite: 'it needs the api scope and at least the Reporter role in the project, whose issues must be enabled',
  notFound: 'check CI_PROJECT_ID, and that the project has issues enabled',
};

/** An issue as GitLab sends it; read liberally, as any field may be missing or of another type. */
interface WireIssue {
  iid?: unknown;
  title?: unknown;
  description?: unknown;
  web_url?: unknown;
  author?: { username?: unknown } | null;
  labels?: unknown;
}

export function gitlabIssues(target: GitLabProject, http: HttpOptions = {}): IssueTracker {
  const { project } = target;
  const api = new JsonApi(target.api, ISSUES, gitlabHeaders(target.token), `project ${project}`, http);
  const url = (path: string, query?: Record<string, string>) => api.url(`/projects/${encodeURIComponent(project)}${path}`, query);
  return new ApiIssues<WireIssue>(
    api,
    {
      listOpen: (label) => url('/issues', { labels: label, state: 'opened', per_page: '100' }),
      nextPage: (first) => gitlabNextPage(api, first),
      create: ['POST', url('/issues')],
      createBody: (title, body, label) => ({ title, description: body, labels: label }),
      issue: (number) => ['PUT', url(`/issues/${number}`)],
      editBody: (body) => ({ description: body }),
      closeBody: { state_event: 'close' },
      comments: (number) => url(`/issues/${number}/notes`),
      read: (i) => ({
        number: typeof i.iid === 'number' ? i.iid : Number.NaN,
        title: wireText(i.title),
        body: wireText(i.description),
        author: wireText(i.author?.username),
        labels: labelNames(i.labels),
        url: wireText(i.web_url) || (target.projectUrl ? `${target.projectUrl}/-/issues/${String(i.iid)}` : `issue #${String(i.iid)}`),
      }),
      whoAmI: () => gitlabUser(api),
    },
    GITLAB_MAX_BODY,
    target.runUrl,
  );
}
