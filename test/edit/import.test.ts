/**
 * `sitesync import`: live websites added to the file in place, in the file's style, and the
 * file then plans clean for them. The CLI as users run it, against the emulator (deployed
 * profile: the service returns no exclude_params).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const FILE = [
  '# Our websites. Reviewed in pull requests.',
  'version: 1',
  '',
  'defaults:',
  '  exclude_bots: true   # the service default, said out loud',
  '  email: true',
  '',
  'ignore: ["*.sandbox.example.com"]',
  '',
  'websites:',
  '  # the main one',
  '  - domain: example.com',
  '    password: ${EXAMPLE_PASSWORD}',
  '',
  '# end of the list',
  '',
].join('\n');

const LIVE = [
  { domain: 'example.com', email: 1 },
  { domain: 'shop.example.com', email: 1, exclude_bots: 1, privacy: 1 },
  { domain: 'blog.example.com', email: 0, exclude_ips: '203.0.113.7' },
  { domain: 'vault.example.com', email: 1, privacy: 2, password: 'pw-vault-1234' },
  { domain: 'a.sandbox.example.com' },
];

async function setUp(): Promise<void> {
  s = await scenario();
  s.emu.seed(KEY, LIVE);
  await s.write(FILE);
}

const read = () => readFile(join(s.dir, 'sitesync.yaml'), 'utf8');
const planEnv = { env: { EXAMPLE_PASSWORD: 'secret-of-example' } };

describe('sitesync import', () => {
  it('import DOMAIN adds the website after the last entry, leaves out what the defaults say, and everything else stays byte for byte', async () => {
    await setUp();
    const r = await s.cli(['import', 'shop.example.com', 'blog.example.com']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('Imported 2 websites into sitesync.yaml: shop.example.com, blog.example.com\nCheck it with: sitesync plan\n');
    expect(r.code).toBe(0);
    const at = FILE.indexOf('\n# end of the list');
    // A blank line before each entry, as fmt lays websites out; the field the service does not return said once.
    const added = [
      '',
      '  # not returned by the service, not written for these 2 imported websites: exclude_params',
      '  - domain: shop.example.com',
      '    privacy: private',
      '',
      '  - domain: blog.example.com',
      '    email: false',
      '    exclude_ips:',
      '      - 203.0.113.7',
      '',
    ].join('\n');
    expect(await read()).toBe(FILE.slice(0, at) + added + FILE.slice(at));
  });

  it('after import, plan finds nothing to change for the imported websites', async () => {
    await setUp();
    expect((await s.cli(['import', '--unmanaged'])).code).toBe(0);
    s.emu.resetStats();
    const plan = await s.cli(['plan', '--detailed-exitcode'], planEnv);
    expect(plan.stdout, plan.stderr).toContain('Plan: 0 to create, 0 to update, 0 to delete (4 unchanged, 1 unmanaged).');
    expect(plan.code).toBe(0);
    expect((await s.cli(['validate'], planEnv)).code).toBe(0);
    expect(writes(s.emu)).toEqual([]);
  });

  it('--unmanaged adds every live website the file neither lists nor ignores, by name, and notes the password', async () => {
    await setUp();
    const r = await s.cli(['import', '--unmanaged']);
    expect(r.stdout).toContain('Imported 3 websites into sitesync.yaml: blog.example.com, shop.example.com, vault.example.com\n');
    const text = await read();
    expect(text).toContain('\n  # not returned by the service, not written for these 3 imported websites: exclude_params\n  - domain: blog.example.com\n');
    expect(text).toContain('\n\n  # password-protected: add password: ${NAME} to manage its password\n  - domain: vault.example.com\n    privacy: password\n');
    expect(text.match(/not returned by the service/g)).toHaveLength(1);
    expect(text).not.toContain('domain: a.sandbox');
    expect(text).not.toContain('pw-vault');
    expect(text.indexOf('blog.example.com')).toBeLessThan(text.indexOf('shop.example.com'));
  });

  it('--dry-run prints the change as a unified diff and writes nothing', async () => {
    await setUp();
    const r = await s.cli(['import', 'shop.example.com', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--- sitesync.yaml\n+++ sitesync.yaml\n');
    expect(r.stdout).toContain('\n+  - domain: shop.example.com\n+    privacy: private\n');
    expect(r.stdout).toContain('\n     password: ${EXAMPLE_PASSWORD}\n');
    expect(await read()).toBe(FILE);
  });

  it('a domain already listed is refused with its line, and nothing is written', async () => {
    await setUp();
    const r = await s.cli(['import', 'EXAMPLE.com']);
    expect(r.stderr).toContain('Error: EXAMPLE.com: already listed in sitesync.yaml:12; nothing was imported');
    expect(r.code).toBe(1);
    expect(await read()).toBe(FILE);
  });

  it('a domain the service does not hold, or that ignore matches, is refused by name', async () => {
    await setUp();
    const r = await s.cli(['import', 'nowhere.example.com', 'a.sandbox.example.com', 'https://shop.example.com/']);
    expect(r.stderr).toContain('Error: 3 domains cannot be imported; nothing was imported');
    expect(r.stderr).toContain('nowhere.example.com: no live website of the account has this domain');
    expect(r.stderr).toContain('a.sandbox.example.com: matched by the ignore pattern *.sandbox.example.com (sitesync.yaml:8)');
    expect(r.stderr).toContain('is not a bare domain name (no scheme, port or path): write "shop.example.com"');
    expect(r.code).toBe(1);
    expect(await read()).toBe(FILE);
  });

  it('import DOMAIN reads each domain by a search, not the whole account', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 450 }, (_, i) => ({ domain: `f${i}.example.com` })));
    await s.write('version: 1\nwebsites: []\n');
    s.emu.resetStats();
    const r = await s.cli(['--verbose', 'import', 'F7.example.com', 'www.f8.example.com']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^4 requests: 1 account, 1 count, 2 search pages$/m);
    expect(await read()).toMatch(/- domain: f7\.example\.com\n[\s\S]*- domain: f8\.example\.com\n/);
    const lists = s.emu.stats.log.filter((l) => l.path.startsWith('/api/v1/websites?'));
    // The count, and one search each: not the five pages of the account.
    expect(lists.filter((l) => !l.path.includes('search=')).length).toBeLessThanOrEqual(1);
    expect(lists.filter((l) => l.path.includes('search=')).length).toBe(2);
  });

  it('with nothing unmanaged, --unmanaged says so and changes nothing', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'example.com' }]);
    await s.write(FILE);
    const r = await s.cli(['import', '--unmanaged']);
    expect(r.stdout).toBe('Nothing to import: every live website is listed in sitesync.yaml or ignored.\n');
    expect(r.code).toBe(0);
    expect(await read()).toBe(FILE);
  });

  it('import with neither DOMAINs nor --unmanaged is a usage error', async () => {
    await setUp();
    const r = await s.cli(['import']);
    expect(r.stderr).toContain('Error: say what to import: one or more DOMAINs, or --unmanaged');
    expect(r.code).toBe(1);
  });
});

describe('import --unmanaged and the names no file entry can hold', () => {
  it('lists them under ignore, as export does, so that prune never deletes them; a second import adds nothing', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'harborfoods.com' }, { domain: 'test site.harborfoods.com' }, { domain: 'shop.harborfoods.com' }]);
    const file = await s.write('# ours\nversion: 1\nwebsites:\n  - domain: harborfoods.com\n');
    const r = await s.cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Note: left out "test site\.harborfoods\.com" \(id \d+\): no file entry can name it; listed under ignore/);
    const text = await readFile(file, 'utf8');
    // Above websites:, where fmt puts it; the rest of the file as it was.
    expect(text).toMatch(
      /^# ours\nversion: 1\nignore:\n {2}# "test site\.harborfoods\.com" \(id \d+\) is no host name a file entry can hold: left alone, never updated or deleted\n {2}- test site\.harborfoods\.com\nwebsites:\n {2}- domain: harborfoods\.com\n\n(?: {2}#.*\n)? {2}- domain: shop\.harborfoods\.com\n$/,
    );
    const pruned = await s.cli(['plan', '--prune', '--detailed-exitcode']);
    expect(pruned.code, pruned.stdout).toBe(0);
    expect((await s.cli(['fmt', '--check'])).code).toBe(0);
    const again = await s.cli(['import', '--unmanaged']);
    expect(again.stdout).toContain('Nothing to import');
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it("in a file with accounts: under that account's ignore, beside its include", async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'acme.example' }, { domain: 'odd name.acme.example' }]);
    await s.write('websites: []\n', 'acme.yaml');
    const file = await s.write(`version: 1\naccounts:\n  acme:\n    base_url: ${s.emu.url}\n    api_key_env: ACME_KEY\n    include:\n      - acme.yaml\n`);
    const r = await s.cli(['import', '--unmanaged'], { env: { ACME_KEY: KEY } });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(s.dir, 'acme.yaml'), 'utf8')).toMatch(/^websites:\n(?: {2}#.*\n)? {2}- domain: acme\.example\n$/);
    expect(await readFile(file, 'utf8')).toMatch(/ {4}ignore:\n {6}# "odd name\.acme\.example" \(id \d+\) is no host name .*\n {6}- odd name\.acme\.example\n {4}include:\n {6}- acme\.yaml\n$/);
    expect((await s.cli(['fmt', '--check'])).code).toBe(0);
    const pruned = await s.cli(['plan', '--prune', '--detailed-exitcode'], { env: { ACME_KEY: KEY } });
    expect(pruned.code, pruned.stdout).toBe(0);
  });
});

describe('import into the layout an include names before its file exists', () => {
  it('the error says how to enter it; following it, import --unmanaged fills the file', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'quarry.example' }]);
    await s.write(`version: 1\naccounts:\n  quarry:\n    base_url: ${s.emu.url}\n    api_key_env: QUARRY_KEY\n    include:\n      - "clients/quarry/*.yaml"\n`);
    const env = { env: { QUARRY_KEY: KEY } };
    const r = await s.cli(['import', '--unmanaged'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('include "clients/quarry/*.yaml" matches no file');
    expect(r.stderr).toContain('create the file (websites: [] is enough, and import --unmanaged fills it), or leave include: out');
    expect(r.stderr).toContain('sitesync init');
    await mkdir(join(s.dir, 'clients/quarry'), { recursive: true });
    await s.write('websites: []\n', 'clients/quarry/websites.yaml');
    const filled = await s.cli(['import', '--unmanaged'], env);
    expect(filled.code, filled.stderr).toBe(0);
    expect(await readFile(join(s.dir, 'clients/quarry/websites.yaml'), 'utf8')).toContain('- domain: quarry.example');
  });
});
