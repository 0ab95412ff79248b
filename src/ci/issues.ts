/**
 * The issues of a repository (GitHub) or project (GitLab), as the drift issues need them: the
 * open ones with a label, open one, edit one, comment on one, close one. Provider-neutral over
 * the JSON API of http.ts; github-issues.ts and gitlab-issues.ts say where each provider keeps
 * them and how it names their fields.
 */
import { SitesyncError } from '../messages/errors.js';
import type { JsonApi } from './http.js';
import type { Answer, Method } from '../service/transport.js';

export interface Issue {
  /** GitHub's issue number, GitLab's iid: what the issue's address holds. */
  number: number;
  title: string;
  body: string;
  /** The author's login. */
  author: string;
  /** Its labels' names. */
  labels: string[];
  /** A link to the issue, for the line the command prints. */
  url: string;
}

export interface IssueTracker {
  /** "GitHub", "GitLab". */
  readonly service: string;
  /** The provider's limit on an issue's text. */
  readonly maxBody: number;
  /** Where the job's log is, when the CI says. */
  readonly runUrl?: string;
  /** The login the token writes as, when the provider can say. */
  whoAmI(): Promise<string | undefined>;
  /** Every open issue with the label (pull requests left out). */
  listOpen(label: string): Promise<Issue[]>;
  create(title: string, body: string, label: string): Promise<Issue>;
  edit(number: number, body: string): Promise<Issue>;
  comment(number: number, body: string): Promise<void>;
  /** Closed as done (GitHub's `completed`). */
  close(number: number): Promise<void>;
}

/** Where a provider keeps issues, and how it writes one: all that GitHub and GitLab differ in. */
export interface IssueRoutes<Wire> {
  /** The first page of the open issues with `label`; the next page after each answer (the `Link` header when not said). */
  listOpen: (label: string) => URL;
  nextPage?: (first: URL) => (answer: Answer) => URL | undefined;
  create: [Method, URL];
  /** The request that opens an issue. */
  createBody: (title: string, body: string, label: string) => unknown;
  /** Where an issue is edited (its text, its state). */
  issue: (number: number) => [Method, URL];
  editBody: (body: string) => unknown;
  closeBody: unknown;
  /** Where an issue's comments are posted. */
  comments: (number: number) => URL;
  /** An issue as the provider sends it (read liberally: a number that is not one is refused). */
  read: (wire: Wire) => Issue;
  /** Entries of the list that are no issue (GitHub lists pull requests with them). */
  skip?: (wire: Wire) => boolean;
  whoAmI?: () => Promise<string | undefined>;
}

/** The issues of one repository or project over its provider's JSON API. */
export class ApiIssues<Wire> implements IssueTracker {
  readonly service: string;

  constructor(
    private readonly api: JsonApi,
    private readonly routes: IssueRoutes<Wire>,
    readonly maxBody: number,
    readonly runUrl?: string,
  ) {
    this.service = api.service.name;
  }

  async whoAmI(): Promise<string | undefined> {
    return this.routes.whoAmI?.();
  }

  async listOpen(label: string): Promise<Issue[]> {
    const first = this.routes.listOpen(label);
    const items = (await this.api.list(first, `list the open "${label}" issues of`, this.routes.nextPage?.(first))) as Wire[];
    return items.filter((wire) => !this.routes.skip?.(wire)).map((wire) => this.issue(wire));
  }

  async create(title: string, body: string, label: string): Promise<Issue> {
    const [method, url] = this.routes.create;
    const answer = await this.api.call(method, url, 'open an issue in', { json: this.routes.createBody(title, body, label) });
    return this.issue(answer.body);
  }

  async edit(number: number, body: string): Promise<Issue> {
    const [method, url] = this.routes.issue(number);
    const answer = await this.api.call(method, url, `edit issue ${number} of`, { json: this.routes.editBody(body) });
    return this.issue(answer.body);
  }

  async comment(number: number, body: string): Promise<void> {
    await this.api.call('POST', this.routes.comments(number), `comment on issue ${number} of`, { json: { body } });
  }

  async close(number: number): Promise<void> {
    const [method, url] = this.routes.issue(number);
    await this.api.call(method, url, `close issue ${number} of`, { json: this.routes.closeBody });
  }

  private issue(wire: unknown): Issue {
    const issue = typeof wire === 'object' && wire !== null ? this.routes.read(wire as Wire) : undefined;
    if (!issue || !Number.isInteger(issue.number)) throw new SitesyncError(`${this.service} answered with an issue that has no number`);
    return issue;
  }
}

/** An issue's label names: GitHub sends objects with a name, GitLab strings. */
export function labelNames(labels: unknown): string[] {
  if (!Array.isArray(labels)) return [];
  return labels.flatMap((l: unknown) => {
    const name = typeof l === 'string' ? l : (l as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? [name] : [];
  });
}
