/**
 * `ci drift --quiet-days N` and the month's pageviews: an account at 80 % or more of its plan's
 * monthly limit is drift, its issue gives the figures and the day it runs out; the same stats
 * requests as the silent websites' read, wherever the month's first day falls.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { monthStart, monthUsage } from '../../src/model/quota.js';
import { runCliHere, type CliResult } from '../helpers/cli.js';
import { KEY, singleAccount } from './drift-accounts.js';
import { actionsEnv, GITHUB_TOKEN, startFakeGitHub, type FakeGitHub } from './fake-github.js';

let emu: Emulator;
let github: FakeGitHub;
let dir: string;

async function start(options: EmulatorOptions): Promise<void> {
  emu = await startEmulator({ keys: [KEY], profile: 'deployed', ...options });
  github = await startFakeGitHub();
  dir = await mkdtemp(join(tmpdir(), 'sitesync-quota-'));
}
afterEach(async () => {
  await emu?.close();
  await github?.close();
  await rm(dir, { recursive: true, force: true });
});

async function drift(args: string[] = []): Promise<CliResult> {
  const r = await runCliHere(['ci', 'drift', ...args], {
    cwd: dir,
    env: {
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      ...actionsEnv(github),
    },
  });
  for (const secret of [KEY, GITHUB_TOKEN]) expect(r.stdout + r.stderr).not.toContain(secret);
  return r;
}

const today = new Date();
const day = (d: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), d)).toISOString().slice(0, 10);
/** `total` pageviews over the month's days so far, and `before` on each of the 200 days before it. */
function traffic(total: number, before = 0): Record<string, number> {
  const days = today.getUTCDate();
  const out: Record<string, number> = {};
  for (let d = 1; d <= days; d++) out[day(d)] = Math.floor(total / days) + (d <= total % days ? 1 : 0);
  if (before) for (let d = 0; d > -200; d--) out[day(d)] = before;
  return out;
}
const statsRequests = () => emu.stats.log.filter((l) => l.path.startsWith('/api/v1/stats/')).length;
const issues = () => [...github.issues.values()].sort((a, b) => a.number - b.number);

describe('ci drift --quiet-days and the month of the plan', () => {
  it.each([
    ['inside', 40],
    ['outside', 1],
  ])("an account at 85 percent of its month is drift, the issue says so with the figures and the day it runs out; the month's first day %s the window (--quiet-days %i) costs no request more", async (_, days) => {
    await start({ planPageviews: 10_000 });
    // A long history before the month (the latest 100 days reach back past its first day) and a short one.
    emu.seed(KEY, [
      { domain: 'a.example.com', traffic: traffic(6_000, 7) },
      { domain: 'b.example.com', traffic: traffic(2_500) },
    ]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com', 'b.example.com']));
    emu.resetStats();
    const r = await drift(['--quiet-days', String(days)]);
    expect(r.code).toBe(2);
    // One stats request a managed website, as the silent websites' read alone.
    expect(statsRequests()).toBe(2);
    const runsOut = monthUsage(8_500, 10_000, today).runsOut;
    const figures = `8,500 of 10,000 pageviews (85.0 %) since ${monthStart(today)}`;
    expect(r.stdout).toContain(`sitesync.yaml: the month's pageviews near the plan's limit\n  ${figures}`);
    expect(r.stdout).not.toContain('beyond one a managed website');
    const body = issues()[0]!.body;
    expect(body).toContain("## Drift: the month's pageviews of the account of `sitesync.yaml`");
    expect(body).toContain("it nears or has passed its plan's pageviews for the month");
    expect(body).toContain("### The month's pageviews: 85.0 % of the plan's limit");
    expect(body).toContain(figures);
    expect(body).toContain(runsOut ? `at this month's pace the limit is reached on ${runsOut}` : 'not before the month ends');
  });

  it('an account over its limit: every website has stopped recording, said in the issue', async () => {
    await start({ planPageviews: 1_000 });
    emu.seed(KEY, [{ domain: 'a.example.com', traffic: traffic(1_500) }]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    const r = await drift(['--quiet-days', '7']);
    expect(r.code).toBe(2);
    expect(issues()[0]!.body).toContain('1,500 of 1,000 pageviews (150.0 %)');
    expect(issues()[0]!.body).toContain('the limit is reached, every website of the account has stopped recording until the month ends');
    // The daily run without --quiet-days keeps what the weekly one found.
    const daily = await drift();
    expect(daily.code).toBe(2);
    expect(issues()[0]!.body).toContain('1,500 of 1,000 pageviews (150.0 %)');
  });

  it('under 80 %, or an unlimited plan: no drift; websites the file does not manage count too, one request each, and the note says so', async () => {
    await start({ planPageviews: 10_000 });
    emu.seed(KEY, [
      { domain: 'a.example.com', traffic: traffic(5_000) },
      { domain: 'other.example.com', traffic: traffic(2_000) },
    ]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['a.example.com']));
    emu.resetStats();
    const under = await drift(['--quiet-days', '7']);
    expect(under.code).toBe(0);
    expect(statsRequests()).toBe(2);
    expect(under.stdout).toContain("--quiet-days: 1 stats request beyond one a managed website, for the month's pageviews");
    emu.addTraffic(KEY, 'other.example.com', { [day(today.getUTCDate())]: 1_500 });
    const over = await drift(['--quiet-days', '7']);
    expect(over.code).toBe(2);
    expect(issues()[0]!.body).toContain('8,500 of 10,000 pageviews (85.0 %)');
    expect(issues()[0]!.body).toContain('(2 websites, managed or not)');
  });

  it('30 managed websites: --quiet-days 7 reads 30 stats, the plan 2 requests more', async () => {
    await start({ planPageviews: 100_000 });
    const domains = Array.from({ length: 30 }, (_, i) => `s${i}.example.com`);
    emu.seed(KEY, domains.map((domain) => ({ domain, traffic: traffic(100, 3) })));
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(domains));
    emu.resetStats();
    expect((await drift(['--quiet-days', '7'])).code).toBe(0);
    expect(statsRequests()).toBe(30);
    expect(emu.stats.requests).toBe(32);
  });
});
