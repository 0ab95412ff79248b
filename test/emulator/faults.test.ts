/** The in-process fault hooks that the client and apply tests rely on. */
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRequest } from '../../src/emulator/index.js';
import { call, create, emulators } from './helpers.js';

const emus = emulators();
afterEach(() => emus.closeAll());

describe('faults.before', () => {
  it('answers instead of the service: every third request a 500', async () => {
    const emu = await emus.start();
    emu.faults.before = (req) => (req.n % 3 === 0 ? { status: 500, body: { message: 'Server Error' } } : undefined);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(emu, 'GET', '/api/v1/account')).status);
    expect(statuses).toEqual([200, 200, 500, 200, 200, 500]);
    expect(emu.stats.byStatus).toEqual({ 200: 4, 500: 2 });
  });

  it('sees the request: method, path, query, body and key', async () => {
    const emu = await emus.start({ keys: ['k'] });
    const seen: FaultRequest[] = [];
    emu.faults.before = (req) => void seen.push(req);
    await call(emu, 'GET', '/api/v1/websites?per_page=100');
    await create(emu, { domain: 'seen.com', privacy: 1 });
    await call(emu, 'PATCH', '/api/v1/websites/1', { json: { email: 1 } });
    expect(seen.map((r) => [r.method, r.path, r.n, r.key])).toEqual([
      ['GET', '/api/v1/websites', 1, 'k'],
      ['POST', '/api/v1/websites', 2, 'k'],
      ['PATCH', '/api/v1/websites/1', 3, 'k'],
    ]);
    expect(seen[0]!.query.get('per_page')).toBe('100');
    expect(seen[0]!.body).toBeNull();
    expect(seen[1]!.body?.get('domain')).toBe('seen.com');
    expect(seen[2]!.body?.get('email')).toBe('1');
  });

  it('can send any status, body and headers (a proxy error page, a 503 with Retry-After)', async () => {
    const emu = await emus.start();
    emu.faults.before = () => ({ status: 503, body: '<html>busy</html>', headers: { 'Retry-After': '2' } });
    const r = await call(emu, 'GET', '/api/v1/websites');
    expect(r.status).toBe(503);
    expect(r.text).toBe('<html>busy</html>');
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('retry-after')).toBe('2');
  });

  it('can delay a request and then handle it normally', async () => {
    const emu = await emus.start();
    emu.faults.before = async () => ({ delayMs: 100 });
    const started = performance.now();
    expect((await create(emu, { domain: 'slow.com' })).status).toBe(201);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('can reset the connection without an answer, before anything changed', async () => {
    const emu = await emus.start();
    emu.faults.before = (req) => (req.method === 'POST' ? 'reset' : undefined);
    await expect(create(emu, { domain: 'reset.com' })).rejects.toThrow();
    expect(emu.websites(emu.keys[0]!)).toEqual([]);
    expect(emu.stats.log.at(-1)?.status).toBe(0);
  });
});

describe('faults.afterCommit', () => {
  it('answers 500 after a store that went through', async () => {
    const emu = await emus.start();
    emu.faults.afterCommit = () => ({ status: 500, body: { message: 'Server Error' } });
    const r = await create(emu, { domain: 'committed.com' });
    expect(r.status).toBe(500);
    expect(emu.websites(emu.keys[0]!).map((w) => w.domain)).toEqual(['committed.com']);
    // Trying again finds it taken: the client must look before it retries.
    emu.faults.afterCommit = undefined;
    expect((await create(emu, { domain: 'committed.com' })).json.message).toEqual({ domain: ['The domain has already been taken.'] });
  });

  it('loses the answer of an update or a delete that went through', async () => {
    const emu = await emus.start();
    const [a, b] = emu.seed(emu.keys[0]!, [{ domain: 'a.com' }, { domain: 'b.com' }]);
    emu.faults.afterCommit = () => 'reset';
    await expect(call(emu, 'PATCH', `/api/v1/websites/${a!.id}`, { form: { email: 1 } })).rejects.toThrow();
    await expect(call(emu, 'DELETE', `/api/v1/websites/${b!.id}`)).rejects.toThrow();
    expect(emu.websites(emu.keys[0]!).map((w) => [w.domain, w.email])).toEqual([['a.com', 1]]);
  });

  it('is not called for reads or refused writes', async () => {
    const emu = await emus.start();
    const called: string[] = [];
    emu.faults.afterCommit = (req) => void called.push(`${req.method} ${req.path}`);
    await call(emu, 'GET', '/api/v1/websites');
    await create(emu, {});
    await create(emu, { domain: 'ok.com' });
    expect(called).toEqual(['POST /api/v1/websites']);
  });
});

describe('broken-service faults', () => {
  it('allowDuplicateDomains lets a domain be stored twice', async () => {
    const emu = await emus.start({ keys: ['a', 'b'] });
    emu.faults.allowDuplicateDomains = true;
    expect((await create(emu, { domain: 'twice.com' }, 'a')).status).toBe(201);
    expect((await create(emu, { domain: 'twice.com' }, 'a')).status).toBe(201);
    expect((await create(emu, { domain: 'twice.com' }, 'b')).status).toBe(201);
    expect(emu.websites('a').map((w) => w.domain)).toEqual(['twice.com', 'twice.com']);
  });

  it('ignorePerPage always pages by 10', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, Array.from({ length: 15 }, (_, i) => ({ domain: `p${i}.com` })));
    emu.faults.ignorePerPage = true;
    const r = await call(emu, 'GET', '/api/v1/websites?per_page=100');
    expect(r.json.data).toHaveLength(10);
    expect(r.json.meta).toMatchObject({ per_page: '10', last_page: 2, total: 15 });
  });

  it('envelope: paginator answers a bare paginator', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, Array.from({ length: 12 }, (_, i) => ({ domain: `p${i}.com` })));
    emu.faults.envelope = 'paginator';
    const r = await call(emu, 'GET', '/api/v1/websites');
    const base = `${emu.url}/api/v1/websites`;
    expect(r.json).toMatchObject({
      current_page: 1,
      first_page_url: `${base}?page=1`,
      from: 1,
      last_page: 2,
      last_page_url: `${base}?page=2`,
      next_page_url: `${base}?page=2`,
      path: base,
      per_page: 10,
      prev_page_url: null,
      to: 10,
      total: 12,
      status: 200,
    });
    expect(r.json.data).toHaveLength(10);
    expect(r.json.meta).toBeUndefined();
  });

  it('linkOrigin builds pagination links (and the login redirect) with the wrong host', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, Array.from({ length: 12 }, (_, i) => ({ domain: `p${i}.com` })));
    emu.faults.linkOrigin = 'http://internal.example:8000';
    const r = await call(emu, 'GET', '/api/v1/websites');
    expect(r.json.links.next).toBe('http://internal.example:8000/api/v1/websites?page=2');
    expect(r.json.meta.path).toBe('http://internal.example:8000/api/v1/websites');
    const login = await call(emu, 'GET', '/api/v1/websites', { key: null, accept: null });
    expect(login.headers.get('location')).toBe('http://internal.example:8000/login');
  });

  it('omitFields, stringInts and crlfLists change records as other versions do', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'v.com', privacy: 1, email: 0, exclude_bots: 1, exclude_params: 'a\nb', exclude_ips: '1.2.3.4' }]);
    Object.assign(emu.faults, { omitFields: ['favorite', 'favorited_at'], stringInts: true, crlfLists: true });
    const r = await call(emu, 'GET', `/api/v1/websites/${w!.id}`);
    expect(r.json.data).toMatchObject({ id: w!.id, privacy: '1', email: '0', exclude_bots: '1', exclude_params: 'a\r\n\r\nb\r\n', exclude_ips: '1.2.3.4\r\n\r\n' });
    expect('favorite' in r.json.data).toBe(false);
    expect('favorited_at' in r.json.data).toBe(false);
    // The stored values are untouched.
    expect(emu.websites(emu.keys[0]!)[0]).toMatchObject({ privacy: 1, exclude_params: 'a\nb' });
  });

  it('faults can be replaced as a whole object', async () => {
    const emu = await emus.start();
    emu.faults = { before: () => ({ status: 502 }) };
    expect((await call(emu, 'GET', '/api/v1/account')).status).toBe(502);
    emu.faults = {};
    expect((await call(emu, 'GET', '/api/v1/account')).status).toBe(200);
  });
});
