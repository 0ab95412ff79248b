/**
 * The one walker of pages the client does not trust (src/service/pages.ts), without a network:
 * the listings of websites and the statistics walk through it (their cases, in their own words,
 * are in client.test.ts and stats-order.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { walkPages, type PageWords } from '../../src/service/pages.js';
import type { Page } from '../../src/service/wire.js';

describe('walkPages', () => {
  const words: PageWords = {
    wrap: (problem) => `walk: ${problem}`,
    noun: 'things',
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
      ...words,
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
      ...words,
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
        ...words,
      });
    expect((await read())[0]).toEqual({ id: 1, n: 2 });
    expect((await read((a, b) => (b.n > a.n ? b : a)))[0]).toEqual({ id: 1, n: 5 });
  });
});
