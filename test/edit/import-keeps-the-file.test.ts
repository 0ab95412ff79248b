/**
 * `sitesync import` edits a file people keep: concurrent runs lose no entry, the file keeps its
 * line endings and byte-order mark and every byte it had, the entries go where the account's
 * websites live, no website silently takes a default for a field sitesync cannot read, and live
 * text is escaped once. The built CLI against the emulator (deployed profile: no exclude_params).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const read = (name = 'sitesync.yaml') => readFile(join(s.dir, name), 'utf8');
const domainsIn = (text: string) => ((parse(text) as { websites?: { domain: string }[] }).websites ?? []).map((w) => w.domain);

describe('import runs side by side lose no entry', () => {
  const SIX = ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `${x}.example.com`);
  const FILE = 'version: 1\nwebsites:\n  - domain: example.com\n';

  it('six imports of one file at once: every one exits 0, and every entry lands', async () => {
    s = await scenario();
    s.emu.seed(KEY, ['example.com', ...SIX].map((domain) => ({ domain })));
    await s.write(FILE);
    const runs = await Promise.all(SIX.map((domain) => s.cli(['import', domain])));
    const text = await read();
    for (const [i, r] of runs.entries()) {
      expect(r.stderr, SIX[i]).toBe('');
      expect(r.code, SIX[i]).toBe(0);
      expect(r.stdout).toContain(`Imported 1 website into sitesync.yaml: ${SIX[i]}\n`);
    }
    expect(domainsIn(text).sort()).toEqual(['example.com', ...SIX].sort());
    expect(text.startsWith(FILE)).toBe(true);
    // Every lock is gone.
    expect(execFileSync('ls', ['-a', s.dir], { encoding: 'utf8' })).not.toContain('sitesync-lock');
    const plan = await s.cli(['plan']);
    expect(plan.stdout, plan.stderr).toContain('Plan: 0 to create, 0 to update, 0 to delete (7 unchanged, 0 unmanaged).');
  });

  it('imports and fmt side by side: every import exits 0 and its entry lands, however they interleave', async () => {
    s = await scenario();
    s.emu.seed(KEY, ['example.com', ...SIX].map((domain) => ({ domain })));
    // Not in fmt's layout, so that every fmt rewrites it.
    await s.write('websites:\n- domain: example.com\nversion: 1\n');
    const runs = await Promise.all([
      ...SIX.slice(0, 3).map((domain) => s.cli(['import', domain])),
      s.cli(['fmt']),
      s.cli(['fmt']),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(domainsIn(await read()).sort()).toEqual(['example.com', ...SIX.slice(0, 3)].sort());
  });

  it('waits for a lock another run holds, and writes once it is released', async () => {
    s = await scenario();
    s.emu.seed(KEY, ['example.com', 'a.example.com'].map((domain) => ({ domain })));
    await s.write(FILE);
    const lock = join(s.dir, '.sitesync.yaml.sitesync-lock');
    // Held by a process that runs: this one.
    await writeFile(lock, `${process.pid} ${hostname()}\n`);
    const started = Date.now();
    const running = s.cli(['import', 'a.example.com']);
    await new Promise((done) => setTimeout(done, 1500));
    expect(await read()).toBe(FILE);
    execFileSync('rm', [lock]);
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(domainsIn(await read())).toEqual(['example.com', 'a.example.com']);
  });

  it('removes the lock of a process that is gone (killed while it held it)', async () => {
    s = await scenario();
    s.emu.seed(KEY, ['example.com', 'a.example.com'].map((domain) => ({ domain })));
    await s.write(FILE);
    const gone = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    await writeFile(join(s.dir, '.sitesync.yaml.sitesync-lock'), `${gone} ${hostname()}\n`);
    const r = await s.cli(['import', 'a.example.com']);
    expect(r.code, r.stderr).toBe(0);
    expect(domainsIn(await read())).toEqual(['example.com', 'a.example.com']);
    expect(execFileSync('ls', ['-a', s.dir], { encoding: 'utf8' })).not.toContain('sitesync-lock');
  });
});

describe('import keeps the file as it is written', () => {
  it('a CRLF file with a byte-order mark gets CRLF lines, and keeps the mark and every other byte', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'example.com' }, { domain: 'shop.example.com', privacy: 1 }]);
    const before = '\ufeff# ours\r\nversion: 1\r\nwebsites:\r\n  - domain: example.com\r\n\r\n# end\r\n';
    await s.write(before);
    const r = await s.cli(['import', 'shop.example.com']);
    expect(r.code, r.stderr).toBe(0);
    const after = await readFile(join(s.dir, 'sitesync.yaml'));
    expect(after.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(after.toString('utf8')).toBe(
      '\ufeff# ours\r\nversion: 1\r\nwebsites:\r\n  - domain: example.com\r\n' +
        '\r\n  # not returned by the service, not written: exclude_params\r\n  - domain: shop.example.com\r\n    privacy: private\r\n' +
        '\r\n# end\r\n',
    );
    const plan = await s.cli(['plan']);
    expect(plan.stdout, plan.stderr).toContain('Plan: 0 to create, 0 to update, 0 to delete (2 unchanged, 0 unmanaged).');
  });
});

describe('import into a file with accounts and included files', () => {
  const GLOBEX_KEY = 'sk-test-GLOBEX-0123456789abcdef';
  const main = (url: string) =>
    [
      'version: 1',
      'defaults: { exclude_bots: true }',
      'accounts:',
      '  globex:',
      `    base_url: ${url}`,
      '    api_key_env: GLOBEX_KEY',
      '    safety: { max_delete_percent: 20, min_existing: 2 }',
      '    include: ["clients/globex/*.yaml"]   # its team keeps them',
      '',
    ].join('\n');
  const SHOPS = 'websites:\n  - domain: shop.globex.example\n  - domain: store.globex.example\n';
  const BLOG = 'websites:\n  - domain: blog.globex.example\n';

  async function setUp(): Promise<string> {
    s = await scenario({ keys: [GLOBEX_KEY] });
    s.emu.seed(GLOBEX_KEY, ['shop.globex.example', 'store.globex.example', 'blog.globex.example', 'new.globex.example'].map((domain) => ({ domain })));
    await mkdir(join(s.dir, 'clients/globex'), { recursive: true });
    await s.write(SHOPS, 'clients/globex/shops.yaml');
    await s.write(BLOG, 'clients/globex/blog.yaml');
    return s.write(main(s.emu.url));
  }
  const cli = (args: string[]) => s.cli(args, { env: { GLOBEX_KEY, SITESYNC_API_KEY: undefined, SITESYNC_BASE_URL: undefined } });

  it('goes into the included file that holds most of its websites, says which, and leaves the main file byte for byte', async () => {
    await setUp();
    const r = await cli(['import', 'new.globex.example']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Imported 1 website into clients/globex/shops.yaml (account globex): new.globex.example\n');
    expect(await read()).toBe(main(s.emu.url));
    expect(await read('clients/globex/shops.yaml')).toBe(`${SHOPS}\n  # not returned by the service, not written: exclude_params\n  - domain: new.globex.example\n`);
    expect(await read('clients/globex/blog.yaml')).toBe(BLOG);
    const plan = await cli(['plan']);
    expect(plan.stdout, plan.stderr).toContain('0 to create, 0 to update, 0 to delete (4 unchanged');
    // Imported again: already listed, in the included file as the working folder names it.
    const again = await cli(['import', 'blog.globex.example']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('blog.globex.example: already listed in clients/globex/blog.yaml:2 (account globex)');
  });

  it('--into names the file: an included one, or the main file, where only the account gets a websites: list', async () => {
    await setUp();
    const r = await cli(['import', 'new.globex.example', '--into', 'clients/globex/blog.yaml']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Imported 1 website into clients/globex/blog.yaml (account globex)');
    expect(domainsIn(await read('clients/globex/blog.yaml'))).toEqual(['blog.globex.example', 'new.globex.example']);

    await setUp();
    const intoMain = await cli(['import', 'new.globex.example', '--into', 'sitesync.yaml']);
    expect(intoMain.code, intoMain.stderr).toBe(0);
    expect(intoMain.stdout).toContain('Imported 1 website into sitesync.yaml (account globex)');
    // The flow mappings and every other line stay as they were written.
    expect(await read()).toBe(
      `${main(s.emu.url)}    websites:\n      # not returned by the service, not written: exclude_params\n      - domain: new.globex.example\n`,
    );
    expect(await read('clients/globex/shops.yaml')).toBe(SHOPS);
  });

  it('a single-account file whose websites are all in included files: the same, into the file that holds most', async () => {
    s = await scenario();
    s.emu.seed(KEY, ['a.example.com', 'b.example.com', 'c.example.com', 'new.example.com'].map((domain) => ({ domain })));
    await mkdir(join(s.dir, 'sites'));
    await s.write('websites:\n  - domain: a.example.com\n', 'sites/one.yaml');
    await s.write('websites:\n  - domain: b.example.com\n  - domain: c.example.com\n', 'sites/two.yaml');
    const MAIN = 'version: 1\ninclude: ["sites/*.yaml"]\nwebsites: []   # all in sites/\n';
    await s.write(MAIN);
    const r = await s.cli(['import', 'new.example.com']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Imported 1 website into sites/two.yaml: new.example.com\n');
    expect(await read()).toBe(MAIN);
    expect(domainsIn(await read('sites/two.yaml'))).toEqual(['b.example.com', 'c.example.com', 'new.example.com']);
  });

  it('an --into file that the account does not include is refused by name, and nothing is written', async () => {
    await setUp();
    await s.write(BLOG.replace('blog', 'other'), 'other.yaml');
    const r = await cli(['import', 'new.globex.example', '--into', 'other.yaml']);
    expect(r.stderr).toContain('Error: --into other.yaml: not the config file, and not a file account globex includes; nothing was written');
    expect(r.stderr).toContain('The files account globex includes: clients/globex/blog.yaml, clients/globex/shops.yaml.');
    expect(r.code).toBe(1);
    expect(await read()).toBe(main(s.emu.url));
    expect(await read('clients/globex/shops.yaml')).toBe(SHOPS);
  });
});

describe('import never gives a website a default for a field the service does not show', () => {
  const FILE = 'version: 1\ndefaults:\n  exclude_params: [utm_source, fbclid]\nwebsites:\n  - domain: example.com\n';

  it('refuses, naming the field and the default, writes nothing, and plan then leaves the website alone', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'example.com' }, { domain: 'shop.example.com', exclude_params: 'gclid' }]);
    await s.write(FILE);
    const why = ', and the defaults set exclude_params: [utm_source, fbclid]: listed, it would be sent the default with its next update, over the value it holds, which sitesync cannot read; nothing was imported';
    for (const [args, what] of [
      [['shop.example.com'], 'Error: shop.example.com: the service does not show its exclude_params'],
      [['--unmanaged'], 'Error: the service does not show the exclude_params of "shop.example.com"'],
    ] as const) {
      const r = await s.cli(['import', ...args]);
      expect(r.stderr).toContain(`${what}${why}\n`);
      expect(r.stderr).toContain('add its entry by hand with the value it should have');
      expect(r.code).toBe(1);
      expect(await read()).toBe(FILE);
    }
    const apply = await s.cli(['apply', '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(s.emu.websites(KEY).find((w) => w.domain === 'shop.example.com')!.exclude_params).toBe('gclid');

    // As the message says: the default moved to the websites that should get it, the import
    // goes through, and the website is never sent the field, also when another field of it changes.
    await s.write('version: 1\nwebsites:\n  - domain: example.com\n    exclude_params: [utm_source, fbclid]\n');
    expect((await s.cli(['import', 'shop.example.com'])).code).toBe(0);
    expect((await s.cli(['plan', '--detailed-exitcode'])).code).toBe(0);
    await writeFile(join(s.dir, 'sitesync.yaml'), (await read()).replace('- domain: shop.example.com', '- domain: shop.example.com\n    email: true'));
    const update = await s.cli(['apply', '--auto-approve']);
    expect(update.stdout, update.stderr).toContain('1 updated');
    const shop = s.emu.websites(KEY).find((w) => w.domain === 'shop.example.com')!;
    expect(shop.email).toBe(1);
    expect(shop.exclude_params).toBe('gclid');
  });
});

describe('live text in import output is escaped once', () => {
  const ESC = 'a\x1b[2jred.example.com';

  it('a live domain holding an ESC: \\x1b in the note, never \\\\x1b, nor a raw ESC', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'example.com' }, { domain: ESC }, { domain: 'b.example.com' }]);
    await s.write('version: 1\nwebsites:\n  - domain: example.com\n');
    const r = await s.cli(['import', '--unmanaged']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Note: left out "a\\x1b\[2jred\.example\.com" \(id \d+\): no file entry can name it/);
    expect(r.stderr).not.toContain('\\\\x1b');
    expect(r.stderr).not.toContain('\x1b');

    const named = await s.cli(['import', ESC]);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('Error: a\\x1b[2jred.example.com: ');
    expect(named.stderr).not.toContain('\\\\x1b');
    expect(named.stderr).not.toContain('\x1b');
  });
});
