/**
 * One walker of pages the client does not trust (src/service/pages.ts), for the listings of
 * websites and the statistics alike: a rule written once holds for both, each in its own words.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ServiceClient } from '../../src/service/client.js';
import { walkPages, type PageWords } from '../../src/service/pages.js';
import type { Page } from '../../src/service/wire.js';
import { failure } from '../helpers/api-failure.js';

const KEY = 'test-key-0123456789abcdef';
let emu: Emulator;
let client: ServiceClient;

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY] });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: KEY, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
});

afterEach(async () => {
  await client.close();
  await emu.close();
});

const site = (id: number) => ({ id, domain: `h${id}.example.com`, privacy: 0, email: 0, exclude_bots: 1, password: false });
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('the rules of one walker hold for websites and statistics alike', () => {
  it('a listing answered with another page than asked is the service\'s error (the statistics said so already), not a listing that misses a page', async () => {
    // Page 2 answers page 1 again, saying so.
    emu.faults.before = (req) =>
      req.path === '/api/v1/websites'
        ? { status: 200, body: { data: ids(1, 100).map(site), meta: { current_page: 1, last_page: 2, per_page: '100', total: 200 } } }
        : undefined;
    const error = await failure(client.listWebsites());
    expect(error.message).toBe("list websites: the service's pagination cannot be right (asked for page 2, the service answered page 1); stopped listing");
  });

  it('a statistic whose page before the last holds nothing is the service\'s error at that page (as a listing of websites says it)', async () => {
    const [one] = emu.seed(KEY, [{ domain: 'x.example.com' }]);
    emu.faults.before = (req) => {
      if (!req.path.startsWith('/api/v1/stats/')) return undefined;
      const n = Number(req.query.get('page'));
      const data = n === 1 ? ids(0, 100).map((i) => ({ value: `/p${String(i).padStart(3, '0')}`, count: 1 })) : [];
      return { status: 200, body: { current_page: n, data, last_page: 3, per_page: '100', total: 300 } };
    };
    const error = await failure(client.statsRows(one!.id, 'x.example.com', 'page', '1970-01-01', '9999-12-31'));
    expect(error.message).toBe('read the page statistics of x.example.com: page 2 says last_page 3, but holds no value');
    expect(emu.stats.log.filter((l) => l.path.startsWith('/api/v1/stats/'))).toHaveLength(2);
  });
});

describe('walkPages', () => {
  const words: PageWords = {
    wrap: (problem) => `walk: ${problem}`,
    noun: 'things',
    one: 'thing',
    most: 'more things than there are',
    disagrees: (n) => `page ${n} disagrees`,
    endless: (n) => `page ${n} never ends`,
    circles: (n) => `page ${n} circles`,
  };
  /** A walk over `pages` (page n is pages[n - 1]) of ids, with `paging` on every page. */
  const walk = (pages: number[][], paging: (n: number) => Partial<Page<number>> = () => ({ lastPage: pages.length })) => {
    const asked: number[] = [];
    const done = walkPages<number, number>({
      fetch: async (n) => {
        asked.push(n);
        return { items: pages[n - 1] ?? [], hasNext: false, ...paging(n) };
      },
      read: (id) => id,
      key: (id) => id,
      perPage: 3,
      words,
      readers: 4,
    });
    return { done, asked };
  };

  it('every item of every page, each once, in the order first read', async () => {
    expect(await walk([[1, 2, 3], [3, 4, 5], [6]]).done).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a page count past what could be added while walking is refused before a page is read beyond it', async () => {
    const { done, asked } = walk([[1, 2, 3], [4, 5, 6]], (n) => ({ lastPage: n === 1 ? 2 : 5_000 }));
    await expect(done).rejects.toThrow('walk: page 2 never ends');
    expect(asked.length).toBeLessThanOrEqual(2);
  });

  it('without a page count: pages in order while each says there is a next one, and one that brings nothing new goes in a circle', async () => {
    const asked: number[] = [];
    const circle = walkPages<number, number>({
      fetch: async (n) => {
        asked.push(n);
        return { items: [1, 2], hasNext: true };
      },
      read: (id) => id,
      key: (id) => id,
      perPage: 3,
      words,
      readers: 4,
    });
    await expect(circle).rejects.toThrow('walk: page 2 circles');
    expect(asked).toEqual([1, 2]);
  });

  it('a later reading of an item replaces the earlier one, unless the walk says which to keep', async () => {
    const read = async (merge?: (a: { id: number; n: number }, b: { id: number; n: number }) => { id: number; n: number }) =>
      walkPages<{ id: number; n: number }, { id: number; n: number }>({
        fetch: async (n) => ({ items: n === 1 ? [{ id: 1, n: 5 }, { id: 2, n: 1 }, { id: 3, n: 1 }] : [{ id: 3, n: 1 }, { id: 1, n: 2 }], lastPage: 2, hasNext: n < 2 }),
        read: (item) => item,
        key: (item) => item.id,
        merge,
        perPage: 3,
        words,
      });
    expect((await read())[0]).toEqual({ id: 1, n: 2 });
    expect((await read((a, b) => (b.n > a.n ? b : a)))[0]).toEqual({ id: 1, n: 5 });
  });
});
