/**
 * The library on an agency's file (issue 39, item 9): examples/sync-accounts.mjs reads it with
 * loadWorkspace, plans each account with its own key, and applies only what a person answers
 * "yes" to, the question in words; applyPlan writes nothing without the caller's word.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan, loadConfig, NotApprovedError, plan, readLiveState } from '../../src/api.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { cleanEnv, root } from '../helpers/cli.js';

const ACME = 'sk-test-LIB-ACME-0123456789';
const BETA = 'sk-test-LIB-BETA-0123456789';
let emu: Emulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await emu?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  emu = dir = undefined;
});

function run(args: string[], env: Record<string, string>, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: root, env: cleanEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('the library example on an accounts: file', () => {
  it('plans each account with its own key, asks in words, applies the one answered "yes"', async () => {
    emu = await startEmulator({ keys: [ACME, BETA] });
    dir = await mkdtemp(join(tmpdir(), 'sitesync-lib-'));
    const file = join(dir, 'sitesync.yaml');
    await writeFile(
      file,
      `version: 1\naccounts:\n  acme:\n    base_url: ${emu.url}\n    api_key_env: ACME_KEY\n    websites:\n      - domain: acme.example.com\n  beta:\n    base_url: ${emu.url}\n    api_key_env: BETA_KEY\n    websites:\n      - domain: beta.example.com\n`,
    );
    const r = await run(['examples/sync-accounts.mjs', file], { ACME_KEY: ACME, BETA_KEY: BETA }, 'yes\nno\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('━━ acme ━━');
    expect(r.stdout).toMatch(/Apply to account [^\n]* at http:\/\/127\.0\.0\.1:\d+: 1 to create, 0 to update, 0 to delete\? \(yes\/no\)/);
    expect(r.stdout).toContain('acme: created 1, updated 0, deleted 0, failed 0');
    expect(r.stdout).toContain('beta: not applied; nothing was written');
    expect(emu.websites(ACME).map((w) => w.domain)).toEqual(['acme.example.com']);
    expect(emu.websites(BETA)).toEqual([]);
    expect(r.stdout).not.toContain(ACME);
    expect(r.stdout).not.toContain(BETA);
  });

  it('applyPlan without confirm or autoApprove writes nothing, and says what to pass', async () => {
    emu = await startEmulator({ keys: [ACME] });
    dir = await mkdtemp(join(tmpdir(), 'sitesync-lib-'));
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const options = { baseUrl: emu.url, apiKey: ACME, env: {} };
    const config = await loadConfig(join(dir, 'sitesync.yaml'), options);
    const planned = await plan(config, await readLiveState(config, options), options);
    await expect(applyPlan(planned, config, options)).rejects.toThrow(NotApprovedError);
    await expect(applyPlan(planned, config, options)).rejects.toThrow(/pass \{ confirm: \(question\) => … \} to ask .* or \{ autoApprove: true \}/);
    await expect(applyPlan(planned, config, { ...options, confirm: () => false })).rejects.toThrow(/nothing was written/);
    expect(emu.websites(ACME)).toEqual([]);
  });
});
