/** The emulator's small pieces on their own, and the command run in-process. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pc from 'picocolors';
import { runEmulator } from '../../src/commands/emulator.js';
import { UsageError } from '../../src/messages/errors.js';
import { bearerToken, wantsJson } from '../../src/emulator/auth.js';
import { fromParams } from '../../src/emulator/input.js';
import { PageUrls, pageWindow } from '../../src/emulator/pagination.js';
import { normalizeDomain } from '../../src/emulator/store.js';
import { parseRateLimit, Throttle } from '../../src/emulator/throttle.js';
import { summarize } from '../../src/emulator/validation.js';
import { SecretValues } from '../../src/secrets/values.js';
import type { Context } from '../../src/io/context.js';
import { call } from './helpers.js';

describe('Throttle', () => {
  it('opens a window at the first request after the last one ran out', () => {
    let now = 10_000;
    const t = new Throttle(2, 1000, () => now);
    expect(t.hit('k').headers).toEqual({ 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '1' });
    now += 400;
    expect(t.hit('k').headers['X-RateLimit-Remaining']).toBe('0');
    now += 100;
    const refused = t.hit('k');
    expect(refused.allowed).toBe(false);
    // 500 ms left: Retry-After rounds up to a whole second; Reset is the window's end.
    expect(refused.headers).toEqual({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '0',
      'Retry-After': '1',
      'X-RateLimit-Reset': '11',
    });
    expect(t.hit('other').allowed).toBe(true);
    now = 11_000;
    expect(t.hit('k').headers['X-RateLimit-Remaining']).toBe('1');
    // The new window started at 11 000, not at the end of the old one plus a multiple.
    now = 11_999;
    t.hit('k');
    expect(t.hit('k').allowed).toBe(false);
    now = 12_000;
    expect(t.hit('k').allowed).toBe(true);
  });

  it('rounds Retry-After up over long windows', () => {
    let now = 0;
    const t = new Throttle(1, 60_000, () => now);
    t.hit('k');
    now = 100;
    expect(t.hit('k').headers['Retry-After']).toBe('60');
    now = 59_001;
    expect(t.hit('k').headers['Retry-After']).toBe('1');
  });
});

describe('parseRateLimit', () => {
  it('reads N/SECONDS and off', () => {
    expect(parseRateLimit('60/60')).toEqual({ limit: 60, windowMs: 60_000 });
    expect(parseRateLimit(' 5 / 0.5 ')).toEqual({ limit: 5, windowMs: 500 });
    expect(parseRateLimit('off')).toBeNull();
    for (const bad of ['60', '0/60', '60/0', 'a/b', '60/60/60', '-1/5']) expect(parseRateLimit(bad), bad).toBeUndefined();
  });
});

describe('pagination', () => {
  it('lists pages the way Laravel’s UrlWindow does', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(3, 13)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(pageWindow(1, 20)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, '...', 19, 20]);
    expect(pageWindow(10, 20)).toEqual([1, 2, '...', 7, 8, 9, 10, 11, 12, 13, '...', 19, 20]);
    expect(pageWindow(20, 20)).toEqual([1, 2, '...', 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  });

  it('builds page URLs from the request query, page last or in its place', () => {
    const urls = (q: string) => new PageUrls('http://h/api/v1/websites', [...new URLSearchParams(q)]);
    expect(urls('').url(2)).toBe('http://h/api/v1/websites?page=2');
    expect(urls('search=a b&per_page=25').url(3)).toBe('http://h/api/v1/websites?search=a%20b&per_page=25&page=3');
    expect(urls('page=1&sort=asc').url(2)).toBe('http://h/api/v1/websites?page=2&sort=asc');
    expect(urls('sort=asc&sort=desc').url(1)).toBe('http://h/api/v1/websites?sort=desc&page=1');
  });
});

describe('validation summary', () => {
  it('counts every message after the first', () => {
    expect(summarize({ a: ['A.'] })).toBe('A.');
    expect(summarize({ a: ['A.', 'B.'] })).toBe('A. (and 1 more error)');
    expect(summarize({ a: ['A.'], b: ['B.', 'C.'] })).toBe('A. (and 2 more errors)');
  });
});

describe('request reading', () => {
  it('reads input as Laravel does: last value wins, trimmed, empty is null, passwords untrimmed', () => {
    const input = fromParams(new URLSearchParams('a=1&a=2&b=%20x%20&c=&password=%20p%20&d[]=1&d[]=2'));
    expect(Object.fromEntries(input)).toEqual({ a: '2', b: 'x', c: null, password: ' p ', d: ['1', '2'] });
  });

  it('reads the bearer token and whether JSON is wanted', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer  abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
    expect(wantsJson('application/json', undefined)).toBe(true);
    expect(wantsJson(undefined, undefined)).toBe(false);
    expect(wantsJson('text/html,application/json;q=0.9', undefined)).toBe(false);
  });

  it('normalizes domains as the service does before validation', () => {
    expect(normalizeDomain('HTTPS://WWW.Example.com')).toBe('example.com');
    expect(normalizeDomain('www.www.example.com')).toBe('www.example.com');
    expect(normalizeDomain('ftp://example.com')).toBe('ftp://example.com');
  });
});

describe('runEmulator in-process', () => {
  function context() {
    const out = new PassThrough();
    const err = new PassThrough();
    let stdout = '';
    let stderr = '';
    out.on('data', (d) => (stdout += d));
    err.on('data', (d) => (stderr += d));
    const abort = new AbortController();
    const ctx: Context = {
      stdout: out,
      stderr: err,
      stdin: new PassThrough(),
      env: {},
      cwd: process.cwd(),
      out: pc.createColors(false),
      err: pc.createColors(false),
      verbose: false,
      signal: abort.signal,
      secrets: new SecretValues(),
    };
    return { ctx, abort, stdout: () => stdout, stderr: () => stderr };
  }

  it('serves until the signal aborts, then returns 0', async () => {
    const c = context();
    const running = runEmulator({ port: 0, host: '127.0.0.1', key: ['in-proc'], rateLimit: '10/1' }, c.ctx);
    while (!c.stdout().includes('Ctrl-C')) await new Promise((r) => setTimeout(r, 5));
    const url = /Base URL {3}(\S+)/.exec(c.stdout())![1]!;
    expect(c.stdout()).toContain('Throttle   10 requests per 1 s per client address (all keys share it)');
    const r = await call({ url, keys: ['in-proc'] } as never, 'GET', '/api/v1/account');
    expect(r.status).toBe(200);
    c.abort.abort();
    expect(await running).toBe(0);
    expect(c.stderr()).toMatch(/^GET \/api\/v1\/account 200 \d+ms\nEmulator stopped\.\n$/);
  });

  it('--throttle-by key counts per key, and the banner says so', async () => {
    const c = context();
    const running = runEmulator({ port: 0, host: '127.0.0.1', key: ['k-one', 'k-two'], rateLimit: '1/60', throttleBy: 'key', quiet: true }, c.ctx);
    while (!c.stdout().includes('Ctrl-C')) await new Promise((r) => setTimeout(r, 5));
    const url = /Base URL {3}(\S+)/.exec(c.stdout())![1]!;
    expect(c.stdout()).toContain('Throttle   1 requests per 60 s per key');
    const emu = { url, keys: ['k-one'] } as never;
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'k-one' })).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'k-two' })).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v1/account', { key: 'k-one' })).status).toBe(429);
    c.abort.abort();
    expect(await running).toBe(0);
  });

  it('refuses bad values with a UsageError', async () => {
    const c = context();
    await expect(runEmulator({ port: 0, rateLimit: '60' }, c.ctx)).rejects.toThrow(UsageError);
    await expect(runEmulator({ port: -1 }, c.ctx)).rejects.toThrow(/--port/);
    await expect(runEmulator({ port: 0, latency: Number.NaN }, c.ctx)).rejects.toThrow(/--latency/);
    await expect(runEmulator({ port: 0, websiteLimit: 1.5 }, c.ctx)).rejects.toThrow(/--website-limit/);
    expect(c.stdout()).toBe('');
  });
});
