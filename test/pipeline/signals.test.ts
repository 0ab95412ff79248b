/** Stopping apply from outside: Ctrl-C and SIGTERM end the same graceful way, each with its exit code. */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, cleanEnv } from '../helpers/cli.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

/** Starts apply of 30 creates, sends `signal` once three have finished, and collects what it printed. */
async function applyStoppedBy(signal: NodeJS.Signals): Promise<{ code: number | null; out: string; err: string }> {
  s = await scenario({ latencyMs: 100 });
  await s.write(`version: 1\nwebsites:\n${Array.from({ length: 30 }, (_, i) => `  - domain: s${i}.example.com`).join('\n')}\n`);
  const env = cleanEnv({ SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY });
  const child = spawn(process.execPath, [bin, 'apply', '--auto-approve', '--parallelism', '2'], { cwd: s.dir, env });
  let out = '';
  let err = '';
  let sent = false;
  // Each change's line is printed to stdout as it ends.
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!sent && (out.match(/✓/g) ?? []).length >= 3) {
      sent = true;
      child.kill(signal);
    }
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  return { code, out, err };
}

describe('apply stopped by a signal', () => {
  it('SIGTERM lets the changes in flight finish, prints the summary with what was not started, and exits 143', async () => {
    const { code, out } = await applyStoppedBy('SIGTERM');
    expect(out).toMatch(/Applied: \d+ created, 0 updated, 0 deleted, 0 failed, \d+ not started \(interrupted\)\./);
    expect(out).toContain('Run sitesync apply again to finish');
    expect(code).toBe(143);
    const created = s.emu.websites(KEY).length;
    expect(created).toBeGreaterThanOrEqual(3);
    expect(created).toBeLessThan(30);
    const [, done, notStarted] = /Applied: (\d+) created, .* (\d+) not started/.exec(out)!;
    expect(Number(done)).toBe(created);
    expect(Number(done) + Number(notStarted)).toBe(30);
    // Every create that started was answered: nothing was cut half way.
    expect(s.emu.stats.log.filter((r) => r.method === 'POST' && r.status !== 201)).toEqual([]);
  });

  it('Ctrl-C (SIGINT) ends the same way with exit 130', async () => {
    const { code, out } = await applyStoppedBy('SIGINT');
    expect(out).toMatch(/\d+ not started \(interrupted\)\./);
    expect(code).toBe(130);
  });
});

describe('a run stopped while it waits for the throttle', () => {
  it('exits at once: the wait for the service\'s window does not keep the process alive', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n');
    // Five minutes: within what sitesync waits for.
    s.emu.faults.before = (req) => (req.path === '/api/v1/websites' ? { status: 429, body: { message: 'Too Many Attempts.' }, headers: { 'Retry-After': '300' } } : undefined);
    const child = spawn(process.execPath, [bin, 'plan'], { cwd: s.dir, env: cleanEnv({ SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY }) });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const closed = new Promise<number | null>((r) => child.on('close', r));
    while (!s.emu.stats.log.some((r) => r.status === 429)) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    const code = await Promise.race([closed, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000))]);
    if (code === 'still running') child.kill('SIGKILL');
    expect(code).toBe(130);
    expect(err).toContain('interrupted');
  });
});
