/** Clients' websites on loopback for `sitesync verify`: one HTTPS server, a page a Host, certified by the test CA. */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { root } from '../helpers/cli.js';

const TLS = join(root, 'test/fixtures/tls');
/** The test CA that signed `sites.crt` (localhost, 127.0.0.1, example.com/org/net and their subdomains). */
export const TEST_CA = join(TLS, 'test-ca.crt');

export type Page = (req: IncomingMessage, res: ServerResponse) => void;

export interface Sites {
  port: number;
  /** `--connect-to` for every name: this server. */
  connectTo: string;
  /** Requests by Host. */
  hits: string[];
  close(): Promise<void>;
}

export function code(dataHost: string): string {
  return `<script data-host="${dataHost}" data-dnt="false" src="${dataHost}/js/script.js" id="ZwSg9rf6GA" async defer></script>`;
}

export function html(head: string): Page {
  return (_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>A client</title>${head}</head><body><p>Hello</p></body></html>`);
  };
}

export function redirect(to: string, status = 301): Page {
  return (_, res) => {
    res.writeHead(status, { location: to });
    res.end();
  };
}

export async function startSites(pages: Record<string, Page>): Promise<Sites> {
  const hits: string[] = [];
  const open = new Set<import('node:net').Socket>();
  const server = createServer({ key: readFileSync(join(TLS, 'sites.key')), cert: readFileSync(join(TLS, 'sites.crt')) }, (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.push(host);
    const page = pages[host];
    if (!page) {
      res.writeHead(404);
      return void res.end('no such site');
    }
    page(req, res);
  });
  server.on('secureConnection', (s) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    connectTo: `::127.0.0.1:${port}`,
    hits,
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

export interface Proxy {
  /** For HTTPS_PROXY. */
  url: string;
  /** What each CONNECT asked for (`host:port`). */
  asked: string[];
  close(): Promise<void>;
}

/** An HTTP proxy on loopback that tunnels every CONNECT to the loopback sites, whatever name it asks for. */
export async function startProxy(sites: Sites): Promise<Proxy> {
  const asked: string[] = [];
  const proxy = createHttpServer().on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    asked.push(String(req.url));
    const upstream = connect(sites.port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    asked,
    async close() {
      proxy.closeAllConnections?.();
      await new Promise<void>((done) => proxy.close(() => done()));
    },
  };
}
