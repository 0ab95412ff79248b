/**
 * No history lost: `sitesync archive` writes a website's whole history (every name, every page
 * of rows) to files, and apply archives a website before it deletes it — a delete whose archive
 * cannot be written is not sent, the others go on, and an interrupted apply sends no delete for
 * an unwritten archive. No archive holds a password or a key.
 */
import { spawn } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { spreadTraffic, startEmulator } from '../../src/emulator/index.js';
import { ARCHIVE_NAMES } from '../../src/archive/file.js';
import { bin, cleanEnv, runCli } from '../helpers/cli.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const PASSWORD = 'correct-horse-battery-staple-42';
const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

/** Every file of an archive folder, by name. */
async function filesIn(dir: string): Promise<Record<string, string>> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return Object.fromEntries(await Promise.all(names.sort().map(async (n) => [n, await readFile(join(dir, n), 'utf8')] as const)));
}

/** The stats requests the emulator answered, by name. */
function statsNames(): string[] {
  return s.emu.stats.log.filter((r) => r.path.startsWith('/api/v1/stats/')).map((r) => new URLSearchParams(r.path.split('?')[1]).get('name')!);
}

/** Nothing secret in any archive: neither the key nor a website's password. */
function expectNoSecrets(files: Record<string, string>): void {
  expect(Object.keys(files).length).toBeGreaterThan(0);
  for (const [name, text] of Object.entries(files)) {
    expect(text, name).not.toContain(KEY);
    expect(text, name).not.toContain(PASSWORD);
  }
}

describe('sitesync archive', () => {
  it('writes the whole history: every name, every page of rows, totals that agree with the daily series, at the floor of requests', async () => {
    s = await scenario();
    // 500 days and about 500 pages: several pages of rows for the days, the pages and the landing pages.
    const traffic = spreadTraffic(250_000, 500);
    s.emu.seed(KEY, [{ domain: 'gone.example.com', traffic, privacy: 2, password: PASSWORD }, { domain: 'other.example.com', traffic: { [ago(3)]: 5 } }]);
    s.emu.resetStats();
    const r = await s.cli(['archive', 'gone.example.com', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    const base = `gone.example.com-1-${day}`;
    expect(r.stdout).toContain(`✓ gone.example.com (id 1): 250,000 pageviews, 500 days from ${ago(499)}, 32 requests → sitesync-archive/${base}.json (and .csv)`);
    expect(r.stdout).toContain('Archived 1 website.');
    const files = await filesIn(join(s.dir, 'sitesync-archive'));
    expect(Object.keys(files)).toEqual([`${base}.csv`, `${base}.json`]);
    expectNoSecrets(files);
    const archive = JSON.parse(files[`${base}.json`]!);
    expect(archive.website).toEqual({ id: 1, domain: 'gone.example.com', settings: { privacy: 2, email: 0, exclude_bots: 1, exclude_ips: [], favorite: false, password_set: true } });
    expect(archive.totals).toEqual({ pageviews: 250_000, visitors: Math.ceil(250_000 / 3) });
    expect(archive.checks.agree).toBe(true);
    expect(archive.daily).toHaveLength(500);
    expect(archive.daily.reduce((n: number, d: { pageviews: number }) => n + d.pageviews, 0)).toBe(archive.totals.pageviews);
    expect(archive.range).toEqual({ from: '1970-01-01', to: '9999-12-31' });
    // Every name, each complete: pages share the pageviews, the others the visitors.
    const sum = (name: string) => archive.dimensions[name].reduce((n: number, row: { count: number }) => n + row.count, 0);
    expect(Object.keys(archive.dimensions).sort()).toEqual(ARCHIVE_NAMES.filter((n) => !/^(pageviews|visitors)/.test(n)).sort());
    expect(archive.dimensions.page).toHaveLength(500);
    expect(sum('page')).toBe(250_000);
    for (const name of ['landing_page', 'browser', 'city', 'country', 'continent', 'language']) expect(sum(name), name).toBe(archive.totals.visitors);
    expect(files[`${base}.csv`]!.split('\n')).toHaveLength(502);
    // The floor: Σ ⌈rows / 100⌉ over the 17 names (a name without rows still costs its one request).
    const rowsOf = (name: string) => (name === 'pageviews' || name === 'visitors' ? 500 : name.endsWith('_hour') ? 24 : archive.dimensions[name].length);
    const floor = ARCHIVE_NAMES.reduce((n, name) => n + Math.max(1, Math.ceil(rowsOf(name) / 100)), 0);
    expect(floor).toBe(32);
    expect(statsNames()).toHaveLength(floor);
    expect(new Set(statsNames())).toEqual(new Set(ARCHIVE_NAMES));
    expect(r.stderr).toContain(`${floor} archive pages`);
    // Nor in what the command says, --verbose included.
    expect(r.stdout + r.stderr).not.toContain(KEY);
    // Nothing was written to the service.
    expect(writes(s.emu)).toEqual([]);
  });

  it('a pattern names several websites, into -o DIR; one that matches nothing is an error before anything is archived', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.campaign.example' }, { domain: 'b.campaign.example', traffic: { [ago(1)]: 7 } }, { domain: 'keep.example' }]);
    const r = await s.cli(['archive', '*.campaign.example', '-o', 'out']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Archived 2 websites.');
    expect(Object.keys(await filesIn(join(s.dir, 'out'))).filter((n) => n.endsWith('.json'))).toHaveLength(2);
    const none = await s.cli(['archive', 'typo.example']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('--target "typo.example" matches no website in the account');
    expect((await s.cli(['archive'])).stderr).toContain('name the websites to archive');
  });

  it('a service that pages in its own order (by count, ties split anew on each page) skips values: no archive is written as if whole', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'gone.example.com', traffic: { [ago(3)]: 500 } }]);
    // 150 pages of one hit each: sorted by count, every order of them is right, and each request picks its own.
    const values = Array.from({ length: 150 }, (_, i) => `/p${String(i).padStart(3, '0')}`);
    s.emu.faults.before = (req) => {
      if (!req.path.startsWith('/api/v1/stats/') || req.query.get('name') !== 'page') return undefined;
      const n = Number(req.query.get('page'));
      const order = n === 1 ? values : [...values].reverse();
      return { status: 200, body: { current_page: n, data: order.slice((n - 1) * 100, n * 100).map((value) => ({ value, count: 1 })), last_page: 2, per_page: '100', total: 150 } };
    };
    const r = await s.cli(['archive', 'gone.example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('read the page statistics of gone.example.com: the service said it holds 150 values, and its pages held 100 (are they sorted by value, as asked?)');
    expect(await filesIn(join(s.dir, 'sitesync-archive'))).toEqual({});
  });

  it('a service whose pages of 100 KB values never end is refused once the history passes what one archive holds, not read until memory runs out', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'gone.example.com', traffic: { [ago(3)]: 500 } }]);
    const big = 'x'.repeat(100_000);
    s.emu.faults.before = (req) => {
      if (!req.path.startsWith('/api/v1/stats/') || req.query.get('name') !== 'referrer') return undefined;
      const n = Number(req.query.get('page'));
      const data = Array.from({ length: 100 }, (_, i) => ({ value: `${String(n).padStart(5, '0')}-${String(i).padStart(3, '0')}-${big}`, count: 1 }));
      return { status: 200, body: { current_page: n, data, last_page: 5_000, per_page: '100', total: 500_000 } };
    };
    // A small heap: reading on would end in "heap out of memory" within a few dozen pages.
    const r = await runCli(['archive', 'gone.example.com'], { cwd: s.dir, env: { SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY, NODE_OPTIONS: '--max-old-space-size=320' } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("✗ gone.example.com: read the referrer statistics of gone.example.com: the history's values hold more than 64 Mi characters in all, more than one archive holds");
    expect(s.emu.stats.log.filter((l) => l.path.includes('name=referrer')).length).toBeLessThan(12);
    expect(await filesIn(join(s.dir, 'sitesync-archive'))).toEqual({});
  });
});

const FILE = `version: 1
prune: true
archive: archives
safety: { max_delete_percent: 100 }
retire: ["busy.example.com"]
websites:
  - domain: keep.example.com
    email: true
`;

/** keep (listed), busy (recent traffic, retired), old (traffic long ago), empty (none ever). */
async function setUp(file = FILE) {
  s = await scenario();
  s.emu.seed(KEY, [
    { domain: 'keep.example.com' },
    { domain: 'busy.example.com', traffic: spreadTraffic(30_000, 300), privacy: 2, password: PASSWORD },
    { domain: 'old.example.com', traffic: { [ago(400)]: 12_000, [ago(200)]: 340 } },
    { domain: 'empty.example.com' },
  ]);
  await s.write(file);
  s.emu.resetStats();
}

describe('apply archives before it deletes', () => {
  it('the plan says which deletes are archived first, and where (text, markdown, JSON)', async () => {
    await setUp();
    const text = await s.cli(['plan']);
    expect(text.stdout).toMatch(/- delete busy\.example\.com \(id 2\)\n {4}! destroys 30,000 pageviews recorded, [\d,]+ in the last 30 days \(retired: deleted with its history\)\n {4}last 30 days [▁-█]{30} \(most \d+ a day\)\n {4}archived first to archives\/ \(its whole history, then the delete\)/);
    expect(text.stdout).toContain('- delete old.example.com (id 3)\n    ! destroys 12,340 pageviews recorded, 0 in the last 30 days\n    archived first to archives/');
    // No recorded traffic: nothing to archive.
    expect(text.stdout).toContain('- delete empty.example.com (id 4)\n    ! no pageviews recorded: its statistics are empty\n\n');
    const md = (await s.cli(['plan', '--format', 'markdown'])).stdout;
    expect(md).toContain('The histories of 2 of them are archived first, to `archives`.');
    expect(md).toMatch(/\| 🔴 delete \| `busy\.example\.com` \| deleted with 30,000 pageviews \([\d,]+ in the last 30 days\) [▁-█]{30} \(retired\); archived first to archives\/ \(its whole history, then the delete\) \|/);
    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    const archiveOf = (domain: string) => json.changes.find((c: { domain: string }) => c.domain === domain).archive;
    expect([archiveOf('busy.example.com'), archiveOf('old.example.com'), archiveOf('empty.example.com')]).toEqual(['archives', 'archives', undefined]);
    expect(json.changes.find((c: { domain: string }) => c.domain === 'busy.example.com').traffic.daily_30d).toHaveLength(30);
  });

  it('each archive is written and checked before its delete is sent; the delete takes the history with it; a re-run plans clean', async () => {
    await setUp();
    const r = await s.cli(['apply', '--auto-approve', '--report', 'report.md']);
    expect(r.code, r.stderr).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    expect(r.stdout).toContain(`✓ delete busy.example.com (id 2) (archived first: archives/busy.example.com-2-${day}.json)`);
    expect(r.stdout).toContain('Applied: 0 created, 1 updated, 3 deleted, 0 failed.');
    const files = await filesIn(join(s.dir, 'archives'));
    expect(Object.keys(files)).toEqual([`busy.example.com-2-${day}.csv`, `busy.example.com-2-${day}.json`, `old.example.com-3-${day}.csv`, `old.example.com-3-${day}.json`]);
    expectNoSecrets(files);
    expect(JSON.parse(files[`old.example.com-3-${day}.json`]!).daily).toEqual([
      { date: ago(400), pageviews: 12_000, visitors: 4_000 },
      { date: ago(200), pageviews: 340, visitors: 114 },
    ]);
    // Every archive read of a website came before its delete.
    const log = s.emu.stats.log.map((l) => `${l.method} ${l.path.split('?')[0]}`);
    for (const id of [2, 3]) expect(log.lastIndexOf(`GET /api/v1/stats/${id}`)).toBeLessThan(log.indexOf(`DELETE /api/v1/websites/${id}`));
    expect(log).toContain('DELETE /api/v1/websites/4');
    expect(s.emu.traffic(KEY, 'busy.example.com')).toBeUndefined();
    const report = await readFile(join(s.dir, 'report.md'), 'utf8');
    expect(report).toContain(`Archived before their deletes:\n- \`busy.example.com\` (id 2): \`archives/busy.example.com-2-${day}.json\` and its \`.csv\``);
    expect((await s.cli(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('a website with events and no pageviews (an event hit records no pageview) has a history: the plan says so, and apply archives it first', async () => {
    await setUp();
    // The product's tracker writes an event hit's `event` row alone; the emulator derives every name from pageviews.
    // Recorded 100 days ago: a range from after that holds none (events in the active_days window are activity).
    s.emu.faults.before = (req) =>
      req.path === '/api/v1/stats/4' && req.query.get('name') === 'event' && req.query.get('from')! <= ago(100)
        ? { status: 200, body: { current_page: 1, data: [{ value: 'Signup:free:', count: 250 }, { value: 'Download:app:', count: 50 }], last_page: 1, per_page: '100', total: 2 } }
        : undefined;
    const text = await s.cli(['plan']);
    expect(text.stdout).toContain('- delete empty.example.com (id 4)\n    ! destroys 300 events recorded (no pageviews)\n    archived first to archives/');
    expect((await s.cli(['plan', '--format', 'markdown'])).stdout).toContain('| 🔴 delete | `empty.example.com` | deleted with 300 events (no pageviews); archived first to archives/');
    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    expect(json.changes.find((c: { domain: string }) => c.domain === 'empty.example.com')).toMatchObject({ archive: 'archives', traffic: { pageviews: 0, events: 300 } });
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    expect(r.stdout).toContain(`✓ delete empty.example.com (id 4) (archived first: archives/empty.example.com-4-${day}.json)`);
    const archive = JSON.parse((await filesIn(join(s.dir, 'archives')))[`empty.example.com-4-${day}.json`]!);
    expect(archive.dimensions.event).toEqual([{ value: 'Download:app:', count: 50 }, { value: 'Signup:free:', count: 250 }]);
  });

  it('the key or a password that the public\'s requests (or the service) put in a statistic\'s values is in no archive: "(redacted)", said in its notes', async () => {
    await setUp(`${FILE}  - domain: lab.example.com\n    privacy: password\n    password: \${PW}\n`);
    s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 2, password: PASSWORD }]);
    s.emu.faults.before = (req) => {
      if (req.path !== '/api/v1/stats/3' || !['page', 'referrer'].includes(req.query.get('name')!)) return undefined;
      const data =
        req.query.get('name') === 'page'
          ? [{ value: `/login?key=${KEY}`, count: 3 }, { value: `/login?key=${encodeURIComponent(PASSWORD)}`, count: 2 }, { value: '/pricing', count: 40 }]
          : [{ value: `${PASSWORD}.example.net`, count: 1 }];
      return { status: 200, body: { current_page: 1, data, last_page: 1, per_page: '100', total: data.length } };
    };
    const r = await s.cli(['apply', '--auto-approve'], { env: { PW: PASSWORD } });
    expect(r.code, r.stderr).toBe(0);
    const files = await filesIn(join(s.dir, 'archives'));
    expectNoSecrets(files);
    const day = new Date().toISOString().slice(0, 10);
    const archive = JSON.parse(files[`old.example.com-3-${day}.json`]!);
    // Two values that became one are one row, their counts added.
    expect(archive.dimensions.page).toEqual([{ value: '/login?key=(redacted)', count: 5 }, { value: '/pricing', count: 40 }]);
    expect(archive.dimensions.referrer).toEqual([{ value: '(redacted).example.net', count: 1 }]);
    expect(archive.notes).toContain('3 values held the API key or a website password sitesync was given: written with "(redacted)" in its place (values that became one are one row, their counts added)');
  });

  it('a value the service cut at 255 characters inside the key or a password (its end the start of one, 8 characters or more) is cleaned too', async () => {
    await setUp(`${FILE}  - domain: lab.example.com\n    privacy: password\n    password: \${PW}\n`);
    s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 2, password: PASSWORD }]);
    const cut = (head: string, secret: string, keep: number) => `${head.padEnd(255 - keep, 'x')}${secret.slice(0, keep)}`;
    s.emu.faults.before = (req) => {
      if (req.path !== '/api/v1/stats/3' || req.query.get('name') !== 'page') return undefined;
      const data = [
        { value: cut('/login?key=', KEY, KEY.length - 4), count: 3 },
        { value: cut('/door?pw=', PASSWORD, 8), count: 2 },
        { value: cut('/short?pw=', PASSWORD, 7), count: 1 },
      ];
      return { status: 200, body: { current_page: 1, data, last_page: 1, per_page: '100', total: data.length } };
    };
    const r = await s.cli(['apply', '--auto-approve'], { env: { PW: PASSWORD } });
    expect(r.code, r.stderr).toBe(0);
    const files = await filesIn(join(s.dir, 'archives'));
    const day = new Date().toISOString().slice(0, 10);
    const text = files[`old.example.com-3-${day}.json`]!;
    expect(text).not.toContain(KEY.slice(0, 8));
    expect(text).not.toContain(PASSWORD.slice(0, 8));
    const pages = JSON.parse(text).dimensions.page.map((row: { value: string }) => row.value);
    expect(pages).toContain(`${'/login?key='.padEnd(255 - (KEY.length - 4), 'x')}(redacted)`);
    expect(pages).toContain(`${'/door?pw='.padEnd(247, 'x')}(redacted)`);
    // Seven characters are too few to tell from an ordinary value: kept as it is.
    expect(pages).toContain(cut('/short?pw=', PASSWORD, 7));
  });

  it('apply --archive DIR wins over the file, and a saved plan\'s apply archives the same way', async () => {
    await setUp(FILE.replace('archive: archives\n', ''));
    expect((await s.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    const r = await s.cli(['apply', 'plan.json', '--archive', 'kept']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('archived first to kept/');
    expect(Object.keys(await filesIn(join(s.dir, 'kept')))).toHaveLength(4);
    expectNoSecrets(await filesIn(join(s.dir, 'kept')));
  });

  it('an archive that cannot be completed stops its own delete only: listed as failed with the reason, exit 1; the rest goes on, and a re-run converges', async () => {
    await setUp();
    // The stats API fails for one name of one website, every time: an answer that is no statistics.
    const broken = (req: { path: string; query: URLSearchParams }) => (req.path === '/api/v1/stats/3' && req.query.get('name') === 'city' ? { status: 200, body: { data: [{ city: 'Paris' }] } } : undefined);
    s.emu.faults.before = broken;
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ delete old.example.com (id 3): not deleted: its history could not be archived: read the city statistics of old.example.com: the service sent statistics that are not rows of a value and a count');
    expect(r.stdout).toContain('Applied: 0 created, 1 updated, 2 deleted, 1 failed.');
    expect(writes(s.emu)).not.toContain('DELETE /api/v1/websites/3 200');
    expect(s.emu.websites(KEY).map((w) => w.domain)).toContain('old.example.com');
    expect(Object.keys(await filesIn(join(s.dir, 'archives'))).filter((n) => n.startsWith('old.'))).toEqual([]);

    // A folder that cannot be written is the same: here a file stands where the folder goes.
    s.emu.faults.before = undefined;
    await setUp(FILE.replace('archive: archives', 'archive: blocked'));
    await writeFile(join(s.dir, 'blocked'), 'not a folder');
    const disk = await s.cli(['apply', '--auto-approve']);
    expect(disk.code).toBe(1);
    expect(disk.stdout).toMatch(/✗ delete busy\.example\.com \(id 2\): not deleted: its history could not be archived: archive blocked: cannot write it/);
    expect(disk.stdout).toContain('Applied: 0 created, 1 updated, 1 deleted, 2 failed.');

    await setUp();
    s.emu.faults.before = broken;
    await s.cli(['apply', '--auto-approve']);
    s.emu.faults.before = undefined;
    const again = await s.cli(['apply', '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Applied: 0 created, 0 updated, 1 deleted, 0 failed.');
    expect((await s.cli(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it("a symbolic link where an archive goes (committed by a pull request) is never written through: its name is taken, the archive goes beside it, the file it names is untouched", async () => {
    await setUp();
    const day = new Date().toISOString().slice(0, 10);
    // The pull request guessed the name (domain, id, the day of the merge) and linked it to a file outside the repository.
    await mkdir(join(s.dir, 'archives'));
    const outside = await mkdtemp(join(tmpdir(), 'sitesync-outside-'));
    onTestFinished(() => rm(outside, { recursive: true, force: true }));
    const victim = join(outside, 'victim.txt');
    await writeFile(victim, 'precious\n');
    for (const ext of ['json', 'csv']) await symlink(victim, join(s.dir, 'archives', `old.example.com-3-${day}.${ext}`));
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`✓ delete old.example.com (id 3) (archived first: archives/old.example.com-3-${day}-2.json)`);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
    for (const ext of ['json', 'csv']) {
      expect((await lstat(join(s.dir, 'archives', `old.example.com-3-${day}.${ext}`))).isSymbolicLink()).toBe(true);
    }
    expect(JSON.parse(await readFile(join(s.dir, 'archives', `old.example.com-3-${day}-2.json`), 'utf8')).website.domain).toBe('old.example.com');
    expect(r.stdout).toContain(`✓ delete busy.example.com (id 2) (archived first: archives/busy.example.com-2-${day}.json)`);
  });

  it('interrupted (Ctrl-C) while an archive is read: no delete is sent for it, no archive file is left, exit 130; a re-run converges', async () => {
    await setUp(FILE.replace('retire: ["busy.example.com"]', 'retire: ["busy.example.com", "old.example.com"]'));
    const env = cleanEnv({ SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY });
    const child = spawn(process.execPath, [bin, 'apply', '--auto-approve', '--parallelism', '1'], { cwd: s.dir, env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // The first archive read (only an archive asks for browsers) is where Ctrl-C comes.
    let sent = false;
    s.emu.faults.before = (req) => {
      if (req.query.get('name') !== 'browser') return undefined;
      if (!sent) {
        sent = true;
        child.kill('SIGINT');
      }
      return { delayMs: 1_500 };
    };
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, out).toBe(130);
    expect(out).toMatch(/not started \(interrupted\)/);
    expect(writes(s.emu).filter((w) => w.startsWith('DELETE /api/v1/websites/2 ') || w.startsWith('DELETE /api/v1/websites/3 '))).toEqual([]);
    expect(Object.keys(await filesIn(join(s.dir, 'archives'))).filter((n) => n.endsWith('.json'))).toEqual([]);
    s.emu.faults.before = undefined;
    const again = await s.cli(['apply', '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    expect((await s.cli(['plan', '--detailed-exitcode'])).code).toBe(0);
    expectNoSecrets(await filesIn(join(s.dir, 'archives')));
  });
});

describe('archive: in the file', () => {
  it('a folder relative to the file, inside its repository: outside it, in .git, or absolute is an error at its line', async () => {
    s = await scenario();
    await mkdir(join(s.dir, 'repo', '.git'), { recursive: true });
    for (const [folder, message] of [
      ['../outside', 'archive "../outside": it is outside the repository; sitesync writes no archive outside the repository that holds the config'],
      ['.git/hooks', 'archive ".git/hooks": it is in the repository\'s .git folder'],
      ['/tmp/x', 'archive: "/tmp/x" is an absolute path; write a folder relative to this file, inside its repository'],
    ]) {
      await s.write(`version: 1\narchive: ${folder}\nwebsites: []\n`, 'repo/sitesync.yaml');
      const r = await s.cli(['validate', '-c', 'repo/sitesync.yaml']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`repo/sitesync.yaml:2:10: ${message}`);
    }
    await s.write('version: 1\narchive: history/deleted\nwebsites: []\n', 'repo/sitesync.yaml');
    expect((await s.cli(['validate', '-c', 'repo/sitesync.yaml'])).code).toBe(0);
  });

  it('in a file with accounts: at the top for every account, an account\'s own wins', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'old.example.com', traffic: { [ago(200)]: 5 } }]);
    const file = (own: string) => `version: 1\narchive: everyone\naccounts:\n  acme:\n    base_url: ${s.emu.url}\n    api_key_env: ACME_KEY\n    prune: true\n${own}    websites: []\n`;
    await s.write(file(''));
    const env = { ACME_KEY: KEY };
    expect((await s.cli(['plan', '--format', 'json'], { env })).stdout).toContain('"archive": "everyone"');
    await s.write(file('    archive: acme-archive\n'));
    expect((await s.cli(['plan', '--format', 'json'], { env })).stdout).toContain('"archive": "acme-archive"');
  });

  it('two installations\' websites of one domain and one id, archived in one folder on one day, each keep their archive: none replaces another', async () => {
    s = await scenario();
    const second = await startEmulator({ keys: ['sk-test-SECOND-KEY-0123456789'], profile: 'deployed' });
    try {
      s.emu.seed(KEY, [{ domain: 'shop.example.com', traffic: { [ago(200)]: 5 } }]);
      second.seed('sk-test-SECOND-KEY-0123456789', [{ domain: 'shop.example.com', traffic: { [ago(300)]: 7 } }]);
      const account = (name: string, url: string) => `  ${name}:\n    base_url: ${url}\n    api_key_env: ${name.toUpperCase()}_KEY\n    prune: true\n    safety: { max_delete_percent: 100 }\n    websites: []\n`;
      await s.write(`version: 1\narchive: archives\naccounts:\n${account('prod', s.emu.url)}${account('staging', second.url)}`);
      const env = { PROD_KEY: KEY, STAGING_KEY: 'sk-test-SECOND-KEY-0123456789' };
      // One account after the other (a second run the same day), or both side by side in one run.
      const prod = await s.cli(['apply', '--auto-approve', '--force', '--account', 'prod'], { env });
      const staging = await s.cli(['apply', '--auto-approve', '--force', '--account', 'staging'], { env });
      for (const r of [prod, staging]) expect(r.code, r.stdout + r.stderr).toBe(0);
      const r = { stdout: prod.stdout + staging.stdout };
      const files = await filesIn(join(s.dir, 'archives'));
      const json = Object.entries(files).filter(([n]) => n.endsWith('.json'));
      expect(json).toHaveLength(2);
      expect(json.map(([, text]) => JSON.parse(text).totals.pageviews).sort()).toEqual([5, 7]);
      const day = new Date().toISOString().slice(0, 10);
      expect(Object.keys(files).sort()).toEqual([`shop.example.com-1-${day}-2.csv`, `shop.example.com-1-${day}-2.json`, `shop.example.com-1-${day}.csv`, `shop.example.com-1-${day}.json`]);
      // Each line names its own file.
      for (const [name] of json) expect(r.stdout).toContain(`(archived first: archives/${name})`);

      s.emu.seed(KEY, [{ domain: 'shop.example.com', traffic: { [ago(200)]: 5 } }]);
      second.seed('sk-test-SECOND-KEY-0123456789', [{ domain: 'shop.example.com', traffic: { [ago(300)]: 7 } }]);
      await rm(join(s.dir, 'archives'), { recursive: true });
      const both = await s.cli(['apply', '--auto-approve', '--force'], { env });
      expect(both.code, both.stdout + both.stderr).toBe(0);
      const again = Object.entries(await filesIn(join(s.dir, 'archives'))).filter(([n]) => n.endsWith('.json'));
      expect(again.map(([, text]) => JSON.parse(text).totals.pageviews).sort()).toEqual([5, 7]);
    } finally {
      await second.close();
    }
  });

  it('two processes archiving websites of one domain and one id (two installations) into one folder at the same moment: both archives kept (-2), both deletes sent once', async () => {
    s = await scenario();
    const SECOND = 'sk-test-SECOND-KEY-0123456789';
    const second = await startEmulator({ keys: [SECOND], profile: 'deployed' });
    try {
      s.emu.seed(KEY, [{ domain: 'shop.example.com', traffic: { [ago(200)]: 5 } }]);
      second.seed(SECOND, [{ domain: 'shop.example.com', traffic: { [ago(300)]: 7 } }]);
      const account = (name: string, url: string) => `  ${name}:\n    base_url: ${url}\n    api_key_env: ${name.toUpperCase()}_KEY\n    prune: true\n    safety: { max_delete_percent: 100 }\n    websites: []\n`;
      await s.write(`version: 1\narchive: archives\naccounts:\n${account('prod', s.emu.url)}${account('staging', second.url)}`);
      // The two runs read their statistics in step: the n-th request of each is answered when both
      // have asked it (a run waits at most 5 s for the other), so that both finish reading, and
      // name their files, at the same moment.
      const barriers = new Map<number, { arrived: number; release: () => void; released: Promise<void> }>();
      const seen = { prod: 0, staging: 0 };
      const step = (me: 'prod' | 'staging') => async (req: { path: string }) => {
        if (!req.path.startsWith('/api/v1/stats/')) return undefined;
        const n = ++seen[me];
        let barrier = barriers.get(n);
        if (!barrier) {
          let release = () => {};
          const released = new Promise<void>((r) => (release = r));
          barrier = { arrived: 0, release, released };
          barriers.set(n, barrier);
        }
        if (++barrier.arrived === 2) barrier.release();
        await Promise.race([barrier.released, new Promise((r) => setTimeout(r, 5_000))]);
        return undefined;
      };
      s.emu.faults.before = step('prod');
      second.faults.before = step('staging');
      const env = cleanEnv({ PROD_KEY: KEY, STAGING_KEY: SECOND });
      const run = (name: string) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, [bin, 'apply', '--auto-approve', '--force', '--account', name], { cwd: s.dir, env });
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.stderr.on('data', (d: Buffer) => (out += d.toString()));
          child.on('close', (code) => resolve({ code, out }));
        });
      const [prod, staging] = await Promise.all([run('prod'), run('staging')]);
      for (const r of [prod, staging]) expect(r.code, r.out).toBe(0);
      const day = new Date().toISOString().slice(0, 10);
      const files = await filesIn(join(s.dir, 'archives'));
      expect(Object.keys(files)).toEqual([`shop.example.com-1-${day}-2.csv`, `shop.example.com-1-${day}-2.json`, `shop.example.com-1-${day}.csv`, `shop.example.com-1-${day}.json`]);
      const json = Object.entries(files).filter(([n]) => n.endsWith('.json'));
      expect(json.map(([, text]) => JSON.parse(text).totals.pageviews).sort()).toEqual([5, 7]);
      // Each archive beside its CSV, and each run names its own file.
      for (const [name, text] of json) expect(files[name.replace(/\.json$/, '.csv')]).toBe(`date,pageviews,visitors\n${JSON.parse(text).daily.map((d: { date: string; pageviews: number; visitors: number }) => `${d.date},${d.pageviews},${d.visitors}\n`).join('')}`);
      const named = (out: string) => /\(archived first: archives\/(shop\.example\.com-1-[\d-]+\.json)\)/.exec(out)?.[1];
      expect([named(prod.out), named(staging.out)].sort()).toEqual([`shop.example.com-1-${day}-2.json`, `shop.example.com-1-${day}.json`]);
      expect(JSON.parse(files[named(prod.out)!]!).totals.pageviews).toBe(5);
      expect(JSON.parse(files[named(staging.out)!]!).totals.pageviews).toBe(7);
      // Both deletes sent, once each, and each installation's website gone.
      expect(writes(s.emu).filter((w) => w.startsWith('DELETE'))).toEqual(['DELETE /api/v1/websites/1 200']);
      expect(writes(second).filter((w) => w.startsWith('DELETE'))).toEqual(['DELETE /api/v1/websites/1 200']);
      expect(s.emu.websites(KEY)).toEqual([]);
      expect(second.websites(SECOND)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('--trusted-config: a pull request may add an archive:, not move or remove the trusted copy\'s', async () => {
    await setUp();
    await s.write(FILE, 'base.yaml');
    for (const changed of [FILE.replace('archive: archives\n', ''), FILE.replace('archive: archives', 'archive: elsewhere')]) {
      await s.write(changed);
      const r = await s.cli(['plan', '--trusted-config', 'base.yaml']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('sitesync.yaml: archive differs from the trusted config\'s (base.yaml archives to "archives"): moving or removing where deleted websites\' histories go must be on the base branch first');
      expect(s.emu.stats.requests).toBe(0);
    }
    await s.write(FILE.replace('archive: archives', 'archive: ./archives/'));
    expect((await s.cli(['plan', '--trusted-config', 'base.yaml'])).code).toBe(0);
    await s.write(FILE.replace('archive: archives\n', ''), 'base.yaml');
    await s.write(FILE);
    expect((await s.cli(['plan', '--trusted-config', 'base.yaml'])).code).toBe(0);
  });
});
