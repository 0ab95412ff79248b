import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/model/address.js';
import type { RunAccount } from '../../src/run/open.js';
import { assertDistinctAccounts } from '../../src/run/read.js';
import { resolveApiKey, resolveBaseUrl } from '../../src/service/connection.js';
import { MAX_KEY_FILE_BYTES } from '../../src/caps.js';

describe('the base URL: --base-url, then SITESYNC_BASE_URL, then api.base_url', () => {
  it.each([
    [{ baseUrl: 'https://flag.example.com' }, { SITESYNC_BASE_URL: 'https://env.example.com' }, 'https://file.example.com', 'https://flag.example.com'],
    [{}, { SITESYNC_BASE_URL: 'https://env.example.com' }, 'https://file.example.com', 'https://env.example.com'],
    [{}, {}, 'https://file.example.com/', 'https://file.example.com'],
    [{}, {}, 'https://file.example.com/analytics/api/v1/', 'https://file.example.com/analytics'],
  ])('%j %j %s → %s', (flags, env, file, expected) => {
    expect(resolveBaseUrl(flags, env, file)).toBe(expected);
  });

  it('none at all says where to set one', () => {
    expect(() => resolveBaseUrl({}, {}, undefined)).toThrow('no base URL: pass --base-url URL, set SITESYNC_BASE_URL, or write api.base_url in the file');
  });

  it('plain http:// is refused for any host but loopback unless --insecure-http', () => {
    expect(() => resolveBaseUrl({ baseUrl: 'http://analytics.example.com' }, {})).toThrow(
      'refusing to send the API key over plain http:// to analytics.example.com: use https://, or pass --insecure-http if you must',
    );
    expect(resolveBaseUrl({ baseUrl: 'http://analytics.example.com', insecureHttp: true }, {})).toBe('http://analytics.example.com');
    expect(resolveBaseUrl({ baseUrl: 'http://127.0.0.1:8080' }, {})).toBe('http://127.0.0.1:8080');
    expect(resolveBaseUrl({ baseUrl: 'http://[::1]:8080' }, {})).toBe('http://[::1]:8080');
    expect(resolveBaseUrl({ baseUrl: 'http://localhost:8080' }, {})).toBe('http://localhost:8080');
  });

  it.each([
    ['localhost', true],
    ['127.0.0.2', true],
    ['[::1]', true],
    ['[0:0::1]', true],
    ['[::ffff:127.0.0.1]', false],
    ['127.1', false],
    ['10.0.0.1', false],
    ['[::2]', false],
    ['localhost.example.com', false],
  ])('%s is loopback: %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('the API key: --api-key-file, then SITESYNC_API_KEY', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sitesync-key-'));
    await writeFile(join(dir, 'key'), '  file-key-123456\n');
    await writeFile(join(dir, 'empty'), '\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and trims the file first, then the environment', async () => {
    expect(await resolveApiKey({ apiKeyFile: join(dir, 'key') }, { SITESYNC_API_KEY: 'env-key' })).toBe('file-key-123456');
    expect(await resolveApiKey({}, { SITESYNC_API_KEY: ' env-key-123456 \n' })).toBe('env-key-123456');
  });

  it('a missing or empty key file names the file, never any content', async () => {
    await expect(resolveApiKey({ apiKeyFile: join(dir, 'nope') }, {})).rejects.toThrow(`--api-key-file ${join(dir, 'nope')}: no such file`);
    await expect(resolveApiKey({ apiKeyFile: join(dir, 'empty') }, {})).rejects.toThrow('the file is empty');
  });

  it.each([
    ['a line break inside', 'key-one\r\nkey-two', 'it holds a line break'],
    ['a control character', 'key-\u0001-123456', 'it holds control characters'],
    ['a NUL byte', 'key-\u0000-123456', 'it holds control characters'],
    ['a space inside', 'key one', 'it holds more than one word'],
  ])('SITESYNC_API_KEY with %s is refused at once, never shown', async (_, key, problem) => {
    const error = await resolveApiKey({}, { SITESYNC_API_KEY: key }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^SITESYNC_API_KEY is not an API key: /);
    expect((error as Error).message).toContain(problem);
    expect((error as Error).message).not.toContain(key.slice(0, 5));
  });

  it('a key file larger than 4 KiB is not read to the end: not an API key', async () => {
    await writeFile(join(dir, 'big'), 'k'.repeat(MAX_KEY_FILE_BYTES + 1));
    await expect(resolveApiKey({ apiKeyFile: join(dir, 'big') }, {})).rejects.toThrow(`--api-key-file ${join(dir, 'big')} is not an API key: the file holds more than 4 KiB`);
    await writeFile(join(dir, 'exact'), `${'k'.repeat(MAX_KEY_FILE_BYTES - 1)}\n`);
    expect(await resolveApiKey({ apiKeyFile: join(dir, 'exact') }, {})).toHaveLength(MAX_KEY_FILE_BYTES - 1);
  });

  it('no key says where to put one', async () => {
    await expect(resolveApiKey({}, {})).rejects.toThrow('no API key: set SITESYNC_API_KEY, or pass --api-key-file FILE');
  });
});

describe('one account, one entry, whatever host name reaches it', () => {
  const site = (id: number) => ({ id, domain: `s${id}.example.com` });
  const entry = (name: string, installation: string, id: number | null, email: string, live?: number[]): RunAccount =>
    ({
      name,
      connection: { installation },
      account: { id, name: 'Alice', email, plan: 'Default', websiteLimit: null },
      live: live?.map(site),
    }) as unknown as RunAccount;
  const problem = (accounts: RunAccount[]) => {
    try {
      assertDistinctAccounts(accounts);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('127.0.0.1 and localhost: the same id, e-mail and websites are one account, said with both hosts', () => {
    expect(problem([entry('one', 'http://127.0.0.1:8080', 1, 'alice@example.com', [1, 2]), entry('two', 'http://localhost:8080', 1, 'Alice@Example.com', [1, 2])])).toBe(
      'accounts one and two are one account (id 1, Alice@Example.com, the same 2 websites) reached through two host names, 127.0.0.1:8080 and localhost:8080: keep one entry for it; nothing was written',
    );
  });

  it('two installations whose first users share an id and an e-mail are two accounts: other websites, another port, or nothing to compare', () => {
    const eu = entry('eu', 'https://eu.analytics.example.com', 1, 'admin@agency.example', [1, 2]);
    expect(problem([eu, entry('us', 'https://us.analytics.example.com', 1, 'admin@agency.example', [1, 3])])).toBeUndefined();
    expect(problem([entry('a', 'http://127.0.0.1:8080', 1, 'x@e.example', [1]), entry('b', 'http://127.0.0.1:8081', 1, 'x@e.example', [1])])).toBeUndefined();
    expect(problem([entry('a', 'http://127.0.0.1:8080', 1, 'x@e.example', []), entry('b', 'http://localhost:8080', 1, 'x@e.example', [])])).toBeUndefined();
    expect(problem([entry('a', 'http://127.0.0.1:8080', 1, 'x@e.example', [1]), entry('b', 'http://localhost:8080', 1, 'y@e.example', [1])])).toBeUndefined();
  });

  it('one installation, one id: one account, as before', () => {
    expect(problem([entry('one', 'http://localhost:8080', 7, 'a@e.example'), entry('two', 'http://localhost:8080', 7, 'b@e.example')])).toBe(
      'accounts one and two are one account (id 7) of http://localhost:8080: keep one entry for it; nothing was written',
    );
  });
});
