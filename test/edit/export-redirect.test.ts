/**
 * `sitesync export > FILE` as a shell runs it: the shell creates (empties) FILE before sitesync
 * starts. An empty file that is the command's own standard output is not a config; where the
 * shell has emptied a config the export needed, the error says so and how to get it back.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { bin, cleanEnv } from '../helpers/cli.js';
import { KEY } from '../helpers/scenario.js';

let emu: Emulator;
let dir = '';
beforeAll(async () => {
  emu = await startEmulator({ keys: [KEY], profile: 'deployed' });
  dir = await mkdtemp(join(tmpdir(), 'sitesync-export-redirect-'));
  emu.seed(KEY, [{ domain: 'shop.example.com' }, { domain: 'blog.example.com' }]);
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

/** `line` in bash, in the folder, with `sitesync` this checkout's CLI. */
function shell(line: string, env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const script = `sitesync() { "${process.execPath}" "${bin}" "$@"; }\n${line}\n`;
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: dir, env: cleanEnv({ NO_COLOR: '1', ...env }) }, (error, _stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stderr });
    });
  });
}

describe('export > FILE', () => {
  it('export > sitesync.yaml writes the live account into the file the shell emptied, which then plans clean', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites: []\n');
    const env = { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY };
    const r = await shell('sitesync export > sitesync.yaml', env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const text = await readFile(join(dir, 'sitesync.yaml'), 'utf8');
    expect(text).toContain('- domain: blog.example.com');
    expect(text).toContain('- domain: shop.example.com');
    const plan = await shell('sitesync plan --prune --detailed-exitcode', env);
    expect(plan.code, plan.stderr).toBe(0);
    // A second export over its own output works as well.
    expect((await shell('sitesync export > sitesync.yaml', env)).code).toBe(0);
    expect(await readFile(join(dir, 'sitesync.yaml'), 'utf8')).toBe(text);
  });

  it('an accounts file the shell emptied: the error says so, and how to get it back (git checkout, then -o)', async () => {
    await writeFile(join(dir, 'sitesync.yaml'), `version: 1\naccounts:\n  acme:\n    base_url: ${emu.url}\n    api_key_env: ACME_KEY\n    websites: []\n`);
    const r = await shell('sitesync export > sitesync.yaml', { ACME_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml is empty: the shell emptied it for "> sitesync.yaml" before sitesync started');
    expect(r.stderr).toContain('git checkout -- sitesync.yaml');
    expect(r.stderr).toContain('sitesync export -o');
    expect(r.stderr).not.toContain(KEY);
    // Then `export > websites.yaml` meets the emptied config: the same words, not "the file is empty".
    const again = await shell('sitesync export > websites.yaml', { ACME_KEY: KEY });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('sitesync.yaml is empty: an earlier "sitesync export > sitesync.yaml" (or another ">") may have emptied it');
    expect(again.stderr).toContain('git checkout -- sitesync.yaml');
  });
});
