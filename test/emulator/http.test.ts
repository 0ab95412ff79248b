/** Authentication, plan access, throttling, routing errors, logging and stats, over real HTTP. */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { call, create, emulators } from './helpers.js';

const emus = emulators();
afterEach(() => emus.closeAll());

const ENDPOINTS: [string, string][] = [
  ['GET', '/api/v1/websites'],
  ['POST', '/api/v1/websites'],
  ['GET', '/api/v1/websites/1'],
  ['PUT', '/api/v1/websites/1'],
  ['PATCH', '/api/v1/websites/1'],
  ['DELETE', '/api/v1/websites/1'],
  ['GET', '/api/v1/account'],
];

/** A form for the methods that carry one. */
const withForm = (method: string, form: Record<string, string | number>) =>
  ['POST', 'PUT', 'PATCH'].includes(method) ? { form } : {};

describe('authentication', () => {
  it('answers 401 JSON to a client that asks for JSON, on every endpoint', async () => {
    const emu = await emus.start({ keys: ['right'] });
    emu.seed('right', [{ domain: 'kept.com' }]);
    for (const [method, path] of ENDPOINTS) {
      for (const key of [null, 'wrong']) {
        const r = await call(emu, method, path, { key, ...withForm(method, { domain: 'x.com', email: 1 }) });
        expect(r.status, `${method} ${path} key=${key}`).toBe(401);
        expect(r.json).toEqual({ message: 'Unauthenticated.' });
      }
    }
    expect(emu.websites('right')).toHaveLength(1);
    expect(emu.websites('right')[0]!.email).toBeNull();
  });

  it('redirects other clients to /login, with an empty body', async () => {
    const emu = await emus.start();
    for (const accept of [null, 'text/html', '*/*']) {
      const r = await call(emu, 'GET', '/api/v1/websites', { key: 'wrong', accept });
      expect(r.status, String(accept)).toBe(302);
      expect(r.headers.get('location')).toBe(`${emu.url}/login`);
      expect(r.text).toBe('');
    }
    const login = await call(emu, 'GET', '/login', { key: null, accept: null });
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('reads the Accept header as Laravel does', async () => {
    const emu = await emus.start();
    const status = async (accept: string, headers: Record<string, string> = {}) =>
      (await call(emu, 'GET', '/api/v1/account', { key: null, accept, headers })).status;
    expect(await status('application/json, text/plain, */*')).toBe(401);
    expect(await status('application/vnd.api+json')).toBe(401);
    expect(await status('text/html;q=0.5, application/json')).toBe(401);
    expect(await status('text/html, application/json')).toBe(302);
    expect(await status('*/*', { 'x-requested-with': 'XMLHttpRequest' })).toBe(401);
  });

  it('answers 403 on every endpoint for an account without API access', async () => {
    const emu = await emus.start({ keys: [{ key: 'no-api', apiAccess: false }] });
    for (const [method, path] of ENDPOINTS) {
      const r = await call(emu, method, path, withForm(method, { domain: 'x.com' }));
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.json).toEqual({ message: "You don't have access to this feature.", status: 403 });
    }
    expect(emu.websites('no-api')).toEqual([]);
  });
});

describe('routing errors', () => {
  it('full: answers 404 JSON for unknown routes, with or without a key', async () => {
    const emu = await emus.start({ profile: 'full' });
    for (const path of ['/api/v1/nope', '/api/v2/websites', '/', '/api/v1/websites/1/extra']) {
      for (const key of [undefined, null]) {
        const r = await call(emu, 'GET', path, { key });
        expect(r.status, path).toBe(404);
        expect(r.json).toEqual({ message: 'Resource not found.' });
      }
    }
  });

  it('full: answers 405 for a known path with another method', async () => {
    const emu = await emus.start({ profile: 'full' });
    const r = await call(emu, 'DELETE', '/api/v1/websites');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(r.json).toEqual({
      message: 'The DELETE method is not supported for route api/v1/websites. Supported methods: GET, HEAD, POST.',
    });
    const one = await call(emu, 'POST', '/api/v1/websites/1', { form: { email: 1 } });
    expect(one.status).toBe(405);
    expect(one.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, DELETE');
  });

  it('accepts a trailing slash', async () => {
    const emu = await emus.start();
    expect((await call(emu, 'GET', '/api/v1/websites/')).status).toBe(200);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const emu = await emus.start();
    const r = await call(emu, 'POST', '/api/v1/websites', { form: `domain=big.com&exclude_ips=${'1'.repeat(1024 * 1024 + 10)}` });
    expect(r.status).toBe(413);
    expect(emu.websites(emu.keys[0]!)).toEqual([]);
    // The emulator is still fine.
    expect((await call(emu, 'GET', '/api/v1/account')).status).toBe(200);
  });
});

describe('rate limit', () => {
  it('throttle by key: counts per key in a fixed window, with the headers, and 429 past the limit', async () => {
    // A long window, so that a slow machine cannot see it run out in the middle of the test.
    const emu = await emus.start({ keys: ['a', 'b'], rateLimit: { limit: 3, windowMs: 30_000 }, throttleBy: 'key' });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(emu, 'GET', '/api/v1/websites', { key: 'a' });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(r.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const before = Date.now() / 1000;
    const refused = await create(emu, { domain: 'throttled.com' }, 'a');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ message: 'Too Many Attempts.' });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 30).toBe(true);
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(Math.ceil(before) + 30);
    // A throttled request changes nothing.
    expect(emu.websites('a')).toEqual([]);

    // Another key has its own window.
    const other = await call(emu, 'GET', '/api/v1/account', { key: 'b' });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('lets requests through again once the window has run out', async () => {
    const emu = await emus.start({ rateLimit: { limit: 1, windowMs: 300 } });
    expect((await call(emu, 'GET', '/api/v1/account')).status).toBe(200);
    const refused = await call(emu, 'GET', '/api/v1/account');
    if (refused.status === 429) expect(refused.headers.get('retry-after')).toBe('1'); // rounded up
    await new Promise((r) => setTimeout(r, 350));
    const again = await call(emu, 'GET', '/api/v1/account');
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('throttle by key: sends the headers on error answers too, but not before authentication', async () => {
    const emu = await emus.start({ rateLimit: { limit: 60, windowMs: 60_000 }, throttleBy: 'key' });
    const missing = await call(emu, 'GET', '/api/v1/websites/99');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-remaining')).toBe('59');
    const invalid = await create(emu, {});
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('x-ratelimit-remaining')).toBe('58');
    const anonymous = await call(emu, 'GET', '/api/v1/websites', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('has no throttle unless asked', async () => {
    const emu = await emus.start();
    const r = await call(emu, 'GET', '/api/v1/account');
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('log and stats', () => {
  it('logs one line per request, never the key', async () => {
    const lines: string[] = [];
    const key = 'very-secret-key-123';
    const emu = await emus.start({ keys: [key], log: (l) => lines.push(l) });
    await call(emu, 'GET', '/api/v1/websites?per_page=25');
    await create(emu, { domain: 'log.com' });
    await call(emu, 'GET', '/api/v1/account', { key: null });
    await call(emu, 'GET', `/api/v1/websites?api_key=${key}`);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^GET \/api\/v1\/websites\?per_page=25 200 \d+ms$/);
    expect(lines[1]).toMatch(/^POST \/api\/v1\/websites 201 \d+ms$/);
    expect(lines[2]).toMatch(/^GET \/api\/v1\/account 401 \d+ms$/);
    expect(lines.join('\n')).not.toContain(key);
  });

  it('counts requests by status, and can be reset', async () => {
    const emu = await emus.start();
    await call(emu, 'GET', '/api/v1/websites');
    await call(emu, 'GET', '/api/v1/websites/5');
    await call(emu, 'GET', '/api/v1/websites', { key: null });
    expect(emu.stats.requests).toBe(3);
    expect(emu.stats.byStatus).toEqual({ 200: 1, 404: 1, 401: 1 });
    expect(emu.stats.log.map((r) => [r.method, r.path, r.status, r.hadAuth])).toEqual([
      ['GET', '/api/v1/websites', 200, true],
      ['GET', '/api/v1/websites/5', 404, true],
      ['GET', '/api/v1/websites', 401, false],
    ]);
    emu.resetStats();
    expect(emu.stats).toEqual({ requests: 0, byStatus: {}, log: [] });
  });

  it('adds the configured latency to every answer', async () => {
    const emu = await emus.start({ latencyMs: 120 });
    const started = performance.now();
    await call(emu, 'GET', '/api/v1/account');
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('connections', () => {
  it('shrugs off a client that hangs up in the middle of its body', async () => {
    const lines: string[] = [];
    const emu = await emus.start({ log: (l) => lines.push(l) });
    await new Promise<void>((resolve) => {
      const socket = connect(emu.port, '127.0.0.1', () => {
        socket.write(`POST /api/v1/websites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${emu.keys[0]}\r\nContent-Length: 100\r\n\r\ndomain=`);
        setTimeout(() => socket.destroy(), 30);
      });
      socket.on('close', () => resolve());
    });
    while (emu.stats.requests === 0) await new Promise((r) => setTimeout(r, 5));
    expect(emu.stats.log[0]).toMatchObject({ method: 'POST', status: 0 });
    expect(lines).toEqual([expect.stringMatching(/^POST \/api\/v1\/websites no answer \d+ms$/)]);
    expect((await call(emu, 'GET', '/api/v1/account')).status).toBe(200);
  });

  it('close() lets a request in progress finish, then refuses new ones', async () => {
    const emu = await emus.start({ latencyMs: 150 });
    // close() once the request is in the emulator's hands (a fixed wait lost that race on a busy machine).
    const arrived = new Promise<void>((resolve) => (emu.faults.before = () => void resolve()));
    const pending = create(emu, { domain: 'late.com' });
    await arrived;
    await emu.close();
    expect((await pending).status).toBe(201);
    await expect(call(emu, 'GET', '/api/v1/account')).rejects.toThrow();
  });
});

describe('start options', () => {
  it('generates a key when given none', async () => {
    const emu = await emus.start();
    expect(emu.keys).toHaveLength(1);
    expect(emu.keys[0]).toMatch(/^[0-9a-f]{60}$/);
    expect(emu.url).toBe(`http://127.0.0.1:${emu.port}`);
    expect((await call(emu, 'GET', '/api/v1/account')).status).toBe(200);
  });

  it('refuses a port in use with a way out', async () => {
    const first = await emus.start();
    await expect(emus.start({ port: first.port })).rejects.toThrow(`port ${first.port} is in use: pick another with --port, or --port 0`);
  });

  it('refuses nonsense options', async () => {
    await expect(emus.start({ port: 70000 })).rejects.toThrow(/port/);
    await expect(emus.start({ keys: ['has space'] })).rejects.toThrow(/printable ASCII/);
    await expect(emus.start({ websiteLimit: -2 })).rejects.toThrow(/website limit/);
  });
});
