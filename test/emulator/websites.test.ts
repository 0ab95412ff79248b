/** Contract tests over real HTTP: every endpoint, in both profiles. */
import { afterEach, describe, expect, it } from 'vitest';
import { call, create, emulators } from './helpers.js';

const emus = emulators();
afterEach(() => emus.closeAll());

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('store (deployed profile)', () => {
  it('answers 201 with the form echoed as sent, while the stored record is typed', async () => {
    const emu = await emus.start();
    const r = await create(emu, { domain: 'example.com', privacy: '1', exclude_ips: '203.0.113.7' });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.json).toEqual({
      data: {
        id: 1,
        domain: 'example.com',
        privacy: '1',
        email: null,
        password: false,
        exclude_bots: null,
        exclude_ips: '203.0.113.7',
        favorite: false,
        favorited_at: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      },
      status: 200,
    });
    expect(Object.keys(r.json.data)).not.toContain('exclude_params');

    const shown = await call(emu, 'GET', '/api/v1/websites/1');
    expect(shown.status).toBe(200);
    expect(shown.json).toEqual({
      data: {
        id: 1,
        domain: 'example.com',
        privacy: 1,
        email: null, // left out: saved as null, not the documented 0
        password: false,
        exclude_bots: 1, // left out: becomes 1
        exclude_ips: '203.0.113.7',
        favorite: false,
        favorited_at: null,
        created_at: r.json.data.created_at,
        updated_at: r.json.data.updated_at,
      },
      status: 200,
    });
    // The field order of a deployed record.
    expect(Object.keys(shown.json.data)).toEqual([
      'id', 'domain', 'privacy', 'email', 'password', 'exclude_bots', 'exclude_ips', 'favorite', 'favorited_at', 'created_at', 'updated_at',
    ]);
  });

  it('keeps exclude_params and the password although it never shows them', async () => {
    const emu = await emus.start();
    const r = await create(emu, { domain: 'a.com', privacy: 2, password: 's3cret', exclude_params: 'utm_source\ngclid' });
    expect(r.status).toBe(201);
    expect(r.json.data.password).toBe(true);
    expect(r.json.data.privacy).toBe('2');
    const stored = emu.websites(emu.keys[0]!)[0]!;
    expect(stored).toMatchObject({ domain: 'a.com', privacy: 2, password: 's3cret', exclude_params: 'utm_source\ngclid' });
    const shown = await call(emu, 'GET', `/api/v1/websites/${stored.id}`);
    expect(shown.json.data.password).toBe(true);
    expect('exclude_params' in shown.json.data).toBe(false);
  });

  it('lower-cases the domain and strips a leading scheme and www.', async () => {
    const emu = await emus.start();
    for (const [sent, saved] of [
      ['HTTPS://WWW.Example.COM', 'example.com'],
      ['http://blog.example.org', 'blog.example.org'],
      ['www.shop.example.net', 'shop.example.net'],
      ['  Trimmed.example.io  ', 'trimmed.example.io'],
    ] as const) {
      const r = await create(emu, { domain: sent });
      expect(r.status, sent).toBe(201);
      expect(r.json.data.domain).toBe(saved);
    }
  });

  it('ignores favorite on store', async () => {
    const emu = await emus.start();
    const r = await create(emu, { domain: 'fav.com', favorite: 1 });
    expect(r.json.data.favorite).toBe(false);
    expect(emu.websites(emu.keys[0]!)[0]!.favorite).toBe(false);
  });

  it('also accepts a JSON body', async () => {
    const emu = await emus.start();
    const r = await call(emu, 'POST', '/api/v1/websites', { json: { domain: 'json.com', privacy: 1, email: 1, exclude_bots: 0 } });
    expect(r.status).toBe(201);
    expect(emu.websites(emu.keys[0]!)[0]).toMatchObject({ domain: 'json.com', privacy: 1, email: 1, exclude_bots: 0 });
  });

  it('numbers websites with one sequence across accounts', async () => {
    const emu = await emus.start({ keys: ['key-a', 'key-b'] });
    expect((await create(emu, { domain: 'a.com' }, 'key-a')).json.data.id).toBe(1);
    expect((await create(emu, { domain: 'b.com' }, 'key-b')).json.data.id).toBe(2);
    expect((await create(emu, { domain: 'c.com' }, 'key-a')).json.data.id).toBe(3);
  });
});

describe('store and show (full profile)', () => {
  it('returns every field, typed, and no status key', async () => {
    const emu = await emus.start({ profile: 'full' });
    const r = await create(emu, { domain: 'full.com', privacy: '0', email: '1', exclude_params: 'a\nb' });
    expect(r.status).toBe(201);
    const expected = {
      id: 1,
      domain: 'full.com',
      privacy: 0,
      email: 1,
      password: false,
      exclude_bots: 1,
      exclude_params: 'a\nb',
      exclude_ips: null,
      favorite: false,
      favorited_at: null,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    };
    expect(r.json).toEqual({ data: expected });
    const shown = await call(emu, 'GET', '/api/v1/websites/1');
    expect(shown.json).toEqual({ data: expected });
  });
});

describe('show', () => {
  it('answers 404 for an unknown id, a foreign id and a malformed id', async () => {
    for (const profile of ['deployed', 'full'] as const) {
      const emu = await emus.start({ profile, keys: ['mine', 'theirs'] });
      await create(emu, { domain: 'theirs.com' }, 'theirs');
      const body = profile === 'deployed' ? { message: 'Resource not found.', status: 404 } : { message: 'Resource not found.' };
      for (const path of ['/api/v1/websites/99', '/api/v1/websites/1', '/api/v1/websites/abc']) {
        const r = await call(emu, 'GET', path, { key: 'mine' });
        expect(r.status, `${profile} ${path}`).toBe(404);
        expect(r.json).toEqual(body);
      }
    }
  });
});

describe('update', () => {
  it('changes only the fields sent, by PUT and by PATCH', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'up.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: '1.2.3.4' }]);
    const put = await call(emu, 'PUT', `/api/v1/websites/${w!.id}`, { form: { email: 1 } });
    expect(put.status).toBe(200);
    expect(put.json.status).toBe(200);
    // The deployed answer echoes the fields sent as the form sent them (strings), the rest typed.
    expect(put.json.data).toMatchObject({ id: w!.id, domain: 'up.com', privacy: 0, email: '1', exclude_bots: 1, exclude_ips: '1.2.3.4' });
    const patch = await call(emu, 'PATCH', `/api/v1/websites/${w!.id}`, { form: { exclude_bots: '0', exclude_ips: '' } });
    expect(patch.status).toBe(200);
    expect(patch.json.data).toMatchObject({ email: 1, exclude_bots: '0', exclude_ips: null });
    expect(emu.websites(emu.keys[0]!)[0]).toMatchObject({ email: 1, exclude_bots: 0, exclude_ips: null });
  });

  it('ignores the domain', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'keep.com' }]);
    const r = await call(emu, 'PATCH', `/api/v1/websites/${w!.id}`, { form: { domain: 'other.com', email: 1 } });
    expect(r.status).toBe(200);
    expect(r.json.data.domain).toBe('keep.com');
  });

  it('moves updated_at only when something changed', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'same.com', email: 1 }]);
    await new Promise((r) => setTimeout(r, 5));
    const same = await call(emu, 'PATCH', `/api/v1/websites/${w!.id}`, { form: { email: 1 } });
    expect(same.json.data.updated_at).toBe(w!.updated_at);
    const changed = await call(emu, 'PATCH', `/api/v1/websites/${w!.id}`, { form: { email: 0 } });
    expect(changed.json.data.updated_at).not.toBe(w!.updated_at);
  });

  it('reads favorite as PHP does: only 0 and empty clear it, even "false" sets it', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'fav.com' }]);
    const path = `/api/v1/websites/${w!.id}`;
    const expectations: [string, boolean][] = [
      ['1', true], ['0', false], ['false', true], ['', false], ['true', true], ['no', true], ['0', false],
    ];
    for (const [sent, favorite] of expectations) {
      const r = await call(emu, 'PATCH', path, { form: { favorite: sent } });
      expect(r.json.data.favorite, `favorite=${JSON.stringify(sent)}`).toBe(favorite);
      expect(r.json.data.favorited_at === null, `favorited_at after ${JSON.stringify(sent)}`).toBe(!favorite);
    }
    // Not sent: unchanged.
    await call(emu, 'PATCH', path, { form: { favorite: '1' } });
    expect((await call(emu, 'PATCH', path, { form: { email: 1 } })).json.data.favorite).toBe(true);
  });

  it('deployed: an unknown or foreign id answers 500 (the known defect); full: 404', async () => {
    const deployed = await emus.start({ keys: ['mine', 'theirs'] });
    const [theirs] = deployed.seed('theirs', [{ domain: 'theirs.com' }]);
    for (const id of [999, theirs!.id]) {
      for (const method of ['PUT', 'PATCH']) {
        const r = await call(deployed, method, `/api/v1/websites/${id}`, { key: 'mine', form: { email: 1 } });
        expect(r.status).toBe(500);
        expect(r.json).toEqual({ message: 'Server Error' });
      }
    }
    expect(deployed.websites('theirs')[0]!.email).toBeNull();

    const full = await emus.start({ profile: 'full' });
    const r = await call(full, 'PATCH', '/api/v1/websites/999', { form: { email: 1 } });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ message: 'Resource not found.' });
  });
});

describe('delete', () => {
  it('answers 200 with the documented body, then the website is gone', async () => {
    const emu = await emus.start();
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'gone.com' }]);
    const r = await call(emu, 'DELETE', `/api/v1/websites/${w!.id}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: w!.id, object: 'website', deleted: true, status: 200 });
    expect((await call(emu, 'GET', `/api/v1/websites/${w!.id}`)).status).toBe(404);
    expect((await call(emu, 'DELETE', `/api/v1/websites/${w!.id}`)).status).toBe(404);
    // The domain is free again; ids are never reused.
    const again = await create(emu, { domain: 'gone.com' });
    expect(again.status).toBe(201);
    expect(again.json.data.id).toBe(w!.id + 1);
  });

  it('full profile: no status key', async () => {
    const emu = await emus.start({ profile: 'full' });
    const [w] = emu.seed(emu.keys[0]!, [{ domain: 'gone.com' }]);
    expect((await call(emu, 'DELETE', `/api/v1/websites/${w!.id}`)).json).toEqual({ id: w!.id, object: 'website', deleted: true });
  });
});

describe('account', () => {
  it('shows the account that owns the key, with its plan limit', async () => {
    const emu = await emus.start({ keys: ['k1', { key: 'k2', name: 'Ada', email: 'ada@example.com', websiteLimit: 5 }], websiteLimit: 50 });
    const one = await call(emu, 'GET', '/api/v1/account', { key: 'k1' });
    expect(one.status).toBe(200);
    expect(one.json).toEqual({
      data: {
        id: 1,
        name: 'Emulator account 1',
        email: 'account1@emulator.local',
        avatar_url: expect.stringMatching(/^https:\/\//),
        locale: 'en',
        timezone: 'UTC',
        plan: { id: 1, name: expect.any(String), features: expect.objectContaining({ api: true, websites: 50 }) },
        created_at: expect.stringMatching(TIMESTAMP),
      },
      status: 200,
    });
    const two = await call(emu, 'GET', '/api/v1/account', { key: 'k2' });
    expect(two.json.data).toMatchObject({ id: 2, name: 'Ada', email: 'ada@example.com', plan: { features: { websites: 5 } } });
  });

  it('says -1 for unlimited, and has no status key in the full profile', async () => {
    const emu = await emus.start({ profile: 'full' });
    const r = await call(emu, 'GET', '/api/v1/account');
    expect(r.json.data.plan.features.websites).toBe(-1);
    expect('status' in r.json).toBe(false);
  });
});

describe('accounts are apart', () => {
  it('never shows, changes or deletes another account’s websites', async () => {
    const emu = await emus.start({ keys: ['alice', 'bob'] });
    const a = await create(emu, { domain: 'alice.com' }, 'alice');
    await create(emu, { domain: 'bob.com' }, 'bob');
    const bobList = await call(emu, 'GET', '/api/v1/websites', { key: 'bob' });
    expect(bobList.json.data.map((w: { domain: string }) => w.domain)).toEqual(['bob.com']);
    expect(bobList.json.meta.total).toBe(1);
    expect((await call(emu, 'GET', `/api/v1/websites/${a.json.data.id}`, { key: 'bob' })).status).toBe(404);
    expect((await call(emu, 'DELETE', `/api/v1/websites/${a.json.data.id}`, { key: 'bob' })).status).toBe(404);
    expect(emu.websites('alice').map((w) => w.domain)).toEqual(['alice.com']);
  });

  it('keeps domains unique across all accounts, www. and scheme included', async () => {
    const emu = await emus.start({ keys: ['alice', 'bob'] });
    expect((await create(emu, { domain: 'taken.com' }, 'alice')).status).toBe(201);
    for (const domain of ['taken.com', 'https://www.TAKEN.com']) {
      const r = await create(emu, { domain }, 'bob');
      expect(r.status).toBe(422);
      expect(r.json).toEqual({ message: { domain: ['The domain has already been taken.'] }, status: 422 });
    }
    expect((await create(emu, { domain: 'taken.com' }, 'alice')).status).toBe(422);
  });
});

describe('website limit', () => {
  it('refuses a store past the plan limit, and allows it again after a delete', async () => {
    const emu = await emus.start({ keys: [{ key: 'small', websiteLimit: 2 }] });
    expect((await create(emu, { domain: 'one.com' })).status).toBe(201);
    const two = await create(emu, { domain: 'two.com' });
    expect(two.status).toBe(201);
    const three = await create(emu, { domain: 'three.com' });
    expect(three.status).toBe(422);
    expect(three.json).toEqual({ message: { domain: ['You created too many websites.'] }, status: 422 });
    await call(emu, 'DELETE', `/api/v1/websites/${two.json.data.id}`);
    expect((await create(emu, { domain: 'three.com' })).status).toBe(201);
  });

  it('applies the emulator-wide limit to accounts without their own', async () => {
    const emu = await emus.start({ websiteLimit: 0 });
    expect((await create(emu, { domain: 'none.com' })).json.message).toEqual({ domain: ['You created too many websites.'] });
  });
});

describe('list', () => {
  const domains = ['delta.com', 'alpha.com', 'charlie.org', 'bravo.com', 'echo.net'];

  it('answers the resource envelope, newest first, with correct links', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, domains.map((domain) => ({ domain })));
    const r = await call(emu, 'GET', '/api/v1/websites');
    expect(r.status).toBe(200);
    expect(r.json.data.map((w: { id: number }) => w.id)).toEqual([5, 4, 3, 2, 1]);
    expect(r.json.status).toBe(200);
    const base = `${emu.url}/api/v1/websites`;
    expect(r.json.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=1`, prev: null, next: null });
    expect(r.json.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 1,
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        { url: `${base}?page=1`, label: '1', active: true },
        { url: null, label: 'Next &raquo;', active: false },
      ],
      path: base,
      per_page: '10',
      to: 5,
      total: 5,
    });
  });

  it('pages, keeping the query in every link', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, Array.from({ length: 60 }, (_, i) => ({ domain: `site${String(i + 1).padStart(2, '0')}.com` })));
    const r = await call(emu, 'GET', '/api/v1/websites?per_page=25&sort_by=id&sort=asc&page=2');
    expect(r.json.data).toHaveLength(25);
    expect(r.json.data[0].id).toBe(26);
    const base = `${emu.url}/api/v1/websites?per_page=25&sort_by=id&sort=asc`;
    expect(r.json.links).toEqual({ first: `${base}&page=1`, last: `${base}&page=3`, prev: `${base}&page=1`, next: `${base}&page=3` });
    expect(r.json.meta).toMatchObject({ current_page: 2, from: 26, to: 50, last_page: 3, per_page: '25', total: 60 });
    expect(r.json.meta.links.map((l: { label: string }) => l.label)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);

    const last = await call(emu, 'GET', r.json.links.next);
    expect(last.json.data.map((w: { id: number }) => w.id)).toEqual(Array.from({ length: 10 }, (_, i) => 51 + i));
    expect(last.json.links.next).toBeNull();

    const past = await call(emu, 'GET', '/api/v1/websites?page=9');
    expect(past.status).toBe(200);
    expect(past.json.data).toEqual([]);
    expect(past.json.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 6, total: 60 });
  });

  it('reads every page at per_page=100 and sees every website once', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, Array.from({ length: 250 }, (_, i) => ({ domain: `s${i}.example.com` })));
    const seen: number[] = [];
    let url: string | null = '/api/v1/websites?per_page=100&sort_by=id&sort=asc';
    while (url) {
      const r = await call(emu, 'GET', url);
      seen.push(...r.json.data.map((w: { id: number }) => w.id));
      url = r.json.links.next;
    }
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
  });

  it('searches domains case-insensitively, sorts by domain, filters favorites', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, domains.map((domain, i) => ({ domain, favorite: i % 2 === 0 })));
    const names = async (query: string) =>
      (await call(emu, 'GET', `/api/v1/websites?${query}`)).json.data.map((w: { domain: string }) => w.domain);
    expect(await names('search=.COM&search_by=domain&sort_by=domain&sort=asc')).toEqual(['alpha.com', 'bravo.com', 'delta.com']);
    expect(await names('sort_by=domain')).toEqual(['echo.net', 'delta.com', 'charlie.org', 'bravo.com', 'alpha.com']);
    expect(await names('favorite=1&sort=asc')).toEqual(['delta.com', 'charlie.org', 'echo.net']);
    expect(await names('favorite=0&sort=asc')).toEqual(['alpha.com', 'bravo.com']);
    // The product compares with 0 and 1: `true` and `false` filter nothing.
    expect(await names('favorite=true&sort=asc')).toEqual(domains);
    expect(await names('favorite=false&sort=asc')).toEqual(domains);
    expect(await names('search=zzz')).toEqual([]);
  });

  it('deployed: replaces values it does not understand by the defaults', async () => {
    const emu = await emus.start();
    emu.seed(emu.keys[0]!, Array.from({ length: 12 }, (_, i) => ({ domain: `d${i}.com` })));
    const r = await call(emu, 'GET', '/api/v1/websites?per_page=7&sort_by=name&sort=up&search_by=email&page=zero');
    expect(r.status).toBe(200);
    expect(r.json.meta).toMatchObject({ per_page: '10', current_page: 1, total: 12 });
    expect(r.json.data[0].id).toBe(12);
    // The links keep the query as sent, as Laravel's withQueryString() does.
    expect(r.json.links.next).toBe(`${emu.url}/api/v1/websites?per_page=7&sort_by=name&sort=up&search_by=email&page=2`);
  });

  it('full: answers 422 for values it does not understand', async () => {
    const emu = await emus.start({ profile: 'full' });
    const cases: [string, string, string][] = [
      ['per_page=7', 'per_page', 'The selected per page is invalid.'],
      ['sort_by=name', 'sort_by', 'The selected sort by is invalid.'],
      ['sort=up', 'sort', 'The selected sort is invalid.'],
      ['search_by=email', 'search_by', 'The selected search by is invalid.'],
      ['favorite=yes', 'favorite', 'The favorite field must be true or false.'],
      ['page=0', 'page', 'The page must be at least 1.'],
      ['page=x', 'page', 'The page must be an integer.'],
    ];
    for (const [query, field, message] of cases) {
      const r = await call(emu, 'GET', `/api/v1/websites?${query}`);
      expect(r.status, query).toBe(422);
      expect(r.json).toEqual({ message, errors: { [field]: [message] } });
    }
    const two = await call(emu, 'GET', '/api/v1/websites?per_page=7&sort=up');
    expect(two.json.message).toBe('The selected sort is invalid. (and 1 more error)');
    const ok = await call(emu, 'GET', '/api/v1/websites?per_page=100&sort=asc&sort_by=domain&favorite=false&search=x&search_by=domain&page=1');
    expect(ok.status).toBe(200);
    expect('status' in ok.json).toBe(false);
  });

  it('answers HEAD like GET, without a body', async () => {
    const emu = await emus.start();
    const r = await call(emu, 'HEAD', '/api/v1/websites');
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });
});
