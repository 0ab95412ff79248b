/** Reading a file with accounts and include: every file's problems at its own place, all at once. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/config/load.js';
import { ConfigError, formatDiagnostic } from '../../src/messages/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-ws-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function files(map: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(map)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
}

async function problems(main = 'sitesync.yaml', env: Record<string, string> = {}): Promise<string[]> {
  try {
    await loadWorkspace(join(dir, main), env);
  } catch (error) {
    if (error instanceof ConfigError) return error.diagnostics.map((d) => formatDiagnostic(d).replace(`${dir}/`, ''));
    throw error;
  }
  return [];
}

const TWO = `version: 1
defaults: { exclude_bots: true, email: true }
accounts:
  acme:
    base_url: https://stats.acme.example
    api_key_env: ACME_KEY
    defaults: { email: false }
    websites:
      - domain: acme.example
  globex:
    base_url: https://analytics.example.com
    api_key_env: GLOBEX_KEY
    prune: true
    safety: { max_delete_percent: 20 }
    include: ["clients/globex/*.yaml"]
`;

describe('a file with accounts', () => {
  it('reads each account with its own settings, the top defaults under its own, and its included websites', async () => {
    await files({
      'sitesync.yaml': TWO,
      'clients/globex/a.yaml': 'websites:\n  - domain: shop.globex.example\n',
      'clients/globex/b.yaml': 'version: 1\nwebsites:\n  - domain: globex.example\n    privacy: private\n',
    });
    const ws = await loadWorkspace(join(dir, 'sitesync.yaml'), {});
    expect(ws.multi).toBe(true);
    const [acme, globex] = ws.configs;
    expect(acme!.account).toMatchObject({ name: 'acme', apiKeyEnv: 'ACME_KEY', pos: { line: 4, col: 3 } });
    expect(acme!.baseUrl).toBe('https://stats.acme.example');
    expect(acme!.defaults).toEqual({ exclude_bots: 1, email: 0 });
    expect(globex!.defaults).toEqual({ exclude_bots: 1, email: 1 });
    expect(globex!.prune).toBe(true);
    expect(globex!.safety.max_delete_percent).toBe(20);
    expect(globex!.websites.map((w) => [w.domain, w.file?.replace(`${dir}/`, ''), w.pos.line])).toEqual([
      ['shop.globex.example', 'clients/globex/a.yaml', 2],
      ['globex.example', 'clients/globex/b.yaml', 3],
    ]);
    expect(ws.files.map((f) => f.replace(`${dir}/`, ''))).toEqual(['sitesync.yaml', 'clients/globex/a.yaml', 'clients/globex/b.yaml']);
  });

  it('an error in an included file is reported at its own FILE:LINE:COL, with the main file’s', async () => {
    await files({
      'sitesync.yaml': TWO.replace('- domain: acme.example', '- domain: acme..example'),
      'clients/globex/a.yaml': 'websites:\n  - domain: shop.globex.example\n    privacy: secret\n',
    });
    expect(await problems()).toEqual([
      'sitesync.yaml:9:17: websites[0].domain: "acme..example" is not a valid domain name (letters, digits, "-" and "_" in labels separated by dots)',
      'clients/globex/a.yaml:3:14: websites[0].privacy must be public, private or password (or 0, 1, 2), not "secret"',
    ]);
  });

  it('an included file holds only websites: anything else is an error at its key', async () => {
    await files({ 'sitesync.yaml': TWO, 'clients/globex/a.yaml': 'prune: true\nwebsites: []\n' });
    expect(await problems()).toEqual([
      'clients/globex/a.yaml:1:1: "prune" cannot be in an included file: it holds only websites: (the file that includes it says the rest)',
    ]);
  });

  it('a glob that matches no file is an error at the glob', async () => {
    await files({ 'sitesync.yaml': TWO });
    const [only] = await problems();
    expect(only).toMatch(/^sitesync\.yaml:15:15: include "clients\/globex\/\*\.yaml" matches no file/);
  });

  it('a domain listed in two files is an error naming both places', async () => {
    await files({
      'sitesync.yaml': TWO.replace('    include:', '    websites:\n      - domain: shop.globex.example\n    include:'),
      'clients/globex/a.yaml': 'websites:\n  - domain: Shop.Globex.example\n',
    });
    expect(await problems()).toEqual([
      `clients/globex/a.yaml:2:13: "Shop.Globex.example" is listed twice: at ${dir}/sitesync.yaml:16:17 and at ${dir}/clients/globex/a.yaml:2:13`,
    ]);
  });

  it('the same domain in two accounts of one installation is an error; on two installations it is fine', async () => {
    const same = TWO.replace('https://analytics.example.com', 'https://stats.acme.example').replace('    include: ["clients/globex/*.yaml"]\n', '    websites:\n      - domain: acme.example\n');
    await files({ 'sitesync.yaml': same });
    const [only] = await problems();
    expect(only).toMatch(/"acme\.example" is listed in account globex and in account acme .* on the same installation/);
    await files({ 'sitesync.yaml': same.replace('base_url: https://stats.acme.example\n    api_key_env: GLOBEX_KEY', 'base_url: https://other.example\n    api_key_env: GLOBEX_KEY') });
    expect(await problems()).toEqual([]);
  });

  it('says which form to pick when a file mixes accounts: with single-account keys', async () => {
    await files({ 'sitesync.yaml': `${TWO}websites: []\nprune: true\n`, 'clients/globex/a.yaml': 'websites: []\n' });
    expect(await problems()).toEqual([
      'sitesync.yaml:16:1: "websites" belongs in an account: a file with accounts: holds only version, defaults, archive and accounts at its top',
      'sitesync.yaml:17:1: "prune" belongs in an account: a file with accounts: holds only version, defaults, archive and accounts at its top',
    ]);
  });

  it('an API key written in an account says where a key goes; a bad variable name or account name is named', async () => {
    await files({
      'sitesync.yaml': 'version: 1\naccounts:\n  "bad name":\n    base_url: https://a.example\n    api_key_env: 1KEY\n    api_key: sk-123\n    websites: []\n',
    });
    const found = await problems();
    expect(found).toContainEqual(expect.stringMatching(/the account name "bad name" may hold only letters, digits/));
    expect(found).toContainEqual(expect.stringMatching(/accounts\.bad name\.api_key_env must be the NAME of an environment variable/));
    expect(found).toContainEqual(expect.stringMatching(/"api_key": the API key never goes in the file; write the NAME of the environment variable/));
  });

  it('api_key_env is never expanded nor shown: a ${NAME} there, or a key written there, is an error that does not repeat it', async () => {
    const key = 'sk-live-THE-KEY-VALUE';
    await files({ 'sitesync.yaml': 'version: 1\naccounts:\n  a:\n    base_url: https://a.example\n    api_key_env: ${ACME_KEY}\n    websites: []\n  b:\n    base_url: https://b.example\n    api_key_env: sk-live-THE-KEY-VALUE\n    websites: []\n' });
    const found = await problems('sitesync.yaml', { ACME_KEY: key });
    expect(found).toContainEqual(expect.stringContaining('accounts.a.api_key_env is the NAME of the variable that holds the key: write NAME, without ${…}'));
    expect(found).toContainEqual(expect.stringContaining('accounts.b.api_key_env must be the NAME of an environment variable'));
    for (const line of found) expect(line).not.toContain(key);
  });

  it('a single-account file may include files too', async () => {
    await files({
      'sitesync.yaml': 'version: 1\ninclude: [more/*.yaml]\nwebsites:\n  - domain: a.example\n',
      'more/b.yaml': 'websites:\n  - domain: b.example\n',
    });
    const ws = await loadWorkspace(join(dir, 'sitesync.yaml'), {});
    expect(ws.multi).toBe(false);
    expect(ws.configs[0]!.websites.map((w) => w.domain)).toEqual(['a.example', 'b.example']);
  });

  it('the SHA-256 a saved plan is bound to changes when an included file changes; without includes it is the text’s', async () => {
    await files({ 'sitesync.yaml': 'version: 1\nwebsites: []\n' });
    const plain = await loadWorkspace(join(dir, 'sitesync.yaml'), {});
    const { createHash } = await import('node:crypto');
    expect(plain.sha256).toBe(createHash('sha256').update('version: 1\nwebsites: []\n').digest('hex'));
    await files({ 'sitesync.yaml': 'version: 1\ninclude: [more/*.yaml]\nwebsites: []\n', 'more/b.yaml': 'websites:\n  - domain: b.example\n' });
    const before = (await loadWorkspace(join(dir, 'sitesync.yaml'), {})).sha256;
    await files({ 'more/b.yaml': 'websites:\n  - domain: c.example\n' });
    expect((await loadWorkspace(join(dir, 'sitesync.yaml'), {})).sha256).not.toBe(before);
  });
});
