/**
 * `ci drift --verify` against the emulator, the fake GitHub and HTTPS websites on loopback: a page
 * without the tracking code is drift, named in the account's issue; once every page carries it,
 * the issue is commented on and closed. The CLI as a child process (TLS trust is the process's).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { KEY, singleAccount } from '../ci/drift-accounts.js';
import { actionsEnv, GITHUB_TOKEN, startFakeGitHub, type FakeGitHub } from '../ci/fake-github.js';
import { code, html, startSites, TEST_CA, type Page, type Sites } from './sites.js';

let emu: Emulator;
let github: FakeGitHub;
let sites: Sites;
let dir: string;
const pages: Record<string, Page> = {};

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY], profile: 'deployed' });
  github = await startFakeGitHub();
  sites = await startSites(pages);
  dir = await mkdtemp(join(tmpdir(), 'sitesync-drift-verify-'));
});
afterEach(async () => {
  await Promise.all([emu.close(), github.close(), sites.close()]);
  await rm(dir, { recursive: true, force: true });
});

async function drift(args: string[]): Promise<CliResult> {
  const r = await runCli(['ci', 'drift', '--connect-to', sites.connectTo, ...args], {
    cwd: dir,
    env: {
      SITESYNC_BASE_URL: emu.url,
      SITESYNC_API_KEY: KEY,
      NODE_EXTRA_CA_CERTS: TEST_CA,
      ...actionsEnv(github, '7'),
    },
  });
  for (const secret of [KEY, GITHUB_TOKEN]) expect(r.stdout + r.stderr).not.toContain(secret);
  return r;
}

describe('ci drift --verify', { timeout: 120_000 }, () => {
  it("a page without the account's tracking code keeps an issue open naming it; fixed, the issue is closed", async () => {
    emu.seed(KEY, [{ domain: 'good.example.com' }, { domain: 'bad.example.com' }]);
    await writeFile(join(dir, 'sitesync.yaml'), singleAccount(['good.example.com', 'bad.example.com']));
    pages['good.example.com'] = html(code(emu.url));
    pages['bad.example.com'] = html(code('https://stats.other.example.org'));
    const r = await drift(['--verify']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("sitesync.yaml: pages without this installation's tracking code\n  bad.example.com: the tracking code sends to another installation: https://stats.other.example.org");
    const [issue] = [...github.issues.values()];
    expect(issue!.body).toContain('## Drift: untracked websites in the account of `sitesync.yaml`');
    expect(issue!.body).toContain("### 1 website's page does not carry this installation's tracking code");
    expect(issue!.body).toContain('| `bad.example.com` | the tracking code sends to another installation: `https://stats.other.example.org` |');
    expect(issue!.body).not.toContain('good.example.com');
    // Nothing of the pages was asked of the service.
    expect(emu.stats.log.filter((l) => l.path.startsWith('/api/v1/stats/'))).toEqual([]);

    pages['bad.example.com'] = html(code(emu.url));
    const fixed = await drift(['--verify']);
    expect(fixed.code).toBe(0);
    expect(issue!.state).toBe('closed');
    expect(github.comments(issue!.number)[0]!.body).toContain("each managed website's page carries its tracking code");
  });
});
