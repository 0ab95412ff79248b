/**
 * A certificate the service's client refuses says what is wrong with it and what to check, and
 * is not retried. Over real TLS on 127.0.0.1: a `node:https` server with the self-signed
 * certificate for `localhost` in test/fixtures/tls (valid for 100 years; made once with
 * `openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=localhost
 * -addext subjectAltName=DNS:localhost`).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/service/client.js';
import { certificateProblem, classifyTransportError } from '../../src/service/transport.js';
import { root, runCli } from '../helpers/cli.js';
import { scenario } from '../helpers/scenario.js';
import { failure } from '../helpers/api-failure.js';

const FIXTURES = join(root, 'test/fixtures/tls');
const CERT = join(FIXTURES, 'localhost.crt');
const KEY = 'k-0123456789abcdef0123';

let server: Server;
let port: number;
/** TCP connections the server accepted: one per attempt, so retries show. */
let connections = 0;

beforeAll(async () => {
  server = createServer({ key: readFileSync(join(FIXTURES, 'localhost.key')), cert: readFileSync(CERT) }, (_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Unauthenticated."}');
  });
  server.on('connection', () => connections++);
  // The client hangs up on a certificate it refuses: expected, not a failure of the test.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  connections = 0;
});

describe('a certificate the client refuses', () => {
  it('self-signed: says so and how to trust it, at once, without retries', async () => {
    const client = new ServiceClient({ baseUrl: `https://127.0.0.1:${port}`, apiKey: KEY, baseDelayMs: 5, maxDelayMs: 20 });
    try {
      const error = await failure(client.getAccount());
      expect(error.message).toBe(
        `read the account: the TLS certificate of 127.0.0.1:${port} is self-signed: if it is your own service's, trust it: ` +
          'set NODE_EXTRA_CA_CERTS to a PEM file of that certificate (DEPTH_ZERO_SELF_SIGNED_CERT)',
      );
      expect(error.transient).toBe(false);
      expect(connections).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('for other names: says which, and that the base URL must name one (the CLI, trusting the certificate)', async () => {
    const env = { NODE_EXTRA_CA_CERTS: CERT, SITESYNC_API_KEY: KEY };
    const r = await runCli(['account', '--base-url', `https://127.0.0.1:${port}`], { env });
    expect(r.stderr).toMatch(
      new RegExp(
        `^Error: (read the account|count websites): the TLS certificate of 127\\.0\\.0\\.1:${port} is for other names \\(localhost\\): ` +
          'the host name in the base URL must be one it names \\(HOSTNAME_MISMATCH\\)\\n$',
      ),
    );
    expect(r.code).toBe(1);
    // The account and the count, once each: nothing retried.
    expect(connections).toBeLessThanOrEqual(2);

    // With the name it is for, the same certificate is trusted: the request reaches the server.
    const named = await runCli(['account', '--base-url', `https://localhost:${port}`], { env });
    expect(named.stderr).toContain('did not accept the API key (401)');
    expect(named.stderr).not.toContain('certificate');
  });

  it('an https:// base URL to a port without TLS says so, without retries', async () => {
    const s = await scenario();
    try {
      const r = await s.cli(['account', '--verbose'], { env: { SITESYNC_BASE_URL: s.emu.url.replace('http:', 'https:') } });
      expect(r.stderr).toMatch(/Error: (read the account|count websites): 127\.0\.0\.1:\d+ does not answer in TLS \(ERR_SSL_\w+\): is it an http:\/\/ address, or the wrong port\?\n$/);
      expect(r.stderr).not.toContain('(retry');
      expect(r.code).toBe(1);
    } finally {
      await s.close();
    }
  });
});

describe("Node's certificate codes in words", () => {
  it.each([
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'is for other names', 'base URL'],
    ['HOSTNAME_MISMATCH', 'is for other names', 'base URL'],
    ['CERT_HAS_EXPIRED', 'has expired', 'renew'],
    ['CERT_NOT_YET_VALID', 'is not valid yet', 'clock'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'is self-signed', 'NODE_EXTRA_CA_CERTS'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'is signed by an authority this computer does not trust', 'NODE_EXTRA_CA_CERTS'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'is signed by an unknown authority', 'NODE_EXTRA_CA_CERTS'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'cannot be traced to an authority', 'intermediate certificates'],
    ['CERT_REVOKED', 'has been revoked', 'replace'],
  ])('%s: the certificate %s; %s', (code, problem, check) => {
    const error = Object.assign(new Error('refused'), { code });
    expect(classifyTransportError(error)).toEqual({ failure: 'certificate', code });
    const words = certificateProblem(error, code);
    expect(words.problem).toContain(problem);
    expect(words.check).toContain(check);
  });

  it('the names a certificate is for, a few at most', () => {
    const cert = { subjectaltname: 'DNS:a.example, DNS:b.example, IP Address:192.0.2.1, DNS:c.example, DNS:d.example, DNS:e.example' };
    const error = Object.assign(new Error('refused'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID', cert });
    expect(certificateProblem(error, 'ERR_TLS_CERT_ALTNAME_INVALID').problem).toBe('is for other names (a.example, b.example, 192.0.2.1, c.example, 2 more)');
  });

  it('other network errors are not certificate problems', () => {
    expect(classifyTransportError(Object.assign(new Error('x'), { code: 'ECONNRESET' })).failure).toBe('lost');
  });
});
