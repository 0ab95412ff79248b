/**
 * Fetching a client's page for `sitesync verify`: `https://DOMAIN/`, at most 5 redirects, the
 * whole under a deadline, the body read up to a cap. Clients' sites are not the service: nothing
 * of the service's (no key, no pacing) goes with these requests. TLS is Node's (its CAs and
 * NODE_EXTRA_CA_CERTS); HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured (undici's
 * EnvHttpProxyAgent); `--connect-to` maps a host and port to another address as curl's does,
 * the certificate still checked for the website's own name.
 */
import { Agent, buildConnector, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { UsageError } from '../messages/errors.js';
import type { FetchedPage } from './findings.js';
import { MAX_PAGE_BYTES, MAX_REDIRECTS } from '../caps.js';

/** `HOST1:PORT1:HOST2:PORT2`: an empty HOST1 or PORT1 matches any, an empty HOST2 or PORT2 keeps the original. */
export interface ConnectTo {
  fromHost: string;
  fromPort: number | undefined;
  toHost: string;
  toPort: number | undefined;
}

/** Reads `--connect-to` as curl does (an IPv6 address in brackets). */
export function parseConnectTo(text: string): ConnectTo {
  const parts = text.match(/\[[^\]]*\]|[^:]+|(?<=^|:)(?=:|$)/g) ?? [];
  const port = (p: string | undefined) => (p === undefined || p === '' ? undefined : /^\d{1,5}$/.test(p) && Number(p) <= 65535 ? Number(p) : NaN);
  const [h1, p1, h2, p2] = parts;
  const fromPort = port(p1);
  const toPort = port(p2);
  if (parts.length !== 4 || Number.isNaN(fromPort) || Number.isNaN(toPort)) {
    throw new UsageError(`--connect-to must be HOST1:PORT1:HOST2:PORT2 as curl's (e.g. shop.example.com:443:203.0.113.7:443), not "${text}"`);
  }
  const bare = (h: string) => h.replace(/^\[|\]$/g, '').toLowerCase();
  return { fromHost: bare(h1!), fromPort, toHost: bare(h2!), toPort };
}

export interface PageFetcher {
  fetch(url: string, deadlineMs: number): Promise<FetchedPage>;
  close(): Promise<void>;
}

/** Why a page could not be read, in words (DNS, TLS, status, deadline). */
export class Unreachable extends Error {}

export function pageFetcher(env: Record<string, string | undefined>, connectTo: readonly ConnectTo[]): PageFetcher {
  const defaultPort = (protocol: string) => (protocol === 'http:' ? 80 : 443);
  const mapping = (host: string, port: number) =>
    connectTo.find((m) => (m.fromHost === '' || m.fromHost === host) && (m.fromPort === undefined || m.fromPort === port));
  const connector = buildConnector({});
  const direct = new Agent({
    connect: (options, callback) => {
      const port = Number(options.port) || defaultPort(options.protocol);
      const to = mapping(options.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port);
      if (!to) return connector(options, callback);
      // The certificate is still checked for the name asked, as curl's --connect-to does.
      return connector({ ...options, hostname: to.toHost || options.hostname, port: String(to.toPort ?? port), servername: options.servername || options.hostname }, callback);
    },
  });
  const proxied = new EnvHttpProxyAgent({
    ...(env.HTTP_PROXY ?? env.http_proxy ? { httpProxy: env.HTTP_PROXY ?? env.http_proxy } : {}),
    ...(env.HTTPS_PROXY ?? env.https_proxy ? { httpsProxy: env.HTTPS_PROXY ?? env.https_proxy } : {}),
    ...(env.NO_PROXY ?? env.no_proxy ? { noProxy: env.NO_PROXY ?? env.no_proxy } : {}),
  });
  const hasProxy = Boolean(env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy);
  const dispatcherFor = (url: URL): Dispatcher =>
    // A mapped address is reached directly: the point is to check it before the name moves.
    hasProxy && !mapping(url.hostname.replace(/^\[|\]$/g, '').toLowerCase(), Number(url.port) || defaultPort(url.protocol)) ? proxied : direct;

  return {
    async fetch(start, deadlineMs) {
      const signal = AbortSignal.timeout(deadlineMs);
      let url = new URL(start);
      try {
        for (let hop = 0; ; hop++) {
          const answer = await request(url, {
            method: 'GET',
            dispatcher: dispatcherFor(url),
            signal,
            headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5', 'user-agent': 'sitesync-verify (tracking code check)' },
            headersTimeout: deadlineMs,
            bodyTimeout: deadlineMs,
          });
          const location = answer.headers.location;
          if (answer.statusCode >= 300 && answer.statusCode < 400 && location) {
            drop(answer.body);
            if (hop >= MAX_REDIRECTS) throw new Unreachable(`more than ${MAX_REDIRECTS} redirects (the last to ${url.href})`);
            const next = new URL(String(Array.isArray(location) ? location[0] : location), url);
            if (next.protocol !== 'https:' && next.protocol !== 'http:') throw new Unreachable(`a redirect to a ${next.protocol} address`);
            url = next;
            continue;
          }
          if (answer.statusCode !== 200) {
            drop(answer.body);
            throw new Unreachable(`HTTP ${answer.statusCode} from ${url.href}`);
          }
          const { text, truncated } = await readCapped(answer.body, signal);
          return { url: url.href, html: text, truncated };
        }
      } catch (error) {
        if (error instanceof Unreachable) throw error;
        throw new Unreachable(reasonOf(error, url, deadlineMs, signal));
      }
    },
    async close() {
      await Promise.all([direct.close(), proxied.close()]);
    },
  };
}

/** The body's first MAX_PAGE_BYTES bytes, as UTF-8; the rest is not read (the connection is dropped). */
async function readCapped(body: Dispatcher.ResponseData['body'], signal: AbortSignal): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (signal.aborted) throw signal.reason;
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_PAGE_BYTES) {
      truncated = true;
      drop(body);
      break;
    }
  }
  return { text: new TextDecoder('utf-8').decode(Buffer.concat(chunks).subarray(0, MAX_PAGE_BYTES)), truncated };
}

/** The rest of a body is not read: the connection goes (its abort is no news). */
function drop(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|EPROTO/;

function reasonOf(error: unknown, url: URL, deadlineMs: number, signal: AbortSignal): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const message = e.cause?.message ?? e.message ?? String(error);
  if (signal.aborted || /TIMEOUT|AbortError|TimeoutError/.test(code + (e as Error).name)) return `deadline: no whole answer from ${url.host} within ${deadlineMs / 1000} s`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return `DNS: no address for ${url.hostname}`;
  if (TLS_CODES.test(code)) return `TLS: ${message}`;
  if (code === 'ECONNREFUSED') return `connection refused by ${url.host}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `connection to ${url.host} closed: ${message}`;
  return `${url.host}: ${message}`;
}
