/**
 * What import and export write is already in fmt's layout (`fmt --check` passes right after), and
 * the fields the service does not return are said once per import, not on every entry.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agencyIn, KEYS } from '../helpers/agency.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const agency = agencyIn((sc) => (s = sc));

describe('what a command writes is already formatted: `fmt --check` passes right after it', () => {
  const FORMATTED = [
    '# yaml-language-server: $schema=./schema.json',
    'version: 1',
    '',
    'defaults:',
    '  exclude_bots: true',
    '',
    'websites:',
    '  - domain: example.com',
    '    privacy: private',
    '',
    '  - domain: blog.example.com',
    '',
  ].join('\n');

  it('import, into a list, an empty list, and an account of an accounts: file', async () => {
    s = await scenario();
    s.emu.seed(KEY, ['example.com', 'blog.example.com', 'shop.example.com', 'vault.example.com', 'news.example.com'].map((domain, i) => ({ domain, privacy: i % 3 })));
    await s.write(FORMATTED);
    expect((await s.cli(['fmt', '--check'])).code).toBe(0);
    const imported = await s.cli(['import', 'shop.example.com', 'vault.example.com']);
    expect(imported.code, imported.stderr).toBe(0);
    const check = await s.cli(['fmt', '--check']);
    expect(check.stdout).toBe('sitesync.yaml is already formatted\n');
    expect(check.code, check.stderr).toBe(0);
    expect((await s.cli(['export', '-o', 'exported.yaml'])).code).toBe(0);
    expect((await s.cli(['fmt', '--check', 'exported.yaml'])).code).toBe(0);

    await s.write('version: 1\nwebsites: []\n', 'empty.yaml');
    expect((await s.cli(['import', '--unmanaged', '-c', 'empty.yaml'])).code).toBe(0);
    expect((await s.cli(['fmt', '--check', 'empty.yaml'])).code).toBe(0);
  });

  it('import into an account, then fmt --check of the whole file', async () => {
    const cli = await agency({ alpha: '      - domain: a1.example.com', beta: '      - domain: b1.example.com', gamma: '' });
    s.emu.seed(KEYS.ALPHA_KEY, ['a1.example.com', 'a2.example.com', 'a3.example.com'].map((domain) => ({ domain })));
    s.emu.seed(KEYS.GAMMA_KEY, ['g1.example.com', 'g2.example.com'].map((domain) => ({ domain })));
    await cli(['fmt']);
    const r = await cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    expect((await cli(['fmt', '--check'])).code).toBe(0);
  });

  it('export of an accounts: file, and fmt itself', async () => {
    const cli = await agency({ alpha: '      - domain: a1.example.com', beta: '      - domain: b1.example.com', gamma: '      - domain: g1.example.com' });
    s.emu.seed(KEYS.ALPHA_KEY, ['a1.example.com', 'a2.example.com', 'odd name.example.com'].map((domain, i) => ({ domain, privacy: i % 3, exclude_ips: '10.0.0.1' })));
    s.emu.seed(KEYS.BETA_KEY, ['b1.example.com', 'b2.example.com'].map((domain) => ({ domain })));
    expect((await cli(['export', '-o', 'all.yaml'])).code).toBe(0);
    const r = await cli(['fmt', '--check', 'all.yaml']);
    expect(r.stdout).toBe('all.yaml is already formatted\n');
    expect(r.code).toBe(0);
    await s.write('version: 1\nwebsites: [{domain: a.example.com}, {domain: b.example.com, exclude_ips: [10.0.0.1]}]\n', 'flow.yaml');
    expect((await cli(['fmt', 'flow.yaml'])).code).toBe(0);
    expect((await cli(['fmt', '--check', 'flow.yaml'])).code).toBe(0);
  });
});

describe('the fields the service does not return are said once per import, not on every entry', () => {
  it('importing 40 websites writes the exclude_params comment once, above the first', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 40 }, (_, i) => ({ domain: `site${i}.example.com` })));
    await s.write('version: 1\nwebsites:\n  - domain: site0.example.com\n');
    const r = await s.cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(join(s.dir, 'sitesync.yaml'), 'utf8');
    expect(text.match(/#.*exclude_params/g)).toEqual(['# not returned by the service, not written for these 39 imported websites: exclude_params']);
    expect(text).toContain('  - domain: site0.example.com\n\n  # not returned by the service, not written for these 39 imported websites: exclude_params\n  - domain: site1.example.com\n');
  });
});
