/**
 * The API's routes and what each answers, once the request is authenticated and throttled.
 * Handlers return an `Answer`; mutating ones resolve only after their change is written.
 */
import { fromParams, type Input } from './input.js';
import { paginate, PageUrls, paginatorEnvelope, resourceEnvelope } from './pagination.js';
import { accountRecord, storeEcho, updateEcho, websiteRecord, withStatus, type Presenter } from './records.js';
import type { AccountRecord, State, WebsiteRow } from './store.js';
import { statRows, type TrafficRules } from './traffic.js';
import type { PlanFeatures, Profile } from './types.js';
import { readListQuery, readStatsQuery, validateStore, validateUpdate } from './validation.js';

export interface Answer {
  status: number;
  /** JSON-encoded unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
  /** A store, update or delete that went through: the after-commit fault hook applies. */
  committed?: boolean;
}

/** What handlers need of the running emulator. */
export interface App extends Presenter {
  state: State;
  /** The plan limit of accounts without their own. */
  websiteLimit: number;
  /** The plan's pageviews a month and e-mail reports of an account. */
  planOf(accountId: number): PlanFeatures;
  /** Traffic given to the websites a store creates. */
  trafficRules: TrafficRules;
  /** Resolves once every change made so far is durable. */
  commit(): Promise<void>;
}

export interface Call {
  app: App;
  account: AccountRecord;
  /** Where links point: the request's own origin, unless a fault says otherwise. */
  origin: string;
  query: URLSearchParams;
  input: Input;
  id?: number;
}

export type Handler = (call: Call) => Promise<Answer> | Answer;

export type Match =
  | { kind: 'route'; handler: Handler; id?: number }
  | { kind: 'login' }
  | { kind: 'not-found' }
  /** Deployed: a path outside the API (a wrong base path), answered before any middleware. */
  | { kind: 'outside-api' }
  | { kind: 'method-not-allowed'; allow: string[] };

const API = '/api/v1';
const WEBSITES = `${API}/websites`;
const STATS = `${API}/stats`;

/**
 * Routes as Laravel matches them: by path first, then by method (HEAD goes with GET). The
 * deployed product has a GET fallback route under /api/v1 (a 404 after authentication), which
 * is why other methods on unknown paths there answer 405, and paths outside it a bare 404.
 */
export function matchRoute(method: string, rawPath: string, profile: Profile = 'full'): Match {
  const known = knownRoute(method, rawPath);
  if (known.kind !== 'not-found' || profile === 'full') return known;
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
  if (path !== API && !path.startsWith(`${API}/`)) return { kind: 'outside-api' };
  return method === 'GET' || method === 'HEAD' ? { kind: 'route', handler: fallback } : { kind: 'method-not-allowed', allow: ['GET', 'HEAD'] };
}

function knownRoute(method: string, rawPath: string): Match {
  // The service's web server drops a trailing slash before Laravel sees the path.
  const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
  const m = method === 'HEAD' ? 'GET' : method;
  const pick = (table: Record<string, Handler>, id?: number): Match => {
    const handler = table[m];
    if (handler) return id === undefined ? { kind: 'route', handler } : { kind: 'route', handler, id };
    const allow = Object.keys(table).flatMap((k) => (k === 'GET' ? ['GET', 'HEAD'] : [k]));
    return { kind: 'method-not-allowed', allow };
  };
  if (path === WEBSITES) return pick({ GET: list, POST: store });
  if (path === '/api/v1/account') return pick({ GET: account });
  if (path === '/login' && m === 'GET') return { kind: 'login' };
  if (path.startsWith(`${WEBSITES}/`)) {
    const tail = path.slice(WEBSITES.length + 1);
    if (/^\d{1,15}$/.test(tail)) return pick({ GET: show, PUT: update, PATCH: update, DELETE: destroy }, Number(tail));
  }
  if (path.startsWith(`${STATS}/`)) {
    const tail = path.slice(STATS.length + 1);
    if (/^\d{1,15}$/.test(tail)) return pick({ GET: stats }, Number(tail));
  }
  return { kind: 'not-found' };
}

export function notFound(p: Presenter): Answer {
  return { status: 404, body: withStatus(p, { message: 'Resource not found.' }, 404) };
}

/** A path outside the deployed API: the web server's bare 404, no `status`, no throttle headers. */
export function outsideApi(): Answer {
  return { status: 404, body: { message: '' } };
}

const fallback: Handler = ({ app }) => notFound(app);

const ok = (p: Presenter, data: unknown, status = 200): Answer => ({
  status,
  // A store answers HTTP 201 with `"status": 200` in the body, as live installs do.
  body: withStatus(p, { data }, 200),
});

function list({ app, account, origin, query }: Call): Answer {
  const checked = readListQuery(fromParams(query), app.profile === 'full');
  if (!checked.ok) return { status: 422, body: checked.errors.body() };
  const q = checked.value;
  let rows = app.state.websitesOf(account.id);
  if (q.search !== null) {
    // MySQL's LIKE with the default collation: case-insensitive.
    const needle = q.search.toLowerCase();
    rows = rows.filter((r) => r.domain.toLowerCase().includes(needle));
  }
  if (q.favorite !== null) rows = rows.filter((r) => r.favorite === q.favorite);
  const dir = q.sort === 'asc' ? 1 : -1;
  rows.sort((a, b) => {
    if (q.sortBy === 'domain' && a.domain !== b.domain) return (a.domain < b.domain ? -1 : 1) * dir;
    return (a.id - b.id) * dir;
  });
  const perPage = app.faults.ignorePerPage ? 10 : q.perPage;
  const page = paginate(rows, q.page, perPage);
  const urls = new PageUrls(`${origin}${WEBSITES}`, [...query]);
  const data = page.items.map((r) => websiteRecord(app, r));
  const body =
    app.faults.envelope === 'paginator'
      ? paginatorEnvelope(page, data, urls)
      : resourceEnvelope(page, data, urls, app.profile === 'deployed');
  return { status: 200, body: withStatus(app, body, 200) };
}

function show({ app, account, id }: Call): Answer {
  const row = app.state.find(account.id, id!);
  return row ? ok(app, websiteRecord(app, row)) : notFound(app);
}

async function store({ app, account, input }: Call): Promise<Answer> {
  const limit = account.websiteLimit ?? app.websiteLimit;
  const checked = validateStore(input, {
    profile: app.profile,
    domainTaken: (d) => !app.faults.allowDuplicateDomains && app.state.domainTaken(d),
    atLimit: limit !== -1 && app.state.countOf(account.id) >= limit,
  });
  if (!checked.ok) return { status: 422, body: checked.errors.body() };
  const row = app.state.insert(account.id, checked.value);
  app.trafficRules.apply(app.state, row);
  await app.commit();
  const data = app.profile === 'deployed' ? storeEcho(app, row, input) : websiteRecord(app, row);
  return { ...ok(app, data), status: 201, committed: true };
}

async function update({ app, account, id, input }: Call): Promise<Answer> {
  const row: WebsiteRow | undefined = app.state.find(account.id, id!);
  // Route-model binding answers 404 before validation; the deployed controller looks the
  // website up itself, after validation, and fails on a missing one (the known defect).
  if (!row && app.profile === 'full') return notFound(app);
  // The product's form request refuses to let an update name an owner, before its rules run.
  if (app.profile === 'deployed' && input.has('user_id')) {
    return { status: 403, body: { message: 'This action is unauthorized.' } };
  }
  const checked = validateUpdate(input, row, app.profile);
  if (!checked.ok) return { status: 422, body: checked.errors.body() };
  if (!row) return { status: 500, body: { message: 'Server Error' } };
  if (app.state.update(row, checked.value)) await app.commit();
  const data = app.profile === 'deployed' ? updateEcho(app, row, input) : websiteRecord(app, row);
  return { ...ok(app, data), committed: true };
}

async function destroy({ app, account, id }: Call): Promise<Answer> {
  const row = app.state.find(account.id, id!);
  if (!row) return notFound(app);
  app.state.remove(row);
  await app.commit();
  return { status: 200, body: withStatus(app, { id: row.id, object: 'website', deleted: true }, 200), committed: true };
}

/**
 * The product's stats: validation first (a bad parameter on a foreign id is a 422), then the
 * website, then `SUM(count)` by value as a bare paginator with `per_page` a string. `count`
 * is a string in `deployed` (MySQL's SUM through PDO), an integer in `full`.
 */
function stats({ app, account, origin, query, id }: Call): Answer {
  const checked = readStatsQuery(fromParams(query), app.profile);
  if (!checked.ok) return { status: 422, body: checked.errors.body() };
  const q = checked.value;
  const website = app.state.find(account.id, id!);
  if (!website) return notFound(app);
  let rows = statRows(q.name, app.state.trafficOf(website.id), q.from, q.to);
  if (q.search !== null) {
    const needle = q.search.toLowerCase();
    rows = rows.filter((r) => r.value.toLowerCase().includes(needle));
  }
  const dir = q.sort === 'asc' ? 1 : -1;
  const byValue = (a: { value: string }, b: { value: string }) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
  // Ties on count go by value, ascending, whatever the direction: the same rows always come in the same order.
  rows.sort((a, b) => (q.sortBy === 'value' ? byValue(a, b) * dir : (a.count - b.count) * dir || byValue(a, b)));
  const page = paginate(rows, q.page, q.perPage);
  const urls = new PageUrls(`${origin}${STATS}/${website.id}`, [...query]);
  const data = page.items.map((r) => ({ value: r.value, count: app.profile === 'deployed' ? String(r.count) : r.count }));
  return { status: 200, body: withStatus(app, paginatorEnvelope(page, data, urls, true), 200) };
}

function account({ app, account }: Call): Answer {
  return ok(app, accountRecord(account, account.websiteLimit ?? app.websiteLimit, app.planOf(account.id)));
}
