/**
 * The JSON APIs of GitHub and GitLab, as the CI helpers use them: no retries but a rate limit's
 * (waited out when the provider says how long, up to a few minutes), no redirects; an error
 * answer read the same way for both, with each one's own advice; lists read page by page without
 * ever leaving the API's origin, so the token is never sent to another host.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import LinkHeader from 'http-link-header';
import { Agent } from 'undici';
import { SitesyncError } from '../messages/errors.js';
import { SecretValues } from '../secrets/values.js';
import { serviceMessage } from '../service/errors.js';
import { retryAt } from '../service/pacer.js';
import { checkedAddress } from '../model/address.js';
import { ANSWER_DEADLINE_MS, AnswerTooLarge, classifyTransportError, deadline, header, readCapped, type Answer, type Method } from '../service/transport.js';
import type { CommentThread, ThreadComment } from './plan-comment.js';
import { MAX_ANSWER_BYTES, MAX_RATE_LIMIT_WAIT_MS } from '../caps.js';

export interface HttpOptions {
  signal?: AbortSignal;
  /** One line per request (`--verbose`); never the token or a body. */
  log?: (line: string) => void;
  /** Time allowed for the answer's headers, then between its chunks. */
  timeoutMs?: number;
  /** The whole time one answer may take, headers and body (default ANSWER_DEADLINE_MS, as for the service). */
  deadlineMs?: number;
  /** The largest answer read (default MAX_ANSWER_BYTES, as for the service). */
  maxAnswerBytes?: number;
  /** The token and other secrets: what an error answer says is cleaned of them before it is a message. */
  secrets?: SecretValues;
  /** What the user should know while nothing seems to happen: a rate limit waited out. */
  note?: (line: string) => void;
}

/** Rate-limit answers waited out for one request before giving up. */
const RATE_LIMIT_WAITS = 3;

/** What GitHub and GitLab differ in: their names, and what to tell the user when they refuse. */
export interface CiService {
  /** "GitHub", "GitLab". */
  name: string;
  /** The variables that hold the API's address and the token. */
  addressVariable: string;
  tokenVariable: string;
  /** The public API's address. */
  example: string;
  /** Follows "did not accept TOKEN (401: …): ". */
  unauthorized: (api: URL) => string;
  /** Follow "the token cannot ACTION (403: …): ". */
  cannotWrite: string;
  cannotRead: string;
  /** Follows "… has no THING, or the token cannot see it (404: …): ". */
  notFound: string;
}

/** The API's root from its variable, by the rule every address a secret goes to follows. */
export function apiRoot(raw: string, service: Pick<CiService, 'addressVariable' | 'tokenVariable' | 'example'>): URL {
  return checkedAddress(raw, service.addressVariable, { secret: 'the token', secretFrom: service.tokenVariable, example: service.example });
}

let shared: Agent | undefined;

/** One agent for every request of the run, as undici's own global dispatcher would be. */
function agent(): Agent {
  return (shared ??= new Agent());
}

/** One API, one token, one thing acted on (`where`: "pull request #7 of octo/config"). */
export class JsonApi {
  constructor(
    readonly root: URL,
    readonly service: CiService,
    private readonly headers: Record<string, string>,
    readonly where: string,
    private readonly options: HttpOptions = {},
  ) {}

  /** The root + `path` (which starts with `/`), keeping the root's path prefix (GitHub Enterprise's /api/v3). */
  url(path: string, query: Record<string, string> = {}): URL {
    const url = new URL(this.root.href);
    url.pathname = `${this.root.pathname.replace(/\/+$/, '')}${path}`;
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return url;
  }

  /** A request whose answer must be a success (or a status in `allowed`); else an error that says `action` `where`. */
  async call(method: Method, url: URL, action: string, { json, allowed = [] }: { json?: unknown; allowed?: number[] } = {}): Promise<Answer> {
    for (let waits = 0; ; waits++) {
      const answer = await this.send(method, url, json);
      if ((answer.status >= 200 && answer.status < 300) || allowed.includes(answer.status)) return answer;
      // A refusal for the rate limit did nothing, so the request may be sent again, a write too.
      const wait = isRateLimited(answer) ? rateLimitWait(answer) : undefined;
      if (wait === undefined || wait > MAX_RATE_LIMIT_WAIT_MS || waits >= RATE_LIMIT_WAITS) throw this.failure(answer, action, method !== 'GET');
      this.options.note?.(`${this.service.name}'s API rate limit is used up: waiting ${Math.ceil(wait / 1000)} s, as it asks, to ${action} ${this.where}`);
      try {
        await sleep(wait, undefined, { signal: this.options.signal });
      } catch {
        throw new SitesyncError(`interrupted while waiting for ${this.service.name}'s API rate limit`);
      }
    }
  }

  /**
   * Every item of a list, page by page: `next` says where the next page is (by default the
   * `Link` header). Bounded, so a server that links in a circle cannot keep it going.
   */
  async list(first: URL, action: string, next: (answer: Answer) => URL | undefined = (a) => this.linkedNext(a), maxPages = 200): Promise<unknown[]> {
    const what = `${action} ${this.where}`;
    const items: unknown[] = [];
    let url: URL | undefined = first;
    for (let page = 1; url; page++) {
      if (page > maxPages) throw new SitesyncError(`${this.service.name} sent more than ${maxPages} pages to ${what}; stopped listing`);
      const answer = await this.call('GET', url, action);
      if (!Array.isArray(answer.body)) throw new SitesyncError(`${this.service.name} did not answer with a list to ${what}`);
      items.push(...answer.body);
      url = next(answer);
    }
    return items;
  }

  /**
   * The `Link` header's next page, if the API may be followed there with the token: on its own
   * origin. Anything else is an error rather than the end of the list, because stopping early
   * would miss the plan comment on a later page and post a second one.
   */
  linkedNext(answer: Answer): URL | undefined {
    const next = nextLink(answer.headers.link, this.service.name);
    if (next === undefined) return undefined;
    const { name, addressVariable } = this.service;
    let url: URL;
    try {
      url = new URL(next, this.root);
    } catch {
      throw new SitesyncError(`${name} sent a next-page link that is not a URL; stopped listing`);
    }
    if (url.origin !== this.root.origin) {
      throw new SitesyncError(
        `${name} sent a next-page link to another host (${url.host}); the token is only sent to ${this.root.host}, so listing stopped. Is ${addressVariable} the API's public address?`,
      );
    }
    return url;
  }

  /** One request, whatever it answers; a network failure is an error that says what happened. */
  async send(method: Method, url: URL, json?: unknown): Promise<Answer> {
    const { name } = this.service;
    const timeout = this.options.timeoutMs ?? 30_000;
    const headers = { ...this.headers };
    if (json !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let responseHeaders: Answer['headers'];
    let text: string;
    const limit = deadline(this.options.deadlineMs ?? ANSWER_DEADLINE_MS, this.options.signal);
    try {
      const res = await agent().request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        body: json === undefined ? undefined : JSON.stringify(json),
        signal: limit.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      status = res.statusCode;
      responseHeaders = res.headers;
      text = await readCapped(res, this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES);
    } catch (error) {
      if (error instanceof AnswerTooLarge) {
        throw new SitesyncError(`${name} (${url.host}) answered ${error.message}, which no answer of its API is; nothing more was read`);
      }
      if (limit.expired() && !this.options.signal?.aborted) {
        throw new SitesyncError(`${name} (${url.host}) did not send its whole answer within ${Math.round((this.options.deadlineMs ?? ANSWER_DEADLINE_MS) / 100) / 10} s`);
      }
      throw transportError(error, url, name, this.options.secrets ?? new SecretValues());
    }
    this.options.log?.(`${name}: ${method} ${url.pathname}${url.search} → ${status}`);
    let body: unknown = undefined;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    // An error answer only ever becomes a message; it may echo what it was sent.
    if ((status < 200 || status >= 300) && this.options.secrets) body = this.options.secrets.cleanDeep(body);
    return { status, headers: responseHeaders, body };
  }

  /** An error answer as a message: what was refused, the service's own words, and what to do. */
  failure(answer: Answer, action: string, writing: boolean): SitesyncError {
    const { name, tokenVariable, addressVariable, example } = this.service;
    const what = `${action} ${this.where}`;
    const { status } = answer;
    // GitLab says why in `message`, or in `error` (OAuth-style answers such as insufficient_scope).
    const said = serviceMessage(answer.body) ?? serviceMessage({ message: (answer.body as { error?: unknown } | undefined)?.error });
    const detail = `${status}${said ? `: ${said}` : ''}`;
    if (status === 401) return new SitesyncError(`${name} did not accept ${tokenVariable} (${detail}): ${this.service.unauthorized(this.root)}`);
    if (isRateLimited(answer)) {
      const wait = rateLimitWait(answer);
      const resets = wait === undefined ? '' : `; it resets in ${Math.ceil(wait / 60_000)} min`;
      return new SitesyncError(`${name}'s API rate limit is used up (${detail})${resets}; try again later`);
    }
    if (status === 403) {
      return new SitesyncError(`the token cannot ${what} (${detail}): ${writing ? this.service.cannotWrite : this.service.cannotRead}`);
    }
    if (status === 404) return new SitesyncError(`${name} has no ${this.where}, or the token cannot see it (${detail}): ${this.service.notFound}`);
    if (status === 400 || status === 422) return new SitesyncError(`${name} refused to ${what} (${detail})`);
    if (status >= 300 && status < 400) {
      return new SitesyncError(`${name} answered with a redirect (${status}): ${addressVariable} should be the API's address, e.g. ${example}`);
    }
    return new SitesyncError(`${name} could not ${what} (${detail})`);
  }
}

/** Where a provider keeps a thread's comments, and how it writes one: all that GitHub and GitLab differ in. */
export interface CommentRoutes<Wire> {
  /** The first page of the comments; the next page after each answer (the `Link` header when not said). */
  list: URL;
  nextPage?: (answer: Answer) => URL | undefined;
  create: [Method, URL];
  update: (id: number) => [Method, URL];
  /** "comment", "note": in messages. */
  noun: string;
  /** A comment as the provider sends it (its id checked). */
  read: (wire: Wire) => ThreadComment;
  /** Entries of the list that are no one's comment (GitLab's system notes). */
  skip?: (wire: Wire) => boolean;
  /** The login the token writes as, when the provider can say. */
  whoAmI?: () => Promise<string | undefined>;
  /** Who last edited a comment (see CommentThread.lastEditor), where others than its author can. */
  lastEditor?: (comment: ThreadComment) => Promise<string | null>;
}

/** The comments of one pull/merge request over its provider's JSON API. */
export class ApiThread<Wire extends { id: number }> implements CommentThread {
  readonly service: string;
  readonly where: string;
  readonly noun: string;

  constructor(
    private readonly api: JsonApi,
    private readonly routes: CommentRoutes<Wire>,
    readonly maxBody: number,
    readonly runUrl?: string,
  ) {
    this.service = api.service.name;
    this.where = api.where;
    this.noun = routes.noun;
  }

  async whoAmI(): Promise<string | undefined> {
    return this.routes.whoAmI?.();
  }

  get lastEditor(): ((comment: ThreadComment) => Promise<string | null>) | undefined {
    return this.routes.lastEditor;
  }

  async list(): Promise<ThreadComment[]> {
    const items = (await this.api.list(this.routes.list, `read the ${this.routes.noun}s of`, this.routes.nextPage)) as Wire[];
    return items.filter((wire) => !this.routes.skip?.(wire)).map((wire) => this.comment(wire));
  }

  async create(body: string): Promise<ThreadComment> {
    const [method, url] = this.routes.create;
    const answer = await this.api.call(method, url, `write a ${this.routes.noun} on`, { json: { body } });
    return this.comment(answer.body);
  }

  async update(id: number, body: string): Promise<ThreadComment | undefined> {
    const [method, url] = this.routes.update(id);
    const answer = await this.api.call(method, url, `update a ${this.routes.noun} on`, { json: { body }, allowed: [404] });
    return answer.status === 404 ? undefined : this.comment(answer.body);
  }

  private comment(wire: unknown): ThreadComment {
    if (typeof (wire as { id?: unknown } | null | undefined)?.id !== 'number') {
      throw new SitesyncError(`${this.service} answered with a ${this.routes.noun} that has no id`);
    }
    return this.routes.read(wire as Wire);
  }
}

/** The `rel="next"` URL of a `Link` header (RFC 8288), if any; a header that cannot be read is an error. */
export function nextLink(header: string | string[] | undefined, service = 'the API'): string | undefined {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!value?.trim()) return undefined;
  try {
    return LinkHeader.parse(value).rel('next')[0]?.uri;
  } catch {
    throw new SitesyncError(`${service} sent a Link header that cannot be read; stopped listing rather than miss a page`);
  }
}

/** A refusal for the rate limit: GitLab's 429; GitHub's 429, or 403 with none left or saying so. */
function isRateLimited(answer: Answer): boolean {
  if (answer.status === 429) return true;
  return answer.status === 403 && (header(answer.headers, 'x-ratelimit-remaining') === '0' || /rate limit/i.test(serviceMessage(answer.body) ?? ''));
}

/**
 * How long a rate-limited answer asks to wait, in ms, read as the service's 429 is (`retryAt`):
 * its `Retry-After`, else the reset time of a limit with none left (GitHub's `X-RateLimit-Reset`,
 * GitLab's `RateLimit-Reset`); undefined when it does not say.
 */
export function rateLimitWait({ headers }: Pick<Answer, 'headers'>, now = Date.now()): number | undefined {
  const usedUp = (header(headers, 'x-ratelimit-remaining') ?? header(headers, 'ratelimit-remaining'))?.trim() === '0';
  const reset = usedUp ? (header(headers, 'x-ratelimit-reset') ?? header(headers, 'ratelimit-reset')) : undefined;
  const at = retryAt({ 'retry-after': header(headers, 'retry-after'), 'x-ratelimit-reset': reset }, now);
  return at === undefined ? undefined : Math.max(1_000, Math.ceil(at - now));
}

/** What went wrong below HTTP, in the words `classifyTransportError` gives every client sitesync has. */
function transportError(error: unknown, url: URL, service: string, secrets: SecretValues): SitesyncError {
  const { failure, code } = classifyTransportError(error);
  switch (failure) {
    case 'aborted':
      return new SitesyncError(`interrupted while talking to ${service}`);
    case 'connect-timeout':
    case 'read-timeout':
      return new SitesyncError(`${service} (${url.host}) did not answer in time`);
    case 'refused':
      return new SitesyncError(`cannot connect to ${service} at ${url.host} (connection refused)`);
    case 'dns':
      return new SitesyncError(`cannot find the host ${url.host} (DNS)`);
    default:
      return new SitesyncError(`cannot reach ${service} at ${url.host} (${secrets.clean(code ?? 'the connection was lost')})`);
  }
}

/** A string field of an answer, or '' when it is missing or of another type (answers are read liberally). */
export function wireText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
