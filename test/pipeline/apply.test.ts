import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { FaultRequest } from '../../src/emulator/index.js';
import { bin, cleanEnv } from '../helpers/cli.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

function sites(n: number, prefix = 's', extra = '') {
  return Array.from({ length: n }, (_, i) => `  - domain: ${prefix}${i}.example.com${extra}`).join('\n');
}

/** Applies, then checks that a second plan finds nothing to change: the run converged. */
async function expectConverged(): Promise<void> {
  const again = await s.cli(['plan', '--detailed-exitcode'], { env: { SITE_PW: 'pw-value-123' } });
  expect(again.stdout).toMatch(/Plan: 0 to create, 0 to update, 0 to delete/);
  expect(again.code).toBe(0);
}

describe('apply --auto-approve', () => {
  it('creates, updates and deletes, with a line per change and a summary', async () => {
    s = await scenario();
    s.emu.seed(KEY, [
      { domain: 'upd.example.com', privacy: 0, email: 0, exclude_bots: 1 },
      { domain: 'gone.example.com', privacy: 0, email: 0, exclude_bots: 1 },
    ]);
    await s.write(`version: 1\nprune: true\nwebsites:\n  - domain: upd.example.com\n    privacy: private\n  - domain: fav.example.com\n    favorite: true\n`);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✓ create fav\.example\.com \d+ms/);
    expect(r.stdout).toMatch(/✓ update upd\.example\.com \(id 1\) \d+ms/);
    expect(r.stdout).toMatch(/✓ delete gone\.example\.com \(id 2\) \d+ms/);
    expect(r.stdout).toContain('Applied: 1 created, 1 updated, 1 deleted, 0 failed.');
    const fav = s.emu.websites(KEY).find((w) => w.domain === 'fav.example.com')!;
    expect(fav.favorite).toBe(true);
    await expectConverged();
  });

  it('nothing to do is said plainly', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites: []\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Nothing to apply.');
  });

  it('runs at most --parallelism changes at once', async () => {
    s = await scenario({ latencyMs: 30 });
    let inFlight = 0;
    let peak = 0;
    s.emu.faults.before = async (req: FaultRequest) => {
      if (req.method === 'GET') return undefined;
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      return undefined;
    };
    await s.write(`version: 1\nwebsites:\n${sites(12)}\n`);
    const r = await s.cli(['apply', '--auto-approve', '--parallelism', '3']);
    expect(r.code).toBe(0);
    expect(peak).toBe(3);
  });
});

describe('apply asks first', () => {
  it('without a terminal and without --auto-approve it refuses, exit 1, nothing written', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n${sites(2)}\n`);
    const r = await s.cli(['apply']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('there is no terminal to ask on: pass --auto-approve');
    expect(writes(s.emu)).toEqual([]);
  });

  async function answer(text: string): Promise<{ code: number; out: string }> {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let out = '';
    const stdout = { write: (t: string) => ((out += t), true), isTTY: false };
    const stderr = { write: (t: string) => ((out += t), true), isTTY: false };
    const env = { SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY };
    const running = main(['apply'], { stdin, stdout, stderr, env, cwd: s.dir });
    // Answer once the question is asked.
    while (!out.includes('(yes/no)')) await new Promise((r) => setTimeout(r, 10));
    stdin.write(text);
    return { code: await running, out };
  }

  it('on a terminal only "yes" applies (injected stdin)', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n${sites(2)}\n`);
    const no = await answer('y\n');
    expect(no.code).toBe(1);
    expect(no.out).toContain('Apply? Only "yes" applies these changes. (yes/no)');
    expect(no.out).toContain('apply was cancelled; nothing was written');
    expect(writes(s.emu)).toEqual([]);
    const yes = await answer('yes\n');
    expect(yes.code).toBe(0);
    expect(yes.out).toContain('Applied: 2 created, 0 updated, 0 deleted, 0 failed.');
  });

  it('on a real pseudo-terminal the prompt is answered (script(1))', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n${sites(1)}\n`);
    const env = cleanEnv({ SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY, TERM: 'dumb' });
    const child = spawn('script', ['-qefc', `${process.execPath} ${bin} apply`, '/dev/null'], { cwd: s.dir, env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('(yes/no)') && !child.stdin.writableEnded) child.stdin.end('yes\n');
    });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(out).toContain('Applied: 1 created');
    expect(code).toBe(0);
  });
});

describe('safety before any write', () => {
  async function pruneScenario(keep: number, total: number) {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: total }, (_, i) => ({ domain: `s${i}.example.com`, privacy: 0, email: 0, exclude_bots: 1 })));
    await s.write(`version: 1\nprune: true\nwebsites:\n${sites(keep)}\n`);
    s.emu.resetStats();
  }

  it('over the threshold apply refuses with the share and the counts', async () => {
    await pruneScenario(6, 21);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: refusing to delete 15 of 21 managed websites, 71 % > 30 %; nothing was written');
    expect(writes(s.emu)).toEqual([]);
  });

  it('--force overrides the threshold', async () => {
    await pruneScenario(6, 21);
    const r = await s.cli(['apply', '--auto-approve', '--force']);
    expect(r.code).toBe(0);
    expect(s.emu.websites(KEY)).toHaveLength(6);
  });

  it('a file that lists no websites deletes nothing without --force', async () => {
    await pruneScenario(0, 2);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the file lists no websites, and the plan would delete 2; nothing was written');
    expect(writes(s.emu)).toEqual([]);
  });

  it("the account's website limit is checked before writing", async () => {
    s = await scenario({ keys: [{ key: KEY, websiteLimit: 2 }] });
    await s.write(`version: 1\nwebsites:\n${sites(3)}\n`);
    const r = await s.cli(['apply', '--auto-approve', '--force']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the account's plan allows 2 websites, and after this plan it would hold 3; nothing was written");
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('apply under faults converges', () => {
  it('429 bursts and a throttle window: everything applies, few 429s', async () => {
    s = await scenario({ rateLimit: { limit: 15, windowMs: 1000 } });
    await s.write(`version: 1\nwebsites:\n${sites(40)}\n`);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Applied: 40 created');
    expect(s.emu.stats.byStatus[429] ?? 0).toBeLessThanOrEqual(3);
    await expectConverged();
  });

  it('5xx bursts on writes are retried; the run converges', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 10 }, (_, i) => ({ domain: `u${i}.example.com`, privacy: 0, email: 0, exclude_bots: 1 })));
    let n = 0;
    s.emu.faults.before = (req) => (req.method === 'PATCH' && n++ % 3 === 0 ? { status: 503, body: { message: 'Service Unavailable' } } : undefined);
    await s.write(`version: 1\nwebsites:\n${Array.from({ length: 10 }, (_, i) => `  - domain: u${i}.example.com\n    email: true`).join('\n')}\n`);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.stdout).toContain('Applied: 0 created, 10 updated, 0 deleted, 0 failed.');
    expect(r.code).toBe(0);
    s.emu.faults.before = undefined;
    await expectConverged();
  });

  it('a store that commits and then answers 500 is never stored twice', async () => {
    s = await scenario();
    s.emu.faults.allowDuplicateDomains = true;
    let n = 0;
    s.emu.faults.afterCommit = (req) => (req.method === 'POST' && n++ % 2 === 0 ? { status: 500, body: { message: 'Server Error' } } : undefined);
    await s.write(`version: 1\nwebsites:\n${sites(8)}\n`);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("the store's answer was lost; found it stored");
    const domains = s.emu.websites(KEY).map((w) => w.domain);
    expect(domains).toHaveLength(8);
    expect(new Set(domains).size).toBe(8);
    s.emu.faults.afterCommit = undefined;
    await expectConverged();
  });

  it('a change refused with 422 among good ones: the others finish, the failure is listed, exit 1', async () => {
    s = await scenario({ keys: [KEY, 'someone-else-key-000000'] });
    s.emu.seed('someone-else-key-000000', [{ domain: 's2.example.com' }]);
    await s.write(`version: 1\nwebsites:\n${sites(5)}\n`);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ create s2.example.com: domain: The domain has already been taken.');
    expect(r.stdout).toContain('Failed (1):\n  ✗ create s2.example.com: domain: The domain has already been taken.');
    expect(r.stdout).toContain('Applied: 4 created, 0 updated, 0 deleted, 1 failed.');
    expect(s.emu.websites(KEY)).toHaveLength(4);
    const again = await s.cli(['plan', '--format', 'json']);
    expect(JSON.parse(again.stdout).changes.map((c: { domain: string }) => c.domain)).toEqual(['s2.example.com']);
  });

  it('Ctrl-C stops starting changes, lets those in flight finish, prints the summary, exits 130', async () => {
    s = await scenario({ latencyMs: 100 });
    await s.write(`version: 1\nwebsites:\n${sites(30)}\n`);
    const env = cleanEnv({ SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY });
    const child = spawn(process.execPath, [bin, 'apply', '--auto-approve', '--parallelism', '2'], { cwd: s.dir, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if ((out.match(/✓/g) ?? []).length >= 3 && !child.killed) child.kill('SIGINT');
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(130);
    expect(out).toMatch(/Applied: \d+ created, 0 updated, 0 deleted, 0 failed, \d+ not started \(interrupted\)\./);
    const created = s.emu.websites(KEY).length;
    expect(created).toBeGreaterThanOrEqual(3);
    expect(created).toBeLessThan(30);
    // Everything started was finished: no write is cut half way.
    expect(s.emu.stats.log.filter((r) => r.method === 'POST' && r.status !== 201)).toEqual([]);
    const rerun = await s.cli(['apply', '--auto-approve']);
    expect(rerun.stdout).toContain(`Applied: ${30 - created} created`);
    await expectConverged();
  });
});

describe('two prune runs at once', () => {
  it('a delete that finds the website gone says "already gone" and is not counted as deleted', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'keep.example.com' }, { domain: 'old1.example.com' }, { domain: 'old2.example.com' }, { domain: 'old3.example.com' }]);
    await s.write('version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n');
    // Hold every delete until both runs have read the list, so that both plan the same deletes.
    let listed = 0;
    let release!: () => void;
    const bothListed = new Promise<void>((r) => (release = r));
    s.emu.faults.before = async (req) => {
      if (req.method === 'GET' && req.path.endsWith('/websites') && ++listed === 2) release();
      if (req.method === 'DELETE') await bothListed;
      return undefined;
    };
    const runs = await Promise.all([s.cli(['apply', '--auto-approve']), s.cli(['apply', '--auto-approve'])]);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['keep.example.com']);
    const counts = runs.map((r) => {
      expect(r.code).toBe(0);
      const m = /Applied: 0 created, 0 updated, (\d+) deleted(?:, (\d+) already gone)?, 0 failed\./.exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      return { deleted: Number(m![1]), gone: Number(m![2] ?? 0) };
    });
    // Each website was deleted by exactly one run; the other says it found it gone.
    expect(counts[0]!.deleted + counts[1]!.deleted).toBe(3);
    expect(counts[0]!.gone + counts[1]!.gone).toBe(3);
    const goneLines = runs.flatMap((r) => r.stdout.split('\n').filter((l) => l.startsWith('· ')));
    expect(goneLines).toHaveLength(3);
    // Gone when its delete was sent, or already when its statistics were read (then no delete is sent).
    for (const line of goneLines) expect(line).toMatch(/^· delete old\d\.example\.com \(id \d\): already gone(: deleted elsewhere since the plan was made| when planned \(the service answered 404 for it\): not deleted again) \d+ms$/);
  });
});
