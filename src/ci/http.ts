/**
 * JSON over HTTP for the CI helpers (GitHub and GitLab APIs): one request, no retries, no
 * redirects, and a pagination helper that never leaves the API's origin, so the token is never
 * sent to another host.
 */
import { request } from 'undici';
import { SitesyncError } from '../errors.js';
import { SecretValues } from '../secrets.js';
import { isLoopback } from '../service/connection.js';
import { classifyTransportError } from '../service/transport.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  json?: unknown;
}

export interface HttpOptions {
  /** "GitHub", "GitLab": names the service in messages. */
  service: string;
  signal?: AbortSignal;
  /** One line per request (`--verbose`); never the token or a body. */
  log?: (line: string) => void;
  timeoutMs?: number;
  /** The token and other secrets: what an error answer says is cleaned of them before it is a message. */
  secrets?: SecretValues;
}

export async function sendJson(req: JsonRequest, options: HttpOptions): Promise<Answer> {
  const timeout = options.timeoutMs ?? 30_000;
  const headers = { ...req.headers };
  if (req.json !== undefined) headers['content-type'] = 'application/json';
  let status: number;
  let responseHeaders: Answer['headers'];
  let text: string;
  try {
    const res = await request(req.url, {
      method: req.method,
      headers,
      body: req.json === undefined ? undefined : JSON.stringify(req.json),
      signal: options.signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    status = res.statusCode;
    responseHeaders = res.headers;
    text = await res.body.text();
  } catch (error) {
    throw transportError(error, req.url, options.service, options.secrets ?? new SecretValues());
  }
  options.log?.(`${options.service}: ${req.method} ${req.url.pathname}${req.url.search} → ${status}`);
  let body: unknown = undefined;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  // An error answer only ever becomes a message; it may echo what it was sent.
  if ((status < 200 || status >= 300) && options.secrets) body = options.secrets.cleanDeep(body);
  return { status, headers: responseHeaders, body };
}

/**
 * The API root from an environment variable: https, or http only to this machine (the tests'
 * fakes), without credentials, query or fragment.
 */
export function apiRoot(raw: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SitesyncError(`${variable}: "${raw}" is not a URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new SitesyncError(`${variable}: ${url.origin} is not https://; the token is only sent over https`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new SitesyncError(`${variable}: the API address must be a plain URL, without credentials, query or fragment`);
  }
  return url;
}

/** `base` + `path` (which starts with `/`), keeping the base's path prefix (GitHub Enterprise's /api/v3). */
export function apiUrl(base: URL, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${path}`;
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url;
}

/** The `rel="next"` URL of a `Link` header, if any. */
export function nextLink(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return undefined;
  for (const part of value.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rel = match[2]!.split(';').map((p) => /^\s*rel\s*=\s*"?([^"]*)"?\s*$/i.exec(p)?.[1]).find((r) => r !== undefined);
    if (rel?.toLowerCase().split(/\s+/).includes('next')) return match[1];
  }
  return undefined;
}

/**
 * A next-page URL that the client may follow with its token: on the API's own origin. Anything
 * else is an error rather than the end of the list, because stopping early would miss the plan
 * comment on a later page and post a second one.
 */
export function pinnedNext(next: string, base: URL, service: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    throw new SitesyncError(`${service} sent a next-page link that is not a URL; stopped listing`);
  }
  if (url.origin !== base.origin) {
    throw new SitesyncError(
      `${service} sent a next-page link to another host (${url.host}); the token is only sent to ${base.host}, so listing stopped. Is ${variable} the API's public address?`,
    );
  }
  return url;
}

/**
 * Every item of a paginated list: reads `first`, then whatever `next` says, until it says
 * nothing. Bounded, so a server that links in a circle cannot keep it going.
 */
export async function readAllPages(
  first: URL,
  read: (url: URL) => Promise<Answer>,
  next: (answer: Answer) => URL | undefined,
  what: string,
  maxPages = 200,
): Promise<unknown[]> {
  const items: unknown[] = [];
  let url: URL | undefined = first;
  for (let page = 1; url; page++) {
    if (page > maxPages) throw new SitesyncError(`more than ${maxPages} pages of ${what}; stopped listing`);
    const answer = await read(url);
    if (!Array.isArray(answer.body)) throw new SitesyncError(`the answer for ${what} is not a list`);
    items.push(...answer.body);
    url = next(answer);
  }
  return items;
}

/** `headers[name]` as one string. */
export function header(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

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
