/** `sitesync import`: live websites added to the file in place; the file then plans clean for them. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
beforeEach(async () => {
  s = await scenario();
});
afterEach(async () => {
  await s?.close();
});

const FILE = `# yaml-language-server: $schema=./schema.json
version: 1
defaults:
  exclude_bots: true # keep robots out

# Our sites.
websites:
  - domain: listed.example.com   # the first

  - domain: other.example.com
    email: true
# trailing note
`;

describe('sitesync import', () => {
  beforeEach(async () => {
    s.emu.seed(KEY, [
      { domain: 'listed.example.com', exclude_bots: 1 },
      { domain: 'other.example.com', email: 1, exclude_bots: 1 },
      { domain: 'shop.example.com', privacy: 1, email: 0, exclude_bots: 1, exclude_ips: '203.0.113.7' },
      { domain: 'blog.example.com', privacy: 0, email: 1, exclude_bots: 0 },
    ]);
    await s.write(FILE);
  });

  it('adds a live website at the end of websites:, every other byte kept, values equal to the defaults left out; then plans clean', async () => {
    const r = await s.cli(['import', 'shop.example.com']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Imported 1 website into sitesync.yaml');
    const text = await readFile(join(s.dir, 'sitesync.yaml'), 'utf8');
    const [head] = FILE.split('# trailing note');
    expect(text.startsWith(`${head}`)).toBe(true);
    expect(text).toBe(
      `${head}\n  # not returned by the service, so not written: exclude_params\n  - domain: shop.example.com\n    privacy: private\n    exclude_ips:\n      - 203.0.113.7\n# trailing note\n`,
    );
    const plan = await s.cli(['plan', '--detailed-exitcode', '--target', 'shop.example.com']);
    expect(plan.code, plan.stdout).toBe(0);
  });

  it('--unmanaged adds every live website the file does not list; a value the defaults differ from is written', async () => {
    const r = await s.cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(join(s.dir, 'sitesync.yaml'), 'utf8');
    expect(text).toContain('  - domain: blog.example.com\n    email: true\n    exclude_bots: false\n');
    expect(text).toContain('  - domain: shop.example.com\n');
    const plan = await s.cli(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
    const again = await s.cli(['import', '--unmanaged']);
    expect(again.stderr).toContain('Nothing to import');
  });

  it('--dry-run prints the diff and writes nothing', async () => {
    const r = await s.cli(['import', 'blog.example.com', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('+  - domain: blog.example.com');
    expect(await readFile(join(s.dir, 'sitesync.yaml'), 'utf8')).toBe(FILE);
  });

  it('a website the file lists already, or that no account holds, is an error; nothing is written', async () => {
    const listed = await s.cli(['import', 'listed.example.com']);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain('listed.example.com: sitesync.yaml lists it already; nothing was imported');
    const missing = await s.cli(['import', 'nowhere.example.com', 'blog.example.com']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nowhere.example.com: no live website of the account holds it');
    expect(await readFile(join(s.dir, 'sitesync.yaml'), 'utf8')).toBe(FILE);
  });

  it('a flow list is edited through the document, comments kept', async () => {
    await s.write('version: 1\n# the list\nwebsites: [{domain: listed.example.com}]  # flow\n');
    const r = await s.cli(['import', 'blog.example.com']);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(join(s.dir, 'sitesync.yaml'), 'utf8');
    expect(text).toContain('# the list');
    expect(text).toContain('# flow');
    expect(text).toContain('- domain: blog.example.com');
  });
});
