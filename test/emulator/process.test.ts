/**
 * The emulator as a separate process, started the way users start it (`node bin/sitesync.cjs
 * emulator`): the banner, logging, Ctrl-C, start-up errors, and SIGKILL at random moments
 * while it writes its data file. Runs the bundled CLI (test/helpers/global-setup.ts builds it).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadData } from '../../src/emulator/persistence.js';
import type { Emulator } from '../../src/emulator/index.js';
import { call, create, emulators } from './helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'sitesync.cjs');
const dir = mkdtempSync(join(tmpdir(), 'sitesync-emulator-process-'));
const emus = emulators();
const children = new Set<ChildProcessWithoutNullStreams>();

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

/**
 * Waits for the banner and returns an `Emulator`-like handle for the helpers. No clock of its own:
 * a Node start-up takes seconds on a busy machine; the test's timeout bounds the wait.
 */
async function started(r: Running): Promise<{ url: string; key: string; emu: Emulator }> {
  while (!r.stdout().includes('Ctrl-C stops it.')) {
    if (r.child.exitCode !== null) {
      throw new Error(`the emulator did not start:\n${r.stdout()}\n${r.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const m = /export SITESYNC_BASE_URL=(\S+) SITESYNC_API_KEY=(\S+)/.exec(r.stdout())!;
  const url = m[1]!;
  const key = m[2]!;
  return { url, key, emu: { url, keys: [key] } as unknown as Emulator };
}

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await emus.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('sitesync emulator', () => {
  it('prints the base URL, the key and an export line, logs requests without the key, and stops on Ctrl-C', async () => {
    const r = run(['emulator', '--port', '0', '--key', 'cli-key-123']);
    const { url, key, emu } = await started(r);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(key).toBe('cli-key-123');
    expect(r.stdout()).toContain(`Base URL   ${url}`);
    expect(r.stdout()).toContain('sitesync plan');

    expect((await create(emu, { domain: 'cli.example.com' })).status).toBe(201);
    const list = await call(emu, 'GET', '/api/v1/websites');
    expect(list.json.data.map((w: { domain: string }) => w.domain)).toEqual(['cli.example.com']);
    expect((await call(emu, 'GET', '/api/v1/websites', { key: null })).status).toBe(401);

    r.child.kill('SIGINT');
    expect(await r.exit).toEqual({ code: 0, signal: null });
    const log = r.stderr();
    expect(log).toMatch(/^POST \/api\/v1\/websites 201 \d+ms$/m);
    expect(log).toMatch(/^GET \/api\/v1\/websites 200 \d+ms$/m);
    expect(log).toMatch(/^GET \/api\/v1\/websites 401 \d+ms$/m);
    expect(log).toContain('Emulator stopped.');
    expect(log).not.toContain('cli-key-123');
  });

  it('generates a key when given none, and logs nothing with --quiet', async () => {
    const r = run(['emulator', '--port', '0', '--quiet', '--profile', 'full', '--rate-limit', '5/60', '--website-limit', '1']);
    const { key, emu } = await started(r);
    expect(key).toMatch(/^[0-9a-f]{60}$/);
    expect(r.stdout()).toContain('(generated; --key KEY picks your own)');
    const made = await create(emu, { domain: 'one.com', exclude_params: 'gclid' });
    expect(made.status).toBe(201);
    expect(made.json).toEqual({ data: expect.objectContaining({ exclude_params: 'gclid' }) });
    expect(made.headers.get('x-ratelimit-limit')).toBe('5');
    expect((await create(emu, { domain: 'two.com' })).json.message).toBe('You created too many websites.');
    r.child.kill('SIGINT');
    expect((await r.exit).code).toBe(0);
    expect(r.stderr()).toBe('Emulator stopped.\n');
  });

  it('keeps its state in --data across restarts', async () => {
    const file = join(dir, 'cli-state.json');
    const first = run(['emulator', '--port', '0', '--quiet', '--data', file, '--key', 'keep']);
    const a = await started(first);
    await create(a.emu, { domain: 'kept.example.com' });
    first.child.kill('SIGTERM');
    expect((await first.exit).code).toBe(0);

    const second = run(['emulator', '--port', '0', '--quiet', '--data', file, '--key', 'keep']);
    const b = await started(second);
    expect(second.stdout()).toContain('(1 website)');
    const list = await call(b.emu, 'GET', '/api/v1/websites');
    expect(list.json.data.map((w: { domain: string }) => w.domain)).toEqual(['kept.example.com']);
    second.child.kill('SIGINT');
    await second.exit;
  });

  it('refuses a port in use, a bad --rate-limit and a corrupt data file, with exit 1', async () => {
    const busy = await emus.start();
    const inUse = run(['emulator', '--port', String(busy.port), '--quiet']);
    expect((await inUse.exit).code).toBe(1);
    expect(inUse.stderr()).toContain(`port ${busy.port} is in use: pick another with --port, or --port 0`);

    const badLimit = run(['emulator', '--port', '0', '--rate-limit', 'sixty']);
    expect((await badLimit.exit).code).toBe(1);
    expect(badLimit.stderr()).toContain('--rate-limit must be N/SECONDS');

    const file = join(dir, 'corrupt.json');
    writeFileSync(file, '{"format": "sitesync-emulator", "vers');
    const corrupt = run(['emulator', '--port', '0', '--data', file]);
    expect((await corrupt.exit).code).toBe(1);
    expect(corrupt.stderr()).toContain(`cannot use the emulator data file ${file}: it is not valid JSON`);
    expect(readFileSync(file, 'utf8')).toBe('{"format": "sitesync-emulator", "vers');
    expect(corrupt.stdout()).toBe('');
  });
});

describe('torn writes', () => {
  const KEY = 'torn-key';

  /** The websites in the data file, by domain; it must always load. */
  async function fileState(file: string): Promise<Map<string, number>> {
    const data = await loadData(file);
    const byDomain = new Map<string, number>();
    const ids = new Set<number>();
    for (const w of data?.websites ?? []) {
      expect(byDomain.has(w.domain), `${w.domain} twice`).toBe(false);
      expect(ids.has(w.id)).toBe(false);
      expect(w.id).toBeLessThan(data!.nextId);
      byDomain.set(w.domain, w.id);
      ids.add(w.id);
    }
    return byDomain;
  }

  // Six emulator processes started and killed (each a Node start-up, then 25 writers): seconds
  // quiet, by nature; beside a second suite on two cores, a minute or more.
  it('leaves the old or the new state, never a torn file, when killed at any moment', { timeout: 180_000 }, async () => {
    const file = join(dir, 'torn.json');
    let before = new Map<string, number>();
    const rounds = 6;
    for (let round = 0; round < rounds; round++) {
      const r = run(['emulator', '--port', '0', '--quiet', '--data', file, '--key', KEY]);
      if (round === 1) {
        // Killed while it starts (reading, then writing the file once).
        await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 150));
        r.child.kill('SIGKILL');
        await r.exit;
        expect(await fileState(file)).toEqual(before);
        continue;
      }
      const { emu } = await started(r);
      const acked = new Map<string, number>();
      const ackedDeletes = new Set<string>();
      const inFlightCreates = new Set<string>();
      const inFlightDeletes = new Set<string>();
      let stop = false;
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const domain = `r${round}-w${w}-${i}.torn.test`;
          inFlightCreates.add(domain);
          let made;
          try {
            made = await create(emu, { domain, exclude_ips: '203.0.113.1\n203.0.113.2' });
          } catch {
            return; // killed: the answer is lost, the create may or may not be in the file
          }
          inFlightCreates.delete(domain);
          expect(made.status).toBe(201);
          acked.set(domain, made.json.data.id);
          if (i % 3 === 2) {
            inFlightDeletes.add(domain);
            let gone;
            try {
              gone = await call(emu, 'DELETE', `/api/v1/websites/${made.json.data.id}`);
            } catch {
              return;
            }
            inFlightDeletes.delete(domain);
            expect(gone.status).toBe(200);
            ackedDeletes.add(domain);
          }
        }
      };
      const writers = Array.from({ length: 25 }, (_, w) => writer(w));
      // Kill at a random moment once writes are under way.
      for (const until = Date.now() + 10_000; acked.size === 0 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 350));
      r.child.kill('SIGKILL');
      expect((await r.exit).signal).toBe('SIGKILL');
      stop = true;
      await Promise.all(writers);

      const after = await fileState(file);
      // Every acknowledged change is there; an unanswered one may or may not be.
      for (const [domain, id] of [...before, ...acked]) {
        if (ackedDeletes.has(domain)) expect(after.has(domain), `${domain} deleted`).toBe(false);
        else if (!inFlightDeletes.has(domain)) expect(after.get(domain), `${domain} kept`).toBe(id);
      }
      // Nothing else is.
      for (const domain of after.keys()) {
        expect(before.has(domain) || acked.has(domain) || inFlightCreates.has(domain), `${domain} unexpected`).toBe(true);
      }
      before = after;
    }
    // The last state still starts, with the same websites.
    const last = run(['emulator', '--port', '0', '--quiet', '--data', file, '--key', KEY]);
    const { emu } = await started(last);
    const listed: string[] = [];
    let url: string | null = '/api/v1/websites?per_page=100';
    while (url) {
      const page = await call(emu, 'GET', url);
      listed.push(...page.json.data.map((w: { domain: string }) => w.domain));
      url = page.json.links.next;
    }
    expect(listed.sort()).toEqual([...before.keys()].sort());
    last.child.kill('SIGINT');
    expect((await last.exit).code).toBe(0);
  });
});
