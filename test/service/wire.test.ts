import { describe, expect, it } from 'vitest';
import { readPage } from '../../src/service/wire.js';
import { toAccount, toForm, toLiveWebsite } from '../../src/service/wire.js';

describe('records are read liberally', () => {
  it.each([
    [
      'the deployed record: no exclude_params, password as a boolean',
      { id: 1, domain: 'example.com', privacy: 0, email: 0, password: false, exclude_bots: 1, exclude_ips: null, favorite: false, favorited_at: null },
      { id: 1, domain: 'example.com', privacy: 0, email: 0, password: false, exclude_bots: 1, exclude_ips: [], favorite: false },
    ],
    [
      'integers as strings, and a store answer echoing the form with nulls',
      { id: '7', domain: 'a.example.com', privacy: '2', email: null, exclude_bots: '0', exclude_params: null, exclude_ips: '10.0.0.1', password: true },
      { id: 7, domain: 'a.example.com', privacy: 2, email: 0, exclude_bots: 0, exclude_params: [], exclude_ips: ['10.0.0.1'], password: true },
    ],
    [
      'newline lists with \\r\\n and blank lines',
      { id: 2, domain: 'b.example.com', exclude_params: 'utm_source\r\n\r\n fbclid \r\n', exclude_ips: '1.1.1.1\n\n2.2.2.2\n' },
      { id: 2, domain: 'b.example.com', exclude_params: ['utm_source', 'fbclid'], exclude_ips: ['1.1.1.1', '2.2.2.2'] },
    ],
    [
      'favorite as 0/1 strings; an old version without favorite leaves it unreadable',
      { id: 3, domain: 'c.example.com', favorite: '1' },
      { id: 3, domain: 'c.example.com', favorite: true },
    ],
    [
      'null privacy/email read as the service defaults, and a null exclude_bots as off (the product acts on it by PHP truth)',
      { id: 4, domain: 'WWW.D.example.com', privacy: null, email: null, exclude_bots: null },
      { id: 4, domain: 'd.example.com', privacy: 0, email: 0, exclude_bots: 0 },
    ],
  ])('%s', (_name, raw, expected) => {
    expect(toLiveWebsite(raw)).toEqual(expected);
  });

  it.each([
    ['trailing.example.org.', 'trailing.example.org', 'trailing.example.org.'],
    ['bücher.example', 'xn--bcher-kva.example', 'bücher.example'],
    ['a b.example.com', 'a b.example.com', undefined],
    ['my_site.example.com', 'my_site.example.com', undefined],
  ])('a live %s is keyed %s and keeps its stored spelling', (domain, key, stored) => {
    const site = toLiveWebsite({ id: 1, domain });
    expect(site.domain).toBe(key);
    expect(site.stored).toBe(stored);
  });

  it('a record without id or domain is a protocol error', () => {
    expect(() => toLiveWebsite({ domain: 'x.com' })).toThrow('without an id or domain');
  });

  it('the account: plan limit -1 is unlimited', () => {
    const body = { data: { id: 1, name: 'Jane', email: 'j@example.com', plan: { id: 2, name: 'Pro', features: { api: true, websites: -1 } } }, status: 200 };
    expect(toAccount(body)).toEqual({ id: 1, name: 'Jane', email: 'j@example.com', plan: 'Pro', websiteLimit: null, pageviewLimit: null, emailReports: null });
    expect(toAccount({ data: { name: 'B', plan: { name: 'S', features: { websites: '25' } } } }).websiteLimit).toBe(25);
  });
});

describe('list pages in both Laravel shapes', () => {
  it('a resource collection (data / links / meta)', () => {
    const page = readPage({ data: [{ id: 1 }], links: { next: 'http://wrong-host/x?page=2' }, meta: { current_page: 1, last_page: 3, per_page: 100, total: 250 }, status: 200 }, 1);
    expect(page).toEqual({ items: [{ id: 1 }], currentPage: 1, lastPage: 3, total: 250, perPage: 100, hasNext: true });
  });

  it('a bare paginator (current_page / last_page / next_page_url)', () => {
    const page = readPage({ current_page: 2, data: [], last_page: 2, next_page_url: null, per_page: '10', total: '15' }, 2);
    expect(page).toEqual({ items: [], currentPage: 2, lastPage: 2, total: 15, perPage: 10, hasNext: false });
  });

  it('a paginator without a page count follows next_page_url by number', () => {
    expect(readPage({ data: [{ id: 1 }], next_page_url: '/api/v1/websites?page=2' }, 1).hasNext).toBe(true);
  });
});

describe('forms are written strictly', () => {
  it('lists joined by \\n in file order, flags as 1/0, favorite never as "false"', () => {
    const view = { domain: 'a.example.com', privacy: 2 as const, email: 1 as const, exclude_bots: 0 as const, exclude_params: ['b', 'a'], exclude_ips: [], favorite: false };
    expect(toForm(view, ['privacy', 'password', 'email', 'exclude_bots', 'exclude_params', 'exclude_ips', 'favorite'], 'pw')).toEqual({
      privacy: '2',
      password: 'pw',
      email: '1',
      exclude_bots: '0',
      exclude_params: 'b\na',
      exclude_ips: '',
      favorite: '0',
    });
  });
});
