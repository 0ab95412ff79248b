/** README.md › Set-up: `npm ci && npm run demo` runs dist/dev/demo.js, as this test does (`npm test` is the suite itself). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, root } from '../helpers/cli.js';

describe('npm run demo', () => {
  // The demo as the README runs it: its own process, which starts the CLI as a process for each
  // step; by nature some Node start-ups, past 30 s beside a second suite (the lead's baseline run).
  it('plans, applies and plans again against the bundled emulator, and exits 0', { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, [join(root, 'dist/dev/demo.js')], { cwd: root, env: cleanEnv() });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(out).toContain('Plan: 2 to create, 1 to update, 1 to delete (1 unchanged, 1 unmanaged).');
    expect(out).toContain('Applied: 2 created, 1 updated, 1 deleted, 0 failed.');
    expect(out).toContain('Plan: 0 to create, 0 to update, 0 to delete (4 unchanged, 1 unmanaged).');
    expect(out).not.toContain('demo-only-password');
    expect(code).toBe(0);
  });
});
