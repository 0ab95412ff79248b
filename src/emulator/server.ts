/**
 * The HTTP side: plain `node:http`, one pipeline per request in the order the service's
 * middleware runs (route, auth, throttle, plan check, controller), the fault hooks around it,
 * one log line and one stats record per request, and a close that leaves nothing running.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SitesyncError } from '../messages/errors.js';
import { bearerToken, wantsJson } from './auth.js';
import { bodyParams, parseBody, type Input } from './input.js';
import { withStatus } from './records.js';
import { matchRoute, notFound, outsideApi, type Answer, type App } from './routes.js';
import type { Throttle } from './throttle.js';
import type { EmulatorStats, FaultAnswer, FaultRequest, Faults, ThrottleBy } from './types.js';

/** Request bodies are small forms; anything past this is refused with 413. */
export const MAX_BODY = 1024 * 1024;
/** Records kept in `stats.log`: trimmed back to this many when it reaches twice as many. */
const LOG_KEEP = 10_000;
/** How long `close()` lets requests in progress finish before it cuts their connections. */
const CLOSE_GRACE_MS = 2000;

export interface ServerOptions {
  app: App;
  /** Read on every request: tests replace faults at any time. */
  faults: () => Faults;
  throttle: Throttle | null;
  /**
   * What the throttle counts by: the client's address (the product: its throttle runs before
   * authentication, so every key from one address shares a budget) or the key's account.
   */
  throttleBy: ThrottleBy;
  latencyMs: number;
  log: ((line: string) => void) | null;
  /** Keys in clear, blanked out of log lines should a client put one in a URL. */
  secrets: () => string[];
}

type Outcome = Answer | 'reset';

export class EmulatorServer {
  readonly server: Server;
  stats: EmulatorStats = { requests: 0, byStatus: {}, log: [] };
  private seen = 0;
  private active = 0;
  private onIdle: (() => void) | null = null;
  private closing: Promise<void> | null = null;
  private fallbackHost = '127.0.0.1';

  constructor(private readonly options: ServerOptions) {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
  }

  /** Starts listening; a busy port or a foreign address is a SitesyncError with a way out. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => reject(listenError(error, host, port));
      this.server.once('error', onError);
      this.server.listen({ host, port }, () => {
        this.server.off('error', onError);
        const address = this.server.address() as AddressInfo;
        this.fallbackHost = hostForUrl(host);
        resolve(address.port);
      });
    });
  }

  resetStats(): void {
    this.stats = { requests: 0, byStatus: {}, log: [] };
    this.seen = 0;
  }

  /** Stops accepting, lets requests in progress finish (briefly), closes every connection. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.server.listening) return;
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeIdleConnections();
      if (this.active > 0) {
        const idle = new Promise<void>((resolve) => (this.onIdle = resolve));
        const timer = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
        await Promise.race([idle, timer]);
      }
      this.server.closeAllConnections();
      await closed;
    })();
    return this.closing;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const n = ++this.seen;
    this.active++;
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    /** 0: no answer was sent (a reset fault, or the client hung up first). */
    let status = 0;
    try {
      const outcome = await this.process(req, method, target, n);
      if (outcome === 'reset') {
        req.socket.destroy();
      } else {
        status = outcome.status;
        this.send(res, outcome);
      }
    } catch (error) {
      if (!(error instanceof ClientGone)) {
        status = 500;
        this.options.log?.(`internal error: ${(error as Error).message}`);
        if (!res.headersSent) this.send(res, { status: 500, body: { message: 'Server Error' } });
        else res.destroy();
      }
    } finally {
      this.record(method, target, status, performance.now() - started, req.headers.authorization !== undefined);
      if (--this.active === 0) this.onIdle?.();
    }
  }

  private async process(req: IncomingMessage, method: string, target: string, n: number): Promise<Outcome> {
    const { app, throttle, latencyMs } = this.options;
    const url = new URL(target, 'http://emulator.invalid');
    const read = await readBody(req);
    if (read === 'too-large') {
      return { status: 413, body: { message: 'The POST data is too large.' }, headers: { Connection: 'close' } };
    }
    const contentType = req.headers['content-type'] ?? '';
    const key = bearerToken(req.headers.authorization);
    const faultRequest: FaultRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      body: read === '' && !['POST', 'PUT', 'PATCH'].includes(method) ? null : bodyParams(contentType, read),
      n,
      key,
    };

    const early = await this.options.faults().before?.(faultRequest);
    if (early !== undefined) {
      const answer = await this.fault(early);
      if (answer) return answer;
    }
    if (latencyMs > 0) await sleep(latencyMs);

    const match = matchRoute(method, url.pathname, app.profile);
    if (match.kind === 'outside-api') return outsideApi();
    if (match.kind === 'not-found') return notFound(app);
    if (match.kind === 'method-not-allowed') {
      const route = url.pathname.replace(/^\/+|\/+$/g, '');
      // Laravel 8 (what the product runs on) does not name the route; later versions do.
      const where = app.profile === 'deployed' ? 'this route' : `route ${route}`;
      const message = `The ${method} method is not supported for ${where}. Supported methods: ${match.allow.join(', ')}.`;
      return { status: 405, body: withStatus(app, { message }, 405), headers: { Allow: match.allow.join(', ') } };
    }
    const origin = this.origin(req);
    if (match.kind === 'login') return { status: 200, body: LOGIN_PAGE };

    let limitHeaders: Record<string, string> = {};
    const byAddress = this.options.throttleBy === 'address';
    if (throttle && byAddress) {
      const result = throttle.hit(`address ${req.socket.remoteAddress ?? ''}`);
      if (!result.allowed) return { status: 429, body: { message: 'Too Many Attempts.' }, headers: result.headers };
      limitHeaders = result.headers;
    }

    const account = key === null ? undefined : app.state.accountByKey(key);
    if (!account) {
      if (wantsJson(req.headers.accept, header(req, 'x-requested-with'))) {
        return { status: 401, body: { message: 'Unauthenticated.' }, headers: limitHeaders };
      }
      return { status: 302, headers: { ...limitHeaders, Location: `${origin}/login` } };
    }

    if (throttle && !byAddress) {
      const result = throttle.hit(account.keyHash);
      if (!result.allowed) return { status: 429, body: { message: 'Too Many Attempts.' }, headers: result.headers };
      limitHeaders = result.headers;
    }
    if (!account.apiAccess) {
      const body = withStatus(app, { message: "You don't have access to this feature." }, 403);
      return { status: 403, body, headers: limitHeaders };
    }

    const input: Input = parseBody(contentType, read);
    const call = { app, account, origin, query: url.searchParams, input };
    const answer = await match.handler(match.id === undefined ? call : { ...call, id: match.id });
    answer.headers = { ...limitHeaders, ...answer.headers };
    if (answer.committed) {
      const late = this.options.faults().afterCommit?.(faultRequest);
      if (late !== undefined) return (await this.fault(late)) ?? answer;
    }
    return answer;
  }

  /** A fault's answer, or undefined when it only delays. */
  private async fault(f: FaultAnswer): Promise<Outcome | undefined> {
    if (f === 'reset') return 'reset';
    if ('delayMs' in f) {
      await sleep(f.delayMs);
      return undefined;
    }
    return { status: f.status, body: f.body, headers: f.headers ?? {} };
  }

  private origin(req: IncomingMessage): string {
    const forced = this.options.faults().linkOrigin;
    if (forced) return forced.replace(/\/+$/, '');
    const address = this.server.address() as AddressInfo | null;
    return `http://${req.headers.host ?? `${this.fallbackHost}:${address?.port ?? 0}`}`;
  }

  private send(res: ServerResponse, answer: Answer): void {
    const headers: Record<string, string | number> = { 'Cache-Control': 'no-cache, private', ...answer.headers };
    let payload = '';
    if (answer.body !== undefined) {
      const text = typeof answer.body === 'string';
      payload = text ? (answer.body as string) : JSON.stringify(answer.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['Content-Type'] = text ? 'text/html; charset=UTF-8' : 'application/json';
      }
    }
    headers['Content-Length'] = Buffer.byteLength(payload);
    if (this.closing) headers.Connection = 'close';
    res.writeHead(answer.status, headers);
    res.end(payload);
  }

  private record(method: string, target: string, status: number, elapsed: number, hadAuth: boolean): void {
    const ms = Math.round(elapsed);
    const stats = this.stats;
    stats.requests++;
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    stats.log.push({ method, path: target, status, ms, hadAuth });
    if (stats.log.length >= LOG_KEEP * 2) stats.log.splice(0, stats.log.length - LOG_KEEP);
    if (this.options.log) {
      let path = target;
      for (const secret of this.options.secrets()) path = path.split(secret).join('***');
      this.options.log(`${method} ${path} ${status === 0 ? 'no answer' : status} ${ms}ms`);
    }
  }
}

const LOGIN_PAGE = '<!doctype html>\n<title>Login</title>\n<p>The emulator has no login page: API clients send <code>Authorization: Bearer KEY</code>.</p>\n';

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The client went away before its request was read in full: nothing to answer. */
class ClientGone extends Error {}

/** The body as text, or 'too-large' past MAX_BODY (without reading the rest). */
function readBody(req: IncomingMessage): Promise<string | 'too-large'> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY) return Promise.resolve('too-large');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > MAX_BODY) {
        done = true;
        req.pause();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', () => {
      if (!done) reject(new ClientGone());
      done = true;
    });
    req.on('close', () => {
      if (!done) reject(new ClientGone());
      done = true;
    });
  });
}

/** The host as it goes in a URL; an any-address listens on loopback too, so name that. */
export function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new SitesyncError(`port ${port} is in use: pick another with --port, or --port 0`);
    case 'EACCES':
      return new SitesyncError(`no permission to listen on port ${port}: pick a port above 1023, or --port 0`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new SitesyncError(`cannot listen on ${host}: it is not an address of this machine (try --host 127.0.0.1)`);
    default:
      return error;
  }
}
