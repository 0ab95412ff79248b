import { describe, expect, it } from 'vitest';
import { apiRoot, JsonApi, nextLink, rateLimitWait, type CiService } from '../../src/ci/http.js';
import { parseFile } from '../../src/config/parse.js';
import { resolveBaseUrl } from '../../src/service/connection.js';
import { hugeServer, trickleServer } from '../helpers/hostile-server.js';

const GITHUB = { addressVariable: 'GITHUB_API_URL', tokenVariable: 'GITHUB_TOKEN', example: 'https://api.github.com' };

/** The same address, checked as the service's base URL and as a CI API's root: one verdict. */
function verdicts(address: string): { service: string; ci: string } {
  const outcome = (check: () => unknown) => {
    try {
      check();
      return 'ok';
    } catch (error) {
      return (error as Error).message;
    }
  };
  return { service: outcome(() => resolveBaseUrl({ baseUrl: address }, {})), ci: outcome(() => apiRoot(address, GITHUB)) };
}

describe('one rule for every address a secret is sent to: the base URL and the CI APIs', () => {
  it.each([
    ['https://analytics.example.com', 'ok'],
    ['http://127.0.0.1:8080', 'ok'],
    ['http://localhost:8080', 'ok'],
    ['http://[::1]:8080', 'ok'],
    ['http://analytics.example.com', 'refusing to send the token over plain http:// to analytics.example.com: use https://'],
    ['ftp://analytics.example.com', 'must start with https:// (not ftp:)'],
    ['https://me:secret@analytics.example.com', 'must not hold credentials (user:password@)'],
    ['https://analytics.example.com/?team=1', 'must be a plain address, without a query (?…)'],
    ['https://analytics.example.com/#top', 'must be a plain address, without a fragment (#…)'],
    ['https://analytics.example.com/?a=1#top', 'must be a plain address, without a query (?…) or a fragment (#…)'],
    ['analytics.example.com', '"analytics.example.com" is not a URL (write it like'],
  ])('%s: %s', (address, expected) => {
    const { service, ci } = verdicts(address);
    if (expected === 'ok') {
      expect(service).toBe('ok');
      expect(ci).toBe('ok');
      return;
    }
    expect(ci).toContain(`GITHUB_API_URL: ${expected}`);
    expect(service).toContain(`--base-url: ${expected.replace('the token', 'the API key')}`);
    if (expected.includes('credentials')) {
      expect(ci).toContain('the token comes from GITHUB_TOKEN');
      expect(service).toContain('the API key comes from SITESYNC_API_KEY or --api-key-file');
    }
  });

  it('api.base_url in the file is held to the same rule, with its line and column', () => {
    const problems = (address: string) => {
      try {
        parseFile(`version: 1\napi:\n  base_url: ${address}\nwebsites: []\n`, 'x.yaml', { env: {} });
        return 'ok';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problems('https://me:pw@analytics.example.com')).toBe(
      'x.yaml:3:13: api.base_url must not hold credentials (user:password@): the API key comes from SITESYNC_API_KEY or --api-key-file',
    );
    expect(problems('https://analytics.example.com/?team=1')).toBe('x.yaml:3:13: api.base_url must be a plain address, without a query (?…)');
    // Plain http:// waits for the connection, where --insecure-http is known.
    expect(problems('http://analytics.example.com')).toBe('ok');
  });

  it('a credential in the address is never repeated in the message', () => {
    const { service, ci } = verdicts('https://me:hunter2-secret@analytics.example.com');
    expect(service + ci).not.toContain('hunter2-secret');
  });

  it('plain http:// to another host says how to allow it where there is a way (--insecure-http), and only this machine otherwise', () => {
    const { service, ci } = verdicts('http://analytics.example.com');
    expect(service).toContain('use https://, or pass --insecure-http if you must');
    expect(ci).toContain('use https:// (plain http:// only to this machine)');
  });
});

describe('Link headers, read by an RFC 8288 parser', () => {
  it('a rel inside a quoted parameter is not the next page', () => {
    expect(nextLink('<https://a/x?page=2>; title="see; rel=next", <https://a/x?page=3>; rel="next"')).toBe('https://a/x?page=3');
  });

  it('rel is matched whatever its case, and a comma inside the URL stays in it', () => {
    expect(nextLink('<https://a/x?ids=1,2&page=2>; rel="NEXT"')).toBe('https://a/x?ids=1,2&page=2');
  });

  it('a header that cannot be read stops the listing with an error, rather than miss the plan comment on a later page', () => {
    expect(() => nextLink('<https://a/x?page=2>; rel="next", garbage', 'GitHub')).toThrow(
      'GitHub sent a Link header that cannot be read; stopped listing rather than miss a page',
    );
  });
});

describe('what GitHub and GitLab refusals say: one reading, each service its own advice', () => {
  const service = (name: string): CiService => ({
    name,
    addressVariable: `${name.toUpperCase()}_API`,
    tokenVariable: `${name.toUpperCase()}_TOKEN`,
    example: 'https://api.example.com',
    unauthorized: (api) => `a token for ${api.host}?`,
    cannotWrite: 'grant write',
    cannotRead: 'grant read',
    notFound: 'check the project',
  });
  const api = new JsonApi(new URL('https://api.example.com'), service('Hub'), {}, 'thread 7', {});

  it.each([
    [401, 'Hub did not accept HUB_TOKEN (401: Bad credentials): a token for api.example.com?', { message: 'Bad credentials' }, {}, 'GET'],
    [403, "Hub's API rate limit is used up (403: API rate limit exceeded); try again later", { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0' }, 'GET'],
    [429, "Hub's API rate limit is used up (429: slow down); try again later", { message: 'slow down' }, {}, 'GET'],
    [429, "Hub's API rate limit is used up (429: slow down); it resets in 60 min; try again later", { message: 'slow down' }, { 'retry-after': '3600' }, 'POST'],
    [403, 'the token cannot write on thread 7 (403: Forbidden): grant write', { message: 'Forbidden' }, {}, 'POST'],
    [403, 'the token cannot write on thread 7 (403: insufficient_scope): grant read', { error: 'insufficient_scope' }, {}, 'GET'],
    [404, 'Hub has no thread 7, or the token cannot see it (404: Not Found): check the project', { message: 'Not Found' }, {}, 'GET'],
    [400, 'Hub refused to write on thread 7 (400: bad)', { message: 'bad' }, {}, 'POST'],
    [422, 'Hub refused to write on thread 7 (422: Validation Failed)', { message: 'Validation Failed' }, {}, 'POST'],
    [302, "Hub answered with a redirect (302): HUB_API should be the API's address, e.g. https://api.example.com", undefined, {}, 'GET'],
    [502, 'Hub could not write on thread 7 (502)', '<html>Bad Gateway</html>', {}, 'GET'],
  ])('%i: %s', (status, expected, body, headers, method) => {
    const error = api.failure({ status, body, headers }, 'write on', method !== 'GET');
    expect(error.message).toBe(expected);
  });
});

describe('how long a rate limit asks to wait', () => {
  const at = Date.parse('2026-05-01T10:00:00Z');
  it.each([
    [{ 'retry-after': '30' }, 30_000],
    [{ 'retry-after': '0' }, 1_000],
    [{ 'retry-after': 'Fri, 01 May 2026 10:02:00 GMT' }, 120_000],
    [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(at / 1000 + 90) }, 90_000],
    [{ 'ratelimit-remaining': '0', 'ratelimit-reset': String(at / 1000 + 5) }, 5_000],
    [{ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(at / 1000 + 90) }, undefined],
    [{}, undefined],
  ])('%j: %s ms', (headers, expected) => {
    expect(rateLimitWait({ headers }, at)).toBe(expected);
  });
});

describe("GitHub's and GitLab's answers are bounded as the service's are", () => {
  const service = { ...GITHUB, name: 'GitHub' } as CiService;

  it("an answer trickled a few bytes at a time is cut off at the whole answer's deadline", async () => {
    const trickle = await trickleServer('[{"id"');
    try {
      const api = new JsonApi(new URL(trickle.url), service, {}, 'pull request #7 of o/r', { timeoutMs: 1_000, deadlineMs: 700 });
      await expect(api.list(api.url('/repos/o/r/issues/7/comments'), 'read the comments of')).rejects.toThrow(
        `GitHub (${trickle.host}) did not send its whole answer within 0.7 s`,
      );
    } finally {
      await trickle.close();
    }
  });

  it('an answer announced larger than 64 MiB is refused before it is read', async () => {
    const huge = await hugeServer();
    try {
      const api = new JsonApi(new URL(huge.url), service, {}, 'pull request #7 of o/r');
      await expect(api.send('GET', api.url('/repos/o/r/issues/7/comments'))).rejects.toThrow(
        `GitHub (${huge.host}) answered more than 64 MiB, which no answer of its API is; nothing more was read`,
      );
    } finally {
      await huge.close();
    }
  });
});
