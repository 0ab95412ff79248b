/**
 * Servers that answer as no honest service does, on 127.0.0.1 port 0: one that trickles its
 * answer a few bytes at a time (never tripping a timeout between chunks), one that never answers,
 * one that announces an answer larger than any. Each is closed with its connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileServer {
  url: string;
  host: string;
  /** Requests received, as `METHOD /path?query`. */
  requests: string[];
  close(): Promise<void>;
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => (() => void) | void): Promise<HostileServer> {
  const requests: string[] = [];
  const stops = new Set<() => void>();
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const stop = handle(req, res);
    if (stop) {
      stops.add(stop);
      res.on('close', () => {
        stop();
        stops.delete(stop);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${host}`,
    host,
    requests,
    close: async () => {
      for (const stop of stops) stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Answers 200 and then `chunk` every `everyMs`, never ending the answer. */
export function trickleServer(chunk = '{"da', everyMs = 150): Promise<HostileServer> {
  return serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(chunk);
    const timer = setInterval(() => res.write(' '), everyMs);
    return () => clearInterval(timer);
  });
}

/** Announces an answer of `bytes` and sends its first bytes only. */
export function hugeServer(bytes = 100 * 1024 * 1024): Promise<HostileServer> {
  return serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) });
    res.write('[{"id": 1');
  });
}

/** Takes each request and never answers it. */
export function silentServer(): Promise<HostileServer> {
  return serve(() => undefined);
}
