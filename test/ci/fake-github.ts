/**
 * A small local fake of the GitHub REST API: the issue-comment routes that `sitesync ci comment`
 * uses and the issue routes of `sitesync ci drift`, with GitHub's pagination (per_page, page,
 * Link) and auth answers. On 127.0.0.1, port 0.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const GITHUB_TOKEN = 'ghs_fakeActionsToken0123456789abcdef';
export const REPO = 'octo/config';

/** What GitHub Actions sets for a job that talks to this fake GitHub with its token. */
export function actionsEnv(github: { url: string }, runId = '99'): Record<string, string> {
  return { GITHUB_ACTIONS: 'true', GITHUB_API_URL: github.url, GITHUB_TOKEN, GITHUB_REPOSITORY: REPO, GITHUB_SERVER_URL: 'https://github.com', GITHUB_RUN_ID: runId };
}

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: 'User' | 'Bot' };
  /** Who last edited it, as GitHub's GraphQL API names them (a bot without `[bot]`); unset, never edited. */
  editor?: string;
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: string[];
  user: { login: string; type: 'User' | 'Bot' };
  /** Set for a pull request, which GitHub lists among the issues. */
  pull_request?: { url: string };
}

export interface Recorded {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body?: { body?: string; [key: string]: unknown };
}

export interface Failure {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeGitHub {
  url: string;
  /** What `GET /repos/…/commits/SHA/pulls` answers: the pull requests a commit belongs to. */
  pullsOfCommit: Map<string, Array<{ number: number; merge_commit_sha: string }>>;
  requests: Recorded[];
  comments(pr: number): FakeComment[];
  seed(pr: number, comments: Array<Omit<FakeComment, 'id'>>): FakeComment[];
  /** A comment edited by `login` in GitHub's web page (anyone who may write to the repository may edit any comment). */
  edit(pr: number, id: number, body: string, login: string): void;
  /** Link headers name this origin instead of the fake's own. */
  linkOrigin?: string;
  /** Answer every request of this method with this. */
  fail: Partial<Record<string, Failure>>;
  /** Answer the next requests (any method) with these, one each, before anything else. */
  failNext: Failure[];
  /** The repository's issues (and pull requests), by number. */
  issues: Map<number, FakeIssue>;
  seedIssue(issue: Partial<FakeIssue> & { body: string }): FakeIssue;
  /** Drop the labels of new issues, as GitHub does for a token that may not set them. */
  dropLabels?: boolean;
  /** What GET /user says the token is (a personal token); unset, it refuses as for GitHub Actions' token. */
  login?: string;
  writes(): string[];
  close(): Promise<void>;
}

export const BOT = { login: 'github-actions[bot]', type: 'Bot' } as const;
export const PERSON = { login: 'octocat', type: 'User' } as const;

export async function startFakeGitHub(): Promise<FakeGitHub> {
  const threads = new Map<number, FakeComment[]>();
  let nextId = 1000;
  let nextIssue = 100;
  const fake: FakeGitHub = {
    url: '',
    pullsOfCommit: new Map(),
    requests: [],
    fail: {},
    failNext: [],
    issues: new Map(),
    seedIssue(issue) {
      const seeded: FakeIssue = { number: nextIssue++, title: 'an issue', state: 'open', state_reason: null, labels: [], user: { ...BOT }, ...issue };
      fake.issues.set(seeded.number, seeded);
      return seeded;
    },
    comments: (pr) => threads.get(pr) ?? [],
    seed(pr, comments) {
      const list = threads.get(pr) ?? [];
      for (const c of comments) list.push({ ...c, id: nextId++ });
      threads.set(pr, list);
      return list;
    },
    edit(pr, id, body, login) {
      const found = fake.comments(pr).find((c) => c.id === id)!;
      found.body = body;
      found.editor = login;
    },
    writes: () => fake.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${new URL(r.url, 'http://x').pathname}`),
    close: () => closeServer(server),
  };
  const wireIssue = (i: FakeIssue) => ({
    ...i,
    labels: i.labels.map((name) => ({ name })),
    html_url: `https://github.com/${REPO}/issues/${i.number}`,
  });
  const wire = (pr: number, { editor: _editor, ...c }: FakeComment) => ({
    ...c,
    node_id: `IC_${c.id}`,
    html_url: `https://github.com/${REPO}/pull/${pr}#issuecomment-${c.id}`,
  });

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', fake.url);
    const method = req.method ?? 'GET';
    fake.requests.push({ method, url: url.pathname + url.search, headers: req.headers, body: text ? JSON.parse(text) : undefined });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    /** One page of a list, as GitHub pages: per_page (30 by default, at most 100), page, a Link header. */
    const sendPage = (url: URL, all: unknown[]) => {
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100);
      const page = Number(url.searchParams.get('page') ?? 1);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const link = (p: number) => {
        const u = new URL(url.pathname, fake.linkOrigin ?? fake.url);
        for (const [k, v] of url.searchParams) u.searchParams.set(k, v);
        u.searchParams.set('per_page', String(perPage));
        u.searchParams.set('page', String(p));
        return u.href;
      };
      const links = [];
      if (page < last) links.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
      if (page > 1) links.push(`<${link(1)}>; rel="first"`, `<${link(page - 1)}>; rel="prev"`);
      return send(200, all.slice((page - 1) * perPage, page * perPage), links.length ? { link: links.join(', ') } : {});
    };
    if (req.headers.authorization !== `Bearer ${GITHUB_TOKEN}`) {
      return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    }
    if (url.pathname === '/user' && method === 'GET') {
      return fake.login ? send(200, { login: fake.login, type: 'User' }) : send(403, { message: 'Resource not accessible by integration' });
    }
    const failure = fake.failNext.shift() ?? fake.fail[method];
    if (failure) return send(failure.status, failure.body, failure.headers);

    // GraphQL: who last edited a comment (REST does not say).
    if (url.pathname === '/graphql' && method === 'POST') {
      const { query, variables } = JSON.parse(text) as { query: string; variables: { id: string } };
      if (!/node\(id: \$id\)[\s\S]*editor \{ login \}/.test(query)) return send(200, { errors: [{ message: 'this fake answers one query' }] });
      const found = [...threads.values()].flat().find((c) => `IC_${c.id}` === variables.id);
      return send(200, { data: { node: found ? { editor: found.editor ? { login: found.editor } : null } : null } });
    }

    const issues = /^\/repos\/([^/]+\/[^/]+)\/issues(?:\/(\d+))?$/.exec(url.pathname);
    if (issues) {
      if (issues[1] !== REPO) return send(404, { message: 'Not Found' });
      const given = text ? (JSON.parse(text) as Partial<FakeIssue> & { labels?: string[] }) : {};
      if (!issues[2] && method === 'GET') {
        const label = url.searchParams.get('labels');
        const state = url.searchParams.get('state') ?? 'open';
        const all = [...fake.issues.values()]
          .filter((i) => (state === 'all' || i.state === state) && (!label || i.labels.includes(label)))
          .sort((a, b) => b.number - a.number);
        return sendPage(url, all.map(wireIssue));
      }
      if (!issues[2] && method === 'POST') {
        const created = fake.seedIssue({ title: String(given.title), body: String(given.body), labels: fake.dropLabels ? [] : (given.labels ?? []), user: { ...BOT } });
        return send(201, wireIssue(created));
      }
      const issue = fake.issues.get(Number(issues[2]));
      if (issue && method === 'PATCH') {
        if (given.body !== undefined) issue.body = String(given.body);
        if (given.state !== undefined) issue.state = given.state;
        if (given.state_reason !== undefined) issue.state_reason = given.state_reason;
        return send(200, wireIssue(issue));
      }
      return send(404, { message: 'Not Found' });
    }

    const pulls = /^\/repos\/([^/]+\/[^/]+)\/commits\/([0-9a-f]{40})\/pulls$/.exec(url.pathname);
    if (pulls && method === 'GET') return pulls[1] === REPO ? send(200, fake.pullsOfCommit.get(pulls[2]!) ?? []) : send(404, { message: 'Not Found' });
    const list = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
    const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname);
    const repo = (list ?? one)?.slice(1, 3).join('/');
    if (repo !== REPO) return send(404, { message: 'Not Found' });

    if (list && method === 'GET') {
      const pr = Number(list[3]);
      return sendPage(url, (threads.get(pr) ?? []).map((c) => wire(pr, c)));
    }
    if (list && method === 'POST') {
      const pr = Number(list[3]);
      const [created] = fake.seed(pr, [{ body: String(JSON.parse(text).body), user: { ...BOT } }]).slice(-1);
      return send(201, wire(pr, created!));
    }
    if (one && method === 'PATCH') {
      for (const [pr, comments] of threads) {
        const found = comments.find((c) => c.id === Number(one[3]));
        if (found) {
          found.body = String(JSON.parse(text).body);
          found.editor = 'github-actions';
          return send(200, wire(pr, found));
        }
      }
      return send(404, { message: 'Not Found' });
    }
    return send(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** Another origin that records whatever reaches it: the token must never. */
export async function startElsewhere(): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => closeServer(server) };
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
