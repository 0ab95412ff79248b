import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ServiceClient } from '../../src/service/client.js';
import type { ClientOptions } from '../../src/service/http.js';
import { errorForStatus } from '../../src/service/errors.js';
import { SecretValues } from '../../src/secrets/values.js';
import { failure } from '../helpers/api-failure.js';
import { hugeServer, silentServer, trickleServer } from '../helpers/hostile-server.js';

const KEY = 'test-key-0123456789abcdef';
const OTHER = 'other-key-0123456789abcdef';
let emu: Emulator;
let clients: ServiceClient[] = [];
let logLines: string[] = [];

function client(options: Partial<ClientOptions> = {}): ServiceClient {
  const c = new ServiceClient({
    baseUrl: emu.url,
    apiKey: KEY,
    baseDelayMs: 5,
    maxDelayMs: 20,
    log: (line) => logLines.push(line),
    ...options,
  });
  clients.push(c);
  return c;
}

function seedMany(n: number, key = KEY, from = 0) {
  return emu.seed(
    key,
    Array.from({ length: n }, (_, i) => ({ domain: `s${from + i}.example.com`, privacy: 0, email: 0, exclude_bots: 1 })),
  );
}

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY, OTHER] });
  logLines = [];
});

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  await emu.close();
});

describe('listing reads every website', () => {
  it('pages of 100, id ascending, the rest fetched concurrently once the count is known', async () => {
    seedMany(250);
    const sites = await client().listWebsites();
    expect(sites).toHaveLength(250);
    expect(sites.map((s) => s.id)).toEqual([...sites.map((s) => s.id)].sort((a, b) => a - b));
    const lists = emu.stats.log.filter((r) => r.path.startsWith('/api/v1/websites?'));
    expect(lists).toHaveLength(3);
    for (const r of lists) expect(r.path).toMatch(/per_page=100&sort_by=id&sort=asc&page=\d/);
  });

  it('an account never sees another account’s websites', async () => {
    seedMany(3);
    seedMany(2, OTHER, 100);
    expect((await client().listWebsites()).map((s) => s.domain)).toEqual(['s0.example.com', 's1.example.com', 's2.example.com']);
  });

  it('reads a bare paginator as well as the resource envelope', async () => {
    seedMany(230);
    emu.faults.envelope = 'paginator';
    expect(await client().listWebsites()).toHaveLength(230);
  });

  it('copes with a service that ignores per_page', async () => {
    seedMany(95);
    emu.faults.ignorePerPage = true;
    expect(await client().listWebsites()).toHaveLength(95);
    expect(emu.stats.log.filter((r) => r.path.includes('page='))).toHaveLength(10);
  });

  it('websites added while listing are read too, each once', async () => {
    seedMany(250);
    let added = false;
    emu.faults.before = (req) => {
      if (!added && req.query.get('page') === '2') {
        added = true;
        seedMany(120, KEY, 1000);
      }
      return undefined;
    };
    const sites = await client({ listConcurrency: 1 }).listWebsites();
    expect(sites).toHaveLength(370);
    expect(new Set(sites.map((s) => s.id)).size).toBe(370);
  });

  it('never follows pagination links to another origin: the key stays home', async () => {
    let foreignRequests = 0;
    let foreignAuth: string | undefined;
    const foreign: Server = createServer((req, res) => {
      foreignRequests++;
      foreignAuth = req.headers.authorization;
      res.end('{}');
    });
    await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', r));
    try {
      emu.faults.linkOrigin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
      seedMany(210);
      emu.faults.envelope = 'paginator';
      expect(await client().listWebsites()).toHaveLength(210);
      emu.faults.envelope = 'resource';
      expect(await client().listWebsites()).toHaveLength(210);
      expect(foreignRequests).toBe(0);
      expect(foreignAuth).toBeUndefined();
    } finally {
      await new Promise((r) => foreign.close(r));
    }
  });

  it('reads records liberally: ints as strings, \\r\\n lists, a missing favorite is unreadable', async () => {
    emu.seed(KEY, [{ domain: 'a.example.com', privacy: 1, email: 1, exclude_bots: 0, exclude_ips: '10.0.0.1\n10.0.0.2' }]);
    emu.faults.stringInts = true;
    emu.faults.crlfLists = true;
    emu.faults.omitFields = ['favorite'];
    const [site] = await client().listWebsites();
    expect(site).toEqual({
      id: site!.id,
      domain: 'a.example.com',
      privacy: 1,
      email: 1,
      exclude_bots: 0,
      exclude_ips: ['10.0.0.1', '10.0.0.2'],
      password: false,
    });
  });

  it('the full profile returns exclude_params; deployed does not (write-only)', async () => {
    emu.seed(KEY, [{ domain: 'a.example.com', exclude_params: 'utm_source' }]);
    const [deployed] = await client().listWebsites();
    expect(deployed!.exclude_params).toBeUndefined();
    await emu.close();
    emu = await startEmulator({ keys: [KEY], profile: 'full' });
    emu.seed(KEY, [{ domain: 'a.example.com', exclude_params: 'utm_source' }]);
    const [full] = await client().listWebsites();
    expect(full!.exclude_params).toEqual(['utm_source']);
  });
});

describe('a paginator that cannot be right is the service\'s error, in words', () => {
  const site = (id: number) => ({ id, domain: `h${id}.example.com`, privacy: 0, email: 0, exclude_bots: 1, password: false });
  const page = (n: number, ids: number[], paging: Record<string, unknown>) => ({
    status: 200,
    body: { data: ids.map(site), links: {}, meta: { current_page: n, ...paging }, status: 200 },
  });
  const listing = () => emu.stats.log.filter((r) => r.path.startsWith('/api/v1/websites?')).length;

  it('a last_page of 50,000,000 beside a total of 2: one request, no page range built, an error saying both', async () => {
    emu.faults.before = () => ({ status: 200, body: { data: [site(1), site(2)], last_page: 50_000_000, total: 2 } });
    const error = await failure(client().listWebsites());
    expect(error.kind).toBe('protocol');
    expect(error.message).toBe(
      "list websites: the service's pagination cannot be right (page 1 says last_page 50000000, but total 2 at 2 a page (the websites it holds; it says no per_page) makes 1); stopped listing",
    );
    expect(listing()).toBe(1);
  });

  it('a last_page that disagrees with total / per_page (a string, as the product sends it)', async () => {
    emu.faults.before = (req) => (req.query.get('page') === '1' ? page(1, [1, 2], { last_page: 7, per_page: '100', total: 2 }) : undefined);
    const error = await failure(client().listWebsites());
    expect(error.message).toBe("list websites: the service's pagination cannot be right (page 1 says last_page 7, but total 2 at 100 a page makes 1); stopped listing");
    expect(listing()).toBe(1);
  });

  it('a last_page of 50,000,000 with no total: more than any account, said before a second request', async () => {
    emu.faults.before = () => page(1, [1, 2], { last_page: 50_000_000, per_page: '100' });
    const error = await failure(client().listWebsites());
    expect(error.message).toBe(
      "list websites: the service's pagination cannot be right (page 1 says last_page 50000000 at 100 a page: more websites than any account holds (sitesync reads at most 1000000)); stopped listing",
    );
    expect(listing()).toBe(1);
  });

  it('a huge last_page with no total, and pages that hold nothing: stopped at the first empty page', async () => {
    emu.faults.before = (req) => {
      const n = Number(req.query.get('page'));
      return page(n, n === 1 ? [1, 2] : [], { last_page: 9_000, per_page: 100 });
    };
    const error = await failure(client({ listConcurrency: 3 }).listWebsites());
    expect(error.message).toMatch(/^list websites: the service's pagination cannot be right \(page [234] says last_page 9000, but holds no website\); stopped listing$/);
    expect(listing()).toBeLessThanOrEqual(4);
  });

  it('a page count that jumps between pages beyond websites added while listing', async () => {
    emu.faults.before = (req) => {
      const n = Number(req.query.get('page'));
      const ids = Array.from({ length: 100 }, (_, i) => (n - 1) * 100 + i + 1);
      return n === 1 ? page(1, ids, { last_page: 3, per_page: '100', total: 250 }) : page(n, ids, { last_page: 5000, per_page: '100', total: 500_000 });
    };
    const error = await failure(client({ listConcurrency: 2 }).listWebsites());
    expect(error.message).toBe(
      "list websites: the service's pagination cannot be right (page 2 says the account holds 500000 websites where page 1 said 250: more than could be added while sitesync lists them); stopped listing",
    );
    expect(listing()).toBeLessThanOrEqual(3);
  });

  it('a page holding more websites than its per_page (a million on page 2, under the size cap) is refused before one is read', async () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => `{"id":${i + 1000},"domain":"a"}`).join(',');
    emu.faults.before = (req) => {
      const n = Number(req.query.get('page'));
      return n === 1
        ? page(1, Array.from({ length: 100 }, (_, i) => i + 1), { last_page: 2, per_page: '100', total: 200 })
        : { status: 200, body: `{"data":[${many}],"meta":{"current_page":2,"last_page":2,"per_page":"100","total":200}}` };
    };
    const error = await failure(client().listWebsites());
    expect(error.message).toBe("list websites: the service's pagination cannot be right (page 2 says per_page 100, but holds 1000000 websites); stopped listing");
  });

  it('a bare paginator without a page count that keeps saying there is a next page, with the same websites', async () => {
    emu.faults.before = (req) => ({
      status: 200,
      body: { current_page: Number(req.query.get('page')), data: [site(1), site(2)], next_page_url: `${emu.url}/api/v1/websites?page=99` },
    });
    const error = await failure(client().listWebsites());
    expect(error.message).toBe(
      "list websites: the service's pagination cannot be right (page 2 holds only websites of earlier pages, yet says there is a next page); stopped listing",
    );
    expect(listing()).toBe(2);
  });

  it('a bare paginator without a page count still reads every page until it says there is none', async () => {
    seedMany(230);
    emu.faults.before = (req) => {
      const n = Number(req.query.get('page'));
      const ids = Array.from({ length: n < 3 ? 100 : 30 }, (_, i) => (n - 1) * 100 + i + 1);
      return { status: 200, body: { current_page: n, data: ids.map(site), next_page_url: n < 3 ? `${emu.url}/api/v1/websites?page=${n + 1}` : null } };
    };
    expect(await client().listWebsites()).toHaveLength(230);
    expect(listing()).toBe(3);
  });

  it('a listing answered with another page than asked is the service\'s error (as a statistic\'s read says it), not a listing that misses a page', async () => {
    // Page 2 answers page 1 again, saying so.
    emu.faults.before = (req) => (req.path === '/api/v1/websites' ? page(1, Array.from({ length: 100 }, (_, i) => i + 1), { last_page: 2, per_page: '100', total: 200 }) : undefined);
    const error = await failure(client().listWebsites());
    expect(error.message).toBe("list websites: the service's pagination cannot be right (asked for page 2, the service answered page 1); stopped listing");
  });
});

describe('writes', () => {
  it('create, update, delete round trip as form posts', async () => {
    const c = client();
    const { website, recovered } = await c.createWebsite('new.example.com', { privacy: '1', email: '1', exclude_bots: '0', exclude_ips: '10.0.0.1' });
    expect(recovered).toBe(false);
    expect(website).toMatchObject({ domain: 'new.example.com', privacy: 1, email: 1, exclude_bots: 0 });
    await c.updateWebsite(website.id, 'new.example.com', { favorite: '1', privacy: '0' });
    expect(emu.websites(KEY)[0]).toMatchObject({ favorite: true, privacy: 0 });
    expect(await c.deleteWebsite(website.id, 'new.example.com')).toBe(true);
    expect(await c.deleteWebsite(website.id, 'new.example.com')).toBe(false);
    expect(emu.websites(KEY)).toEqual([]);
  });

  it('a store whose answer is lost is looked up, not stored twice (even where duplicates are allowed)', async () => {
    emu.faults.allowDuplicateDomains = true;
    let fired = 0;
    emu.faults.afterCommit = (req) => (req.method === 'POST' && fired++ === 0 ? { status: 500, body: { message: 'Server Error' } } : undefined);
    const { website, recovered } = await client().createWebsite('lost.example.com', { privacy: '0' });
    expect(recovered).toBe(true);
    expect(emu.websites(KEY).filter((w) => w.domain === 'lost.example.com')).toHaveLength(1);
    expect(website.domain).toBe('lost.example.com');
  });

  it('a store whose connection drops after the commit is not stored twice', async () => {
    emu.faults.allowDuplicateDomains = true;
    let fired = 0;
    emu.faults.afterCommit = (req) => (req.method === 'POST' && fired++ === 0 ? 'reset' : undefined);
    const { recovered } = await client().createWebsite('reset.example.com', {});
    expect(recovered).toBe(true);
    expect(emu.websites(KEY).filter((w) => w.domain === 'reset.example.com')).toHaveLength(1);
  });

  it('a store that failed before committing is stored again once the lookup finds nothing', async () => {
    let fired = 0;
    emu.faults.before = (req) => (req.method === 'POST' && fired++ === 0 ? { status: 503, body: { message: 'busy' } } : undefined);
    const { recovered } = await client().createWebsite('retry.example.com', {});
    expect(recovered).toBe(false);
    expect(emu.websites(KEY).map((w) => w.domain)).toEqual(['retry.example.com']);
    expect(emu.stats.log.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([503, 201]);
  });

  it('422 carries each field’s message from the service', async () => {
    emu.seed(OTHER, [{ domain: 'taken.example.com' }]);
    const c = client();
    const taken = await failure(c.createWebsite('taken.example.com', {}));
    expect(taken.kind).toBe('validation');
    expect(taken.message).toBe(
      'create taken.example.com: domain: The domain has already been taken. (another account of this installation may hold it)',
    );
    expect(taken.fieldErrors).toEqual({ domain: ['The domain has already been taken.'] });
    expect(taken.refused).toBe(true);
    const pw = await failure(c.createWebsite('pw.example.com', { privacy: '2' }));
    expect(pw.message).toBe('create pw.example.com: password: The password field is required.');
    expect(pw.fieldErrors.password).toBeDefined();
  });

  it('an update of a website that is gone says so instead of retrying a 500 for long', async () => {
    const error = await failure(client().updateWebsite(99999, 'gone.example.com', { privacy: '1' }));
    expect(error.kind).toBe('not-found');
    expect(error.message).toBe('update gone.example.com: the website no longer exists at the service (id 99999)');
    expect(emu.stats.log.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('a delete whose answer was lost and finds it gone on retry counts as deleted', async () => {
    const [site] = seedMany(1);
    let fired = 0;
    emu.faults.afterCommit = (req) => (req.method === 'DELETE' && fired++ === 0 ? 'reset' : undefined);
    expect(await client().deleteWebsite(site!.id, site!.domain)).toBe(true);
  });
});

describe('answers of the product’s own code (deployed)', () => {
  it('an update answer with the form echoed as strings reads as the typed website', async () => {
    const [w] = seedMany(1);
    const updated = await client().updateWebsite(w!.id, w!.domain, { privacy: '1', email: '1', exclude_bots: '0', favorite: '1' });
    expect(updated).toMatchObject({ id: w!.id, privacy: 1, email: 1, exclude_bots: 0, favorite: true });
  });

  it('a string per_page and a page past the end answering 200 with no data still read every website once', async () => {
    seedMany(150);
    // Websites vanished after the first page was read: page 2 is past the end now.
    emu.faults.before = (req) =>
      req.method === 'GET' && req.query.get('page') === '2'
        ? { status: 200, body: { data: [], links: {}, meta: { current_page: 2, last_page: 1, per_page: '100', total: 100 }, status: 200 } }
        : undefined;
    const sites = await client().listWebsites();
    expect(sites.map((w) => w.id)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('a 405 is a wrong route, said with what was requested, and not retried', async () => {
    const [w] = seedMany(1);
    emu.faults.before = (req) =>
      req.method === 'PATCH' ? { status: 405, body: { message: 'The PATCH method is not supported for this route. Supported methods: GET, HEAD.' } } : undefined;
    const error = await failure(client().updateWebsite(w!.id, w!.domain, { email: '1' }));
    expect(error.message).toContain(`update ${w!.domain}: PATCH ${emu.url}/api/v1/websites/${w!.id} answered 405`);
    expect(error.refused).toBe(true);
    expect(emu.stats.log.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('a user_id refusal (403 "This action is unauthorized.") is not mistaken for a plan without API access', () => {
    expect(errorForStatus(403, { message: 'This action is unauthorized.' }, 'update a.com').message).toBe(
      'update a.com: the service refused it (403: This action is unauthorized.)',
    );
  });
});

describe('failures become short typed errors', () => {
  it('an answer larger than any the service gives is refused as such, as it comes or by its declared length', async () => {
    seedMany(300);
    const error = await failure(client({ maxAnswerBytes: 4096 }).listWebsites());
    expect(error.kind).toBe('protocol');
    expect(error.message).toBe("list websites (page 1): the service answered more than 4096 bytes, which no answer of the service is; nothing more was read (is the base URL the service's address?)");
    // A server that announces 100 MiB is refused before its body is read.
    const huge = await hugeServer();
    try {
      const c = new ServiceClient({ baseUrl: huge.url, apiKey: 'k-0123456789', attempts: 1 });
      const big = await failure(c.getAccount());
      expect(big.message).toBe("read the account: the service answered more than 64 MiB, which no answer of the service is; nothing more was read (is the base URL the service's address?)");
      await c.close();
    } finally {
      await huge.close();
    }
  });

  it("a service that trickles its answer a few bytes at a time is cut off at the whole answer's deadline", async () => {
    const trickle = await trickleServer();
    try {
      // Chunks come every 150 ms, within the 1 s allowed between them: only the deadline ends it.
      const c = client({ baseUrl: trickle.url, readTimeoutMs: 1_000, deadlineMs: 700, attempts: 2, baseDelayMs: 1 });
      const error = await failure(c.getAccount());
      expect(error.kind).toBe('timeout');
      expect(error.message).toBe(`read the account: ${trickle.host} did not send its whole answer within 0.7 s`);
      // Sent again once (a read is safe to repeat), each cut off at its deadline.
      expect(trickle.requests).toHaveLength(2);
    } finally {
      await trickle.close();
    }
  });

  it('a service that never answers is cut off at the deadline too, and --verbose says so', async () => {
    const silent = await silentServer();
    try {
      const error = await failure(client({ baseUrl: silent.url, readTimeoutMs: 5_000, deadlineMs: 300, attempts: 1 }).getAccount());
      expect(error.message).toBe(`read the account: ${silent.host} did not send its whole answer within 0.3 s`);
      expect(logLines).toEqual([expect.stringMatching(/^GET \/api\/v1\/account failed: The operation was aborted due to timeout after \d+ms$/)]);
    } finally {
      await silent.close();
    }
  });

  it('5xx bursts are retried with backoff, then succeed', async () => {
    seedMany(1);
    let n = 0;
    emu.faults.before = (req) => (req.method === 'GET' && n++ < 3 ? { status: 502 } : undefined);
    const c = client();
    expect(await c.listWebsites()).toHaveLength(1);
    expect(c.stats.retries).toBe(3);
  });

  it('a service that keeps failing is an error after bounded attempts', async () => {
    emu.faults.before = () => ({ status: 500, body: { message: 'Server Error' } });
    const c = client({ attempts: 3, baseDelayMs: 1, maxDelayMs: 2 });
    const error = await failure(c.listWebsites());
    expect(error.kind).toBe('server');
    expect(error.message).toBe('list websites (page 1): the service failed (500: Server Error)');
    expect(emu.stats.requests).toBe(3);
  });

  it('a slow service times out, with a message and no stack', async () => {
    emu.faults.before = () => ({ delayMs: 1500 });
    const error = await failure(client({ readTimeoutMs: 200, attempts: 2, baseDelayMs: 1 }).getAccount());
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`read the account: ${new URL(emu.url).host} did not answer in time`);
  });

  it('a redirect is never followed: it means a wrong base URL or key', async () => {
    emu.faults.before = () => ({ status: 302, headers: { location: `${emu.url}/login` } });
    const error = await failure(client().getAccount());
    expect(error.kind).toBe('auth');
    expect(error.message).toBe('the service redirected to /login instead of answering (a login page): the base URL or the API key is wrong');
    expect(emu.stats.log.map((r) => r.path)).toEqual(['/api/v1/account']);
  });

  it("a redirect's Location that echoes a password (a write's form, however it is spelt there) never reaches the message", async () => {
    const password = 'p@ss word:99';
    for (const location of [`/login/${password}`, `/login/${encodeURIComponent(password)}`, '/login/p@ss%20word:99', `${emu.url}/login?pw=${password}`]) {
      emu.faults.before = () => ({ status: 302, headers: { location } });
      const secrets = new SecretValues();
      secrets.add(password);
      const error = await failure(client({ secrets }).getAccount());
      const shown = location.includes('?') ? '/login' : '/login/(redacted)';
      expect(error.message).toBe(`the service redirected to ${shown} instead of answering (a login page): the base URL or the API key is wrong`);
      expect(error.message).not.toMatch(/p@ss|word:99|p%40ss/);
    }
  });

  it("a Location that is not all valid percent-encoding is still decoded before it is cleaned: a password spelt oddly there stays hidden", async () => {
    const secrets = new SecretValues();
    secrets.add('p@ss word:99');
    emu.faults.before = () => ({ status: 302, headers: { location: '/login/p%40ss%20w%6Frd:99/%zz' } });
    const error = await failure(client({ secrets }).getAccount());
    expect(error.message).toBe('the service redirected to /login/(redacted)/%zz instead of answering (a login page): the base URL or the API key is wrong');
  });

  it('401 says the key is wrong and never echoes it', async () => {
    const wrong = 'wrong-key-SECRET-0000';
    const error = await failure(client({ apiKey: wrong }).getAccount());
    expect(error.kind).toBe('auth');
    expect(error.message).toContain('did not accept the API key (401)');
    expect(JSON.stringify({ m: error.message, d: error.details, s: error.stack })).not.toContain(wrong);
  });

  it('403 says the plan has no API access', async () => {
    await emu.close();
    emu = await startEmulator({ keys: [{ key: KEY, apiAccess: false }] });
    const error = await failure(client().getAccount());
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain("the account's plan has no API access (403");
  });

  it('a refused connection says where it tried', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const error = await failure(client({ baseUrl: `http://127.0.0.1:${port}`, attempts: 1 }).getAccount());
    expect(error.kind).toBe('network');
    expect(error.message).toBe(`read the account: cannot connect to 127.0.0.1:${port} (connection refused): is the base URL right and the service up?`);
  });

  it('--verbose lines name method, path, status and time, never the key', async () => {
    seedMany(1);
    await client().listWebsites();
    expect(logLines[0]).toMatch(/^GET \/api\/v1\/websites\?per_page=100&sort_by=id&sort=asc&page=1 200 \d+ms$/);
    expect(logLines.join('\n')).not.toContain(KEY);
  });
});

describe('rate limits', () => {
  beforeAll(() => undefined);
  afterAll(() => undefined);

  it('429 waits as Retry-After says; a throttle window is paced, not stormed', async () => {
    await emu.close();
    emu = await startEmulator({ keys: [KEY], rateLimit: { limit: 10, windowMs: 1000 } });
    const [site] = seedMany(1);
    const c = client();
    const started = Date.now();
    await Promise.all(Array.from({ length: 35 }, () => c.lookupWebsite(site!.id)));
    const elapsed = Date.now() - started;
    // 35 requests at 10 a second: three full windows must pass.
    expect(elapsed).toBeGreaterThanOrEqual(3000);
    expect(emu.stats.byStatus[429] ?? 0).toBeLessThanOrEqual(2);
    expect(emu.stats.byStatus[200]).toBe(35);
  });

  it('429 bursts from a service without throttle headers are retried after Retry-After', async () => {
    const [site] = seedMany(1);
    let n = 0;
    emu.faults.before = () => (n++ < 2 ? { status: 429, body: { message: 'Too Many Attempts.' }, headers: { 'retry-after': '1' } } : undefined);
    const started = Date.now();
    await client().lookupWebsite(site!.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });
});
