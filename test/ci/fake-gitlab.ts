/**
 * A small local fake of the GitLab REST API (v4): /user, a merge request's notes and the
 * project's issues (and their notes), with GitLab's pagination (per_page, page, X-Next-Page) and
 * PRIVATE-TOKEN auth. On 127.0.0.1, port 0.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, type Failure, type Recorded } from './fake-github.js';

export const GITLAB_TOKEN = 'glpat-fakeProjectToken0123456789';
export const PROJECT_ID = '42';
export const BOT_USER = 'project_42_bot_5f3a';

export interface FakeNote {
  id: number;
  body: string;
  system: boolean;
  author: { username: string };
}

export interface FakeGitLabIssue {
  iid: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  labels: string[];
  author: { username: string };
  notes: string[];
}

/** A merge request as the list and the commit's merge requests give it. */
export interface FakeMergeRequest {
  iid: number;
  title: string;
  state: 'opened' | 'merged' | 'closed';
  target_branch: string;
  sha: string;
  merge_commit_sha?: string | null;
}

export interface FakeGitLab {
  /** The API root, as CI_API_V4_URL. */
  api: string;
  /** The project's merge requests, by iid. */
  mergeRequests: Map<number, FakeMergeRequest>;
  requests: Recorded[];
  notes(iid: number): FakeNote[];
  seed(iid: number, notes: Array<Partial<FakeNote> & { body: string }>): FakeNote[];
  fail: Partial<Record<string, Failure>>;
  /** Answer the next requests (any method) with these, one each, before anything else. */
  failNext: Failure[];
  issues: Map<number, FakeGitLabIssue>;
  seedIssue(issue: Partial<FakeGitLabIssue> & { description: string }): FakeGitLabIssue;
  writes(): string[];
  close(): Promise<void>;
}

export async function startFakeGitLab(): Promise<FakeGitLab> {
  const threads = new Map<number, FakeNote[]>();
  let nextId = 500;
  let nextIssue = 1;
  const fake: FakeGitLab = {
    api: '',
    mergeRequests: new Map(),
    requests: [],
    fail: {},
    failNext: [],
    issues: new Map(),
    seedIssue(issue) {
      const seeded: FakeGitLabIssue = { iid: nextIssue++, title: 'an issue', state: 'opened', labels: [], author: { username: BOT_USER }, notes: [], ...issue };
      fake.issues.set(seeded.iid, seeded);
      return seeded;
    },
    notes: (iid) => threads.get(iid) ?? [],
    seed(iid, notes) {
      const list = threads.get(iid) ?? [];
      for (const n of notes) list.push({ system: false, author: { username: 'alice' }, ...n, id: nextId++ });
      threads.set(iid, list);
      return list;
    },
    writes: () => fake.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${new URL(r.url, 'http://x').pathname}`),
    close: () => closeServer(server),
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    fake.requests.push({ method, url: url.pathname + url.search, headers: req.headers, body: text ? JSON.parse(text) : undefined });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.headers['private-token'] !== GITLAB_TOKEN) return send(401, { message: '401 Unauthorized' });
    const failure = fake.failNext.shift() ?? fake.fail[method];
    if (failure) return send(failure.status, failure.body, failure.headers);

    if (url.pathname === '/api/v4/user' && method === 'GET') return send(200, { id: 9, username: BOT_USER, bot: true });
    const issues = /^\/api\/v4\/projects\/([^/]+)\/issues(?:\/(\d+)(\/notes)?)?$/.exec(url.pathname);
    if (issues) {
      if (decodeURIComponent(issues[1]!) !== PROJECT_ID) return send(404, { message: '404 Project Not Found' });
      const given = text ? (JSON.parse(text) as Record<string, string>) : {};
      const wire = (i: FakeGitLabIssue) => ({ ...i, notes: undefined, web_url: `https://gitlab.example.com/octo/config/-/issues/${i.iid}` });
      if (!issues[2] && method === 'GET') {
        const label = url.searchParams.get('labels');
        const state = url.searchParams.get('state');
        const all = [...fake.issues.values()].filter((i) => (!state || i.state === state) && (!label || i.labels.includes(label))).sort((a, b) => b.iid - a.iid);
        const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), 100);
        const page = Number(url.searchParams.get('page') ?? 1);
        const more = page * perPage < all.length;
        return send(200, all.slice((page - 1) * perPage, page * perPage).map(wire), { 'x-page': String(page), 'x-next-page': more ? String(page + 1) : '' });
      }
      if (!issues[2] && method === 'POST') {
        const labels = (given.labels ?? '').split(',').filter(Boolean);
        return send(201, wire(fake.seedIssue({ title: given.title!, description: given.description!, labels, author: { username: BOT_USER } })));
      }
      const issue = fake.issues.get(Number(issues[2]));
      if (!issue) return send(404, { message: '404 Not found' });
      if (issues[3] && method === 'POST') {
        issue.notes.push(given.body!);
        return send(201, { id: nextId++, body: given.body, author: { username: BOT_USER } });
      }
      if (!issues[3] && method === 'PUT') {
        if (given.description !== undefined) issue.description = given.description;
        if (given.state_event === 'close') issue.state = 'closed';
        return send(200, wire(issue));
      }
      return send(404, { message: '404 Not Found' });
    }
    const wireMr = (mr: FakeMergeRequest) => ({ ...mr, web_url: `https://gitlab.example.com/group/config/-/merge_requests/${mr.iid}` });
    const list = /^\/api\/v4\/projects\/([^/]+)\/merge_requests$/.exec(url.pathname);
    if (list && method === 'GET' && decodeURIComponent(list[1]!) === PROJECT_ID) {
      const state = url.searchParams.get('state');
      const target = url.searchParams.get('target_branch');
      const all = [...fake.mergeRequests.values()].filter((mr) => (!state || mr.state === state) && (!target || mr.target_branch === target));
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), 100);
      const page = Number(url.searchParams.get('page') ?? 1);
      const more = page * perPage < all.length;
      return send(200, all.slice((page - 1) * perPage, page * perPage).map(wireMr), { 'x-page': String(page), 'x-next-page': more ? String(page + 1) : '' });
    }
    const ofCommit = /^\/api\/v4\/projects\/([^/]+)\/repository\/commits\/([0-9a-f]{40})\/merge_requests$/.exec(url.pathname);
    if (ofCommit && method === 'GET' && decodeURIComponent(ofCommit[1]!) === PROJECT_ID) {
      const sha = ofCommit[2]!;
      return send(200, [...fake.mergeRequests.values()].filter((mr) => mr.sha === sha || mr.merge_commit_sha === sha).map(wireMr));
    }
    const m = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(url.pathname);
    if (!m || decodeURIComponent(m[1]!) !== PROJECT_ID) return send(404, { message: '404 Project Not Found' });
    const iid = Number(m[2]);
    if (!m[3] && method === 'GET') {
      const all = threads.get(iid) ?? [];
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), 100);
      const page = Number(url.searchParams.get('page') ?? 1);
      const more = page * perPage < all.length;
      return send(200, all.slice((page - 1) * perPage, page * perPage), {
        'x-page': String(page),
        'x-next-page': more ? String(page + 1) : '',
        'x-per-page': String(perPage),
      });
    }
    if (!m[3] && method === 'POST') {
      const [created] = fake.seed(iid, [{ body: String(JSON.parse(text).body), author: { username: BOT_USER } }]).slice(-1);
      return send(201, created);
    }
    if (m[3] && method === 'PUT') {
      const note = (threads.get(iid) ?? []).find((n) => n.id === Number(m[3]));
      if (!note) return send(404, { message: '404 Not found' });
      note.body = String(JSON.parse(text).body);
      return send(200, note);
    }
    return send(404, { message: '404 Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`;
  return fake;
}
