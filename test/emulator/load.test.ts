/**
 * 200 concurrent clients each making a fixed number of rounds of creates, updates and deletes over
 * loopback (a count of operations, not a time: a busy machine makes it slower, never weaker):
 * every acknowledged write is there, nothing else is, domains stay unique, and the data file
 * read back equals the state in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { call, create } from './helpers.js';

const CLIENTS = 200;
const ROUNDS = 3;
const KEYS = ['load-a', 'load-b', 'load-c', 'load-d'];
const SHARED = 20;

const dir = mkdtempSync(join(tmpdir(), 'sitesync-emulator-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Expected {
  domain: string;
  email: number | null;
  favorite: boolean;
}

describe('load', () => {
  // A fixed count of work (some 1,000 writes, each saved to the data file, then a restart): about
  // 25 s beside a second suite in the lead's run, near the default 30 s. No clock in what it asserts.
  it('loses no write and corrupts nothing under 200 concurrent clients', { timeout: 120_000 }, async () => {
    const file = join(dir, 'state.json');
    const emu = await startEmulator({ port: 0, keys: KEYS, dataFile: file });
    let reloaded: Emulator | undefined;
    try {
      const expected = new Map<string, Map<number, Expected>>(KEYS.map((k) => [k, new Map()]));
      const unexpected: string[] = [];
      let writes = 0;
      let sharedWins = 0;

      const client = async (c: number) => {
        const key = KEYS[c % KEYS.length]!;
        const mine = expected.get(key)!;
        let seq = 0;
        while (seq < ROUNDS) {
          // One create in three races every other client for a small pool of shared domains.
          const shared = seq % 3 === 2;
          const domain = shared ? `shared${(c + seq) % SHARED}.load.test` : `c${c}-${seq}.load.test`;
          seq++;
          const made = await create(emu, { domain, email: 0 }, key);
          writes++;
          if (made.status === 422 && shared && made.json.message?.domain?.[0] === 'The domain has already been taken.') continue;
          if (made.status !== 201) {
            unexpected.push(`create ${domain}: ${made.status} ${made.text}`);
            continue;
          }
          if (shared) sharedWins++;
          const id = made.json.data.id as number;
          mine.set(id, { domain, email: 0, favorite: false });

          const roll = (c * 31 + seq * 17) % 10;
          if (roll < 4) {
            const r = await call(emu, 'PATCH', `/api/v1/websites/${id}`, { key, form: { email: 1, favorite: 1 } });
            writes++;
            if (r.status === 200) Object.assign(mine.get(id)!, { email: 1, favorite: true });
            else unexpected.push(`update ${id}: ${r.status}`);
          }
          if (roll >= 6) {
            const r = await call(emu, 'DELETE', `/api/v1/websites/${id}`, { key });
            writes++;
            if (r.status === 200) mine.delete(id);
            else unexpected.push(`delete ${id}: ${r.status}`);
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

      expect(unexpected).toEqual([]);
      // Every round wrote at least once: the count is fixed, whatever the machine's speed.
      expect(writes).toBeGreaterThanOrEqual(CLIENTS * ROUNDS);
      expect(sharedWins).toBeGreaterThan(0);

      const allIds = new Set<number>();
      const allDomains = new Set<string>();
      for (const key of KEYS) {
        const live = emu.websites(key);
        const want = expected.get(key)!;
        expect(live.map((w) => w.id)).toEqual([...want.keys()].sort((a, b) => a - b));
        for (const w of live) {
          expect({ domain: w.domain, email: w.email, favorite: w.favorite }).toEqual(want.get(w.id));
          expect(allIds.has(w.id)).toBe(false);
          expect(allDomains.has(w.domain)).toBe(false);
          allIds.add(w.id);
          allDomains.add(w.domain);
        }
      }

      // The list endpoint agrees with the state, page after page.
      const listed: number[] = [];
      let url: string | null = '/api/v1/websites?per_page=100&sort=asc';
      while (url) {
        const r = await call(emu, 'GET', url, { key: KEYS[0]! });
        listed.push(...r.json.data.map((w: { id: number }) => w.id));
        url = r.json.links.next;
      }
      expect(listed).toEqual(emu.websites(KEYS[0]!).map((w) => w.id));

      const inMemory = KEYS.map((k) => emu.websites(k));
      await emu.close();
      reloaded = await startEmulator({ port: 0, keys: KEYS, dataFile: file });
      expect(KEYS.map((k) => reloaded!.websites(k))).toEqual(inMemory);
    } finally {
      await emu.close();
      await reloaded?.close();
    }
  });
});
