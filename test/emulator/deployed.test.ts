/**
 * The deployed profile answers as the product's own code was seen to answer
 * (service-behaviour.md, "Observed on the product's own code"), one difference a test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, create, emulators } from './helpers.js';

const emus = emulators();
afterEach(() => emus.closeAll());

describe('422 answers carry the field → messages object in `message`', () => {
  it('answers several fields at once, with no errors key and no summary sentence', async () => {
    const emu = await emus.start();
    const r = await create(emu, { domain: 'x.com/a', privacy: 5, exclude_bots: 3, email: 'yes' });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      message: {
        domain: ['Invalid domain name.'],
        privacy: ['The privacy field must be between 0 and 2.'],
        email: ['The email field must be an integer.'],
        exclude_bots: ['The exclude bots field must be between 0 and 1.'],
      },
      status: 422,
    });
  });

  it('says "already been taken" and "You created too many websites." under domain', async () => {
    const emu = await emus.start({ keys: [{ key: 'one', websiteLimit: 1 }, 'other'] });
    expect((await create(emu, { domain: 'mine.com' }, 'one')).status).toBe(201);
    expect((await create(emu, { domain: 'mine.com' }, 'other')).json).toEqual({
      message: { domain: ['The domain has already been taken.'] },
      status: 422,
    });
    expect((await create(emu, { domain: 'two.com' }, 'one')).json).toEqual({
      message: { domain: ['You created too many websites.'] },
      status: 422,
    });
  });

  it('requires a password at privacy 2 on store, in the language file’s words', async () => {
    const emu = await emus.start();
    expect((await create(emu, { domain: 'p.com', privacy: 2 })).json).toEqual({
      message: { password: ['The password field is required.'] },
      status: 422,
    });
    expect((await create(emu, { domain: 'p.com', privacy: 2, password: 'x'.repeat(129) })).json.message).toEqual({
      password: ['The password field must be between 1 and 128 characters.'],
    });
  });
});

describe('password on update', () => {
  it('accepts privacy 2 without a password, and refuses an empty password', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'open.com', privacy: 0 }]);
    const path = `/api/v1/websites/${w!.id}`;
    expect((await call(emu, 'PATCH', path, { form: { privacy: 2 } })).status).toBe(200);
    expect(emu.websites(emu.keys[0]!)[0]).toMatchObject({ privacy: 2, password: null });
    const empty = await call(emu, 'PATCH', path, { form: { password: '' } });
    expect(empty.status).toBe(422);
    expect(empty.json).toEqual({ message: { password: ['The password field must be a string.'] }, status: 422 });
  });
});

describe('answers echo the form as strings; show and list give integers', () => {
  it('a store with every field answers strings', async () => {
    const emu = await emus.start();
    const r = await create(emu, { domain: 'all.com', privacy: 2, password: 'pw', email: 1, exclude_bots: 0, exclude_ips: '10.0.0.1' });
    expect(r.status).toBe(201);
    expect(r.json.data).toMatchObject({ privacy: '2', email: '1', exclude_bots: '0', exclude_ips: '10.0.0.1', password: true });
    const shown = await call(emu, 'GET', `/api/v1/websites/${r.json.data.id}`);
    expect(shown.json.data).toMatchObject({ privacy: 2, email: 1, exclude_bots: 0 });
  });

  it('a store that leaves out privacy and email answers null for them', async () => {
    const emu = await emus.start();
    const r = await create(emu, { domain: 'bare.com' });
    expect(r.json.data).toMatchObject({ privacy: null, email: null });
  });

  it('an update answers the fields sent as strings, favorited_at as ISO; show gives the database format', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'u.com', privacy: 0, email: 1 }]);
    const r = await call(emu, 'PATCH', `/api/v1/websites/${w!.id}`, { form: { privacy: 1, email: 0, favorite: 1 } });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ privacy: '1', email: '0', exclude_bots: 1, favorite: true });
    expect(r.json.data.favorited_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const shown = await call(emu, 'GET', `/api/v1/websites/${w!.id}`);
    expect(shown.json.data).toMatchObject({ privacy: 1, email: 0 });
    expect(shown.json.data.favorited_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const listed = await call(emu, 'GET', '/api/v1/websites');
    expect(listed.json.data[0].favorited_at).toBe(shown.json.data.favorited_at);
  });
});

describe('lists', () => {
  it('meta.per_page is a string, the default page size is 10, a page past the end is 200 with no data', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, Array.from({ length: 12 }, (_, i) => ({ domain: `l${i}.com` })));
    const first = await call(emu, 'GET', '/api/v1/websites');
    expect(first.json.data).toHaveLength(10);
    expect(first.json.meta.per_page).toBe('10');
    const past = await call(emu, 'GET', '/api/v1/websites?page=7');
    expect(past.status).toBe(200);
    expect(past.json.data).toEqual([]);
  });

  it('favorite=1 filters, favorite=true is ignored', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, [{ domain: 'f.com', favorite: true }, { domain: 'n.com' }]);
    const domains = async (q: string) => (await call(emu, 'GET', `/api/v1/websites?${q}`)).json.data.map((w: { domain: string }) => w.domain);
    expect(await domains('favorite=1')).toEqual(['f.com']);
    expect(await domains('favorite=true')).toEqual(['n.com', 'f.com']);
  });
});

describe('errors outside the resource', () => {
  it('an update of an unknown or foreign id answers 500 unless validation fails first', async () => {
    const emu = await emus.start({ keys: ['mine', 'theirs'] });
    const theirs = (await create(emu, { domain: 'theirs.com' }, 'theirs')).json.data.id;
    for (const id of [999, theirs]) {
      const r = await call(emu, 'PATCH', `/api/v1/websites/${id}`, { key: 'mine', form: { email: 1 } });
      expect(r.status).toBe(500);
      expect(r.json).toEqual({ message: 'Server Error' });
      expect((await call(emu, 'PATCH', `/api/v1/websites/${id}`, { key: 'mine', form: { email: 7 } })).status).toBe(422);
    }
  });

  it('a user_id on update answers 403 "This action is unauthorized."', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'owned.com' }]);
    const r = await call(emu, 'PATCH', `/api/v1/websites/${w!.id}`, { form: { user_id: 2, email: 1 } });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ message: 'This action is unauthorized.' });
    expect(emu.websites(emu.keys[0]!)[0]!.email).toBeNull();
  });

  it('a POST to an unknown route under /api/v1 answers 405', async () => {
    const emu = await emus.start();
    const r = await call(emu, 'POST', '/api/v1/nope', { form: { a: 1 } });
    expect(r.status).toBe(405);
    expect(r.json.message).toBe('The POST method is not supported for this route. Supported methods: GET, HEAD.');
  });

  it('a GET to an unknown route under /api/v1 answers 404 only after a valid key', async () => {
    const emu = await emus.start();
    expect((await call(emu, 'GET', '/api/v1/nope', { key: null })).status).toBe(401);
    expect((await call(emu, 'GET', '/api/v1/nope', { key: 'wrong' })).status).toBe(401);
    const r = await call(emu, 'GET', '/api/v1/nope');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ message: 'Resource not found.', status: 404 });
  });

  it('a wrong base path answers 404 {"message": ""} without status or rate-limit headers', async () => {
    const emu = await emus.start({ rateLimit: { limit: 60, windowMs: 60_000 } });
    for (const path of ['/analytics/api/v1/account', '/api/api/v1/websites', '/']) {
      for (const key of [undefined, null]) {
        const r = await call(emu, 'GET', path, { key });
        expect(r.status, path).toBe(404);
        expect(r.json, path).toEqual({ message: '' });
        expect(r.headers.get('x-ratelimit-limit'), path).toBeNull();
      }
    }
  });
});

describe('domains are checked loosely', () => {
  it('removes http:// and https:// anywhere, and every www. when the rest starts with one', async () => {
    const emu = await emus.start();
    for (const [sent, saved] of [
      ['www.a.www.example.net', 'a.example.net'],
      ['HTTPS://WWW.Example.COM', 'example.com'],
      ['shop.http://example.org', 'shop.example.org'],
      ['blog.www.example.io', 'blog.www.example.io'],
    ] as const) {
      const r = await create(emu, { domain: sent });
      expect(r.status, sent).toBe(201);
      expect(r.json.data.domain, sent).toBe(saved);
    }
  });

  it('stores odd domains as given and refuses a port or a path', async () => {
    const emu = await emus.start();
    for (const domain of ['a b.example.com', 'my_site.example.com', 'x.org.', '192.0.2.1', 'bücher.example']) {
      const r = await create(emu, { domain });
      expect(r.status, domain).toBe(201);
      expect(r.json.data.domain).toBe(domain);
    }
    for (const domain of ['x.com:8080', 'x.com/a']) {
      expect((await create(emu, { domain })).json, domain).toEqual({ message: { domain: ['Invalid domain name.'] }, status: 422 });
    }
  });

  it('stores exclude_ips verbatim, never validated', async () => {
    const emu = await emus.start();
    const r = await create(emu, { domain: 'ips.com', exclude_ips: 'office-router\n192.168.1.*' });
    expect(r.status).toBe(201);
    expect(emu.websites(emu.keys[0]!)[0]!.exclude_ips).toBe('office-router\n192.168.1.*');
  });
});

describe('throttle per client address', () => {
  it('every key from one address shares one budget; a wrong key gets 429 once it is spent', async () => {
    const emu = await emus.start({ keys: ['a', 'b'], rateLimit: { limit: 3, windowMs: 30_000 } });
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'a' })).headers.get('x-ratelimit-remaining')).toBe('2');
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'b' })).headers.get('x-ratelimit-remaining')).toBe('1');
    const wrong = await call(emu, 'GET', '/api/v1/account', { key: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('x-ratelimit-remaining')).toBe('0');
    const spent = await call(emu, 'GET', '/api/v1/account', { key: 'wrong' });
    expect(spent.status).toBe(429);
    expect(spent.json).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(spent.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'b' })).status).toBe(429);
  });

  it('throttleBy key keeps a budget per key', async () => {
    const emu = await emus.start({ keys: ['a', 'b'], rateLimit: { limit: 1, windowMs: 30_000 }, throttleBy: 'key' });
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'a' })).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'b' })).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'a' })).status).toBe(429);
  });
});
