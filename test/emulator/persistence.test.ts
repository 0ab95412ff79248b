/** `dataFile`: state across restarts, atomic group-committed writes, refusing damaged files. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SitesyncError } from '../../src/messages/errors.js';
import { Persister, serialize } from '../../src/emulator/persistence.js';
import type { StateData } from '../../src/emulator/store.js';
import { call, create, emulators } from './helpers.js';

const emus = emulators();
afterEach(() => emus.closeAll());
const dir = mkdtempSync(join(tmpdir(), 'sitesync-emulator-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const freshFile = () => join(dir, `state-${++fileCount}.json`);

describe('restart', () => {
  it('keeps accounts, websites and the id sequence, and never the key in clear', async () => {
    const file = freshFile();
    const first = await emus.start({ dataFile: file, keys: ['key-one', { key: 'key-two', websiteLimit: 3, name: 'Two' }] });
    await create(first, { domain: 'a.com', privacy: 2, password: 'pw', exclude_params: 'utm_source' }, 'key-one');
    const b = await create(first, { domain: 'b.com' }, 'key-one');
    await create(first, { domain: 'c.com' }, 'key-two');
    await call(first, 'PATCH', `/api/v1/websites/${b.json.data.id}`, { key: 'key-one', form: { favorite: 1 } });
    await call(first, 'DELETE', '/api/v1/websites/3', { key: 'key-two' });
    const before = { one: first.websites('key-one'), two: first.websites('key-two') };
    await first.close();

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('key-one');
    expect(text).not.toContain('key-two');
    expect(JSON.parse(text)).toMatchObject({ format: 'sitesync-emulator', version: 1, nextId: 4 });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await emus.start({ dataFile: file, keys: ['key-two', 'key-one'] });
    expect(second.websites('key-one')).toEqual(before.one);
    expect(second.websites('key-two')).toEqual(before.two);
    const account = await call(second, 'GET', '/api/v1/account', { key: 'key-two' });
    expect(account.json.data).toMatchObject({ id: 2, name: 'Two', plan: { features: { websites: 3 } } });
    // Ids are not reused after a delete and a restart.
    expect((await create(second, { domain: 'd.com' }, 'key-two')).json.data.id).toBe(4);
    // Uniqueness still spans accounts.
    expect((await create(second, { domain: 'a.com' }, 'key-two')).status).toBe(422);
  });

  it('starts empty when the file does not exist yet, and creates it at once', async () => {
    const file = freshFile();
    const emu = await emus.start({ dataFile: file });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ nextId: 1, websites: [], accounts: [{ id: 1 }] });
    expect(emu.websites(emu.keys[0]!)).toEqual([]);
  });

  it('a new key gets a new account beside the old ones', async () => {
    const file = freshFile();
    const first = await emus.start({ dataFile: file, keys: ['old'] });
    first.seed('old', [{ domain: 'old.com' }]);
    await first.close();
    const second = await emus.start({ dataFile: file, keys: ['new'] });
    expect(second.websites('new')).toEqual([]);
    expect((await call(second, 'GET', '/api/v1/account', { key: 'new' })).json.data.id).toBe(2);
    expect((await create(second, { domain: 'old.com' }, 'new')).status).toBe(422);
  });
});

describe('durability', () => {
  it('answers a write only once the file holds it', async () => {
    const file = freshFile();
    const emu = await emus.start({ dataFile: file });
    for (let i = 0; i < 15; i++) {
      const r = await create(emu, { domain: `durable${i}.com` });
      expect(r.status).toBe(201);
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { websites: { domain: string }[] };
      expect(saved.websites.map((w) => w.domain)).toContain(`durable${i}.com`);
    }
    const id = emu.websites(emu.keys[0]!)[0]!.id;
    await call(emu, 'DELETE', `/api/v1/websites/${id}`);
    expect(JSON.parse(readFileSync(file, 'utf8')).websites.map((w: { id: number }) => w.id)).not.toContain(id);
  });

  it('leaves no temporary files behind', async () => {
    const folder = join(dir, 'tidy');
    mkdirSync(folder);
    const emu = await emus.start({ dataFile: join(folder, 'state.json') });
    await Promise.all(Array.from({ length: 40 }, (_, i) => create(emu, { domain: `t${i}.com` })));
    await emu.close();
    expect(readdirSync(folder)).toEqual(['state.json']);
  });

  it('coalesces concurrent commits into few writes, each holding every change made before it', async () => {
    const file = freshFile();
    let changes = 0;
    const snapshots: number[] = [];
    const data = (): StateData => {
      snapshots.push(changes);
      return { nextId: changes + 1, accounts: [], websites: [] };
    };
    const persister = new Persister(file, data);
    const commits: Promise<number>[] = [];
    for (let i = 0; i < 100; i++) {
      changes++;
      const made = changes;
      // Each commit must resolve only after a write whose snapshot includes its change.
      commits.push(persister.commit().then(() => made));
    }
    const made = await Promise.all(commits);
    expect(snapshots.length).toBeLessThanOrEqual(3);
    expect(snapshots.at(-1)).toBe(100);
    expect(made).toHaveLength(100);
    expect(JSON.parse(readFileSync(file, 'utf8')).nextId).toBe(101);
    await persister.flush();
  });
});

describe('damaged data files', () => {
  const cases: [string, string, RegExp][] = [
    ['not JSON', '{"format": "sitesync-emulator", "version": 1, "nextId": 3, "acc', /is not valid JSON/],
    ['empty', '', /is empty/],
    ['another format', '{"websites": []}', /is not an emulator data file/],
    ['another version', '{"format": "sitesync-emulator", "version": 7}', /has version 7/],
    [
      'a bad field',
      serialize({
        nextId: 2,
        accounts: [{ id: 1, keyHash: 'a'.repeat(64), name: 'n', email: 'e', websiteLimit: null, apiAccess: true, created_at: 'x' }],
        websites: [
          {
            id: 1, account: 1, domain: 'a.com', privacy: 'public' as unknown as number, email: null, exclude_bots: 1,
            exclude_params: null, exclude_ips: null, favorite: false, favorited_at: null, password: null, created_at: 'x', updated_at: 'x',
          },
        ],
      }),
      /websites\[0\]\.privacy is not an integer or null/,
    ],
    [
      'an orphan website',
      serialize({
        nextId: 2,
        accounts: [],
        websites: [
          {
            id: 1, account: 9, domain: 'a.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: null,
            exclude_ips: null, favorite: false, favorited_at: null, password: null, created_at: 'x', updated_at: 'x',
          },
        ],
      }),
      /websites\[0\]\.account does not name an account/,
    ],
  ];

  for (const [what, content, message] of cases) {
    it(`refuses ${what} with a clear error and leaves it untouched`, async () => {
      const file = freshFile();
      writeFileSync(file, content);
      const error = await emus.start({ dataFile: file }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SitesyncError);
      expect((error as Error).message).toContain(file);
      expect((error as Error).message).toMatch(message);
      expect(readFileSync(file, 'utf8')).toBe(content);
    });
  }

  it('refuses a folder, and a file in a folder that does not exist', async () => {
    await expect(emus.start({ dataFile: dir })).rejects.toThrow(/cannot be read \(it is a folder\)/);
    await expect(emus.start({ dataFile: join(dir, 'missing', 'state.json') })).rejects.toThrow(/cannot write the emulator data file/);
  });

  it('ignores a temporary file left by a killed run', async () => {
    const folder = join(dir, 'killed');
    mkdirSync(folder);
    const file = join(folder, 'state.json');
    const first = await emus.start({ dataFile: file, keys: ['k'] });
    first.seed('k', [{ domain: 'kept.com' }]);
    await first.close();
    writeFileSync(join(folder, '.state.json.999.1.tmp'), '{"torn');
    const second = await emus.start({ dataFile: file, keys: ['k'] });
    expect(second.websites('k').map((w) => w.domain)).toEqual(['kept.com']);
  });
});
