/** `sitesync fmt` as users run it: the built CLI as a child process, on files in a temporary folder. */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { root, runCli, runCliHere } from '../helpers/cli.js';

const MESSY = 'websites:\n  - {privacy: private, domain: b.example}\n  - domain: a.example\nversion: 1   # the format\n';
const FORMATTED = 'version: 1 # the format\nwebsites:\n  - domain: b.example\n    privacy: private\n\n  - domain: a.example\n';

let dir: string;
const write = async (name: string, text: string) => {
  await mkdir(join(dir, name, '..'), { recursive: true });
  await writeFile(join(dir, name), text);
};
const read = (name: string) => readFile(join(dir, name), 'utf8');
const fmt = (args: string[], env: Record<string, string> = {}) => runCliHere(['fmt', ...args], { cwd: dir, env });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-fmt-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sitesync fmt', () => {
  it('rewrites sitesync.yaml in the canonical layout, keeping its permissions, and says so', async () => {
    await write('sitesync.yaml', MESSY);
    await chmod(join(dir, 'sitesync.yaml'), 0o600);
    const r = await fmt([]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Formatted sitesync.yaml\n');
    expect(await read('sitesync.yaml')).toBe(FORMATTED);
    expect((await stat(join(dir, 'sitesync.yaml'))).mode & 0o777).toBe(0o600);
    const again = await fmt([]);
    expect(again.stdout).toBe('sitesync.yaml is already formatted\n');
  });

  it('a value the yaml package cannot write back (!!binary) leaves the file as it is, with a message, not an internal error', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: !!binary aGVsbG8=\n';
    await write('sitesync.yaml', text);
    for (const args of [[], ['--check']]) {
      const r = await fmt(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('sitesync.yaml: the file cannot be laid out: the yaml package fails to write one of its values back');
      expect(r.stderr).not.toContain('Internal error');
    }
    expect(await read('sitesync.yaml')).toBe(text);
  });

  it('files after -- are formatted like any other (a name that begins with "-"), and the fix says -- too', async () => {
    await write('-odd-name.yaml', MESSY);
    await write('sitesync.yaml', FORMATTED);
    const check = await fmt(['--check', '--', '-odd-name.yaml']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('--- -odd-name.yaml');
    expect(check.stderr).toContain('-odd-name.yaml is not formatted; run: sitesync fmt -- -odd-name.yaml');
    const r = await fmt(['--', '-odd-name.yaml']);
    expect(r.stdout).toBe('Formatted -odd-name.yaml\n');
    expect(await read('-odd-name.yaml')).toBe(FORMATTED);
    const extra = await runCli(['validate', '--', 'x.yaml'], { cwd: dir });
    expect(extra.stderr).toContain('sitesync validate takes no argument "x.yaml"');
    expect(extra.code).toBe(1);
  });

  it('--check writes nothing and exits 1 with a unified diff and the command that fixes it', async () => {
    await write('sites.yaml', MESSY);
    const r = await fmt(['--check', 'sites.yaml']);
    expect(r.code).toBe(1);
    expect(await read('sites.yaml')).toBe(MESSY);
    expect(r.stdout).toContain('--- sites.yaml\n+++ sites.yaml\n@@ ');
    expect(r.stdout).toContain('\n-  - {privacy: private, domain: b.example}\n');
    expect(r.stdout).toContain('\n+  - domain: b.example\n+    privacy: private\n');
    expect(r.stdout).not.toContain('\u001b[');
    expect(r.stderr).toBe('sites.yaml is not formatted; run: sitesync fmt sites.yaml\n');
  });

  it('--check colours the diff only on a terminal (or FORCE_COLOR)', async () => {
    await write('sitesync.yaml', MESSY);
    const r = await fmt(['--check'], { FORCE_COLOR: '1' });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('\u001b[32m+    privacy: private');
  });

  it('--check never shows a password written in clear in its diff', async () => {
    await write('sitesync.yaml', 'version: 1\nwebsites: [{password: Hunter2-clear, domain: a.example, privacy: password}]\n');
    const r = await fmt(['--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('+    password: (redacted)\n');
    expect(r.stdout + r.stderr).not.toContain('Hunter2-clear');
  });

  it.each([
    ['that holds an invisible character: it is not written in another spelling', 'p\u200Bw\u00F6rd-clear', '+    password: (redacted)\n'],
    ['in a spelling of its own ("\\x70…"), on either side of its diff', '"\\x70w\\u00f6rd-clear"', '-  - password: (redacted)\n'],
  ])('--check never shows a password written in clear %s', async (_, written, redacted) => {
    await write('sitesync.yaml', `websites:\n  - password: ${written}\n    domain: a.example\nversion: 1\n`);
    const r = await fmt(['--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(redacted);
    expect(r.stdout + r.stderr).not.toMatch(/rd-clear/);
  });

  it('--check of a file that changes in thousands of lines says so in place of the diff (a diff of them cost minutes)', { timeout: 30_000 }, async () => {
    const websites = Array.from({ length: 12_000 }, (_, i) => `  - domain: w${i}.example\n    privacy: private\n`).join('');
    await write('sitesync.yaml', `version: 1\nwebsites:\n${websites}`);
    const r = await fmt(['--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '--- sitesync.yaml\n+++ sitesync.yaml\n(more than 1,000 lines change: the diff is not shown; sitesync fmt writes them, and git diff shows them)\n',
    );
    expect(r.stderr).toBe('sitesync.yaml is not formatted; run: sitesync fmt\n');
  });

  it('a value with an invisible character is written with its \\u escape, never the character itself; a comment keeps what it holds', async () => {
    const family = '\u{1F468}\u200D\u{1F469}';
    await write('sitesync.yaml', `version: 1 # ${family}\nwebsites:\n  - domain: a.example\n    exclude_params: ["x\\u200by", tab\u200Bhere]\n`);
    expect((await fmt([])).code).toBe(0);
    const text = await read('sitesync.yaml');
    expect(text).toBe(`version: 1 # ${family}\nwebsites:\n  - domain: a.example\n    exclude_params:\n      - "x\\u200by"\n      - "tab\\u200bhere"\n`);
    expect(parse(text).websites[0].exclude_params).toEqual(['x\u200By', 'tab\u200Bhere']);
    expect((await fmt(['--check'])).code).toBe(0);
  });

  it('--check exits 0 when every file is formatted', async () => {
    await write('sitesync.yaml', FORMATTED);
    const r = await fmt(['--check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('sitesync.yaml is already formatted\n');
    expect(r.stderr).toBe('');
  });

  it('--sort puts the websites in domain order', async () => {
    await write('sitesync.yaml', FORMATTED);
    const r = await fmt(['--sort']);
    expect(r.code).toBe(0);
    expect(await read('sitesync.yaml')).toBe('version: 1 # the format\nwebsites:\n  - domain: a.example\n\n  - domain: b.example\n    privacy: private\n');
  });

  it('formats the files an account includes, relative to the including file; --check names them', async () => {
    await write(
      'config/sitesync.yaml',
      'version: 1\naccounts:\n  acme:\n    base_url: https://stats.acme.example\n    include: ["clients/acme/*.yaml"]\n    websites: [{domain: acme.example}]\n',
    );
    await write('config/clients/acme/shop.yaml', 'websites: [{domain: shop.acme.example, email: true}]\n');
    await write('config/clients/acme/blog.yaml', 'websites:\n  - domain: blog.acme.example\n');
    const check = await fmt(['--check', 'config/sitesync.yaml']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('config/clients/acme/blog.yaml is already formatted\n');
    expect(check.stdout).toContain('--- config/clients/acme/shop.yaml\n');
    expect(check.stderr).toBe(
      '2 files are not formatted (config/sitesync.yaml, config/clients/acme/shop.yaml); run: sitesync fmt config/sitesync.yaml\n',
    );
    const r = await fmt(['config/sitesync.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'Formatted config/sitesync.yaml\nconfig/clients/acme/blog.yaml is already formatted\nFormatted config/clients/acme/shop.yaml\n',
    );
    expect(await read('config/clients/acme/shop.yaml')).toBe('websites:\n  - domain: shop.acme.example\n    email: true\n');
    expect(await read('config/sitesync.yaml')).toContain('    include:\n      - "clients/acme/*.yaml"\n    websites:\n      - domain: acme.example\n');
  });

  it('a file that is not YAML: FILE:LINE:COL, exit 1, and no file is written', async () => {
    await write('sitesync.yaml', 'version: 1\ninclude: [more.yaml]\nwebsites: [{domain: a.example}]\n');
    await write('more.yaml', 'websites:\n  - domain: [b.example\n');
    const r = await fmt([]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^more\.yaml:3:1: YAML: /m);
    expect(await read('sitesync.yaml')).toBe('version: 1\ninclude: [more.yaml]\nwebsites: [{domain: a.example}]\n');
  });

  it('keeps CRLF line endings and a byte-order mark; --check of a formatted CRLF file passes', async () => {
    await write('sitesync.yaml', `\ufeff${MESSY.replace(/\n/g, '\r\n')}`);
    const r = await fmt([]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Formatted sitesync.yaml\n');
    const bytes = await readFile(join(dir, 'sitesync.yaml'));
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.toString('utf8')).toBe(`\ufeff${FORMATTED.replace(/\n/g, '\r\n')}`);
    const check = await fmt(['--check']);
    expect(check.stdout).toBe('sitesync.yaml is already formatted\n');
    expect(check.code).toBe(0);
    await write('crlf.yaml', FORMATTED.replace(/\n/g, '\r\n'));
    expect((await fmt(['--check', 'crlf.yaml'])).code).toBe(0);
  });

  it('anchors and aliases: fmt, then fmt --check passes, with and without --sort; an order --sort cannot give is said, not claimed', async () => {
    const text = [
      'version: 1',
      'defaults: &defaults',
      '  exclude_params: [utm_source]',
      'websites:',
      '  - domain: zeta.example',
      '    exclude_ips: &office [203.0.113.7]',
      '  - domain: alpha.example',
      '    exclude_ips: *office',
      '  - domain: mid.example',
      '    exclude_params: *defaults',
      '',
    ].join('\n');
    for (const sort of [[], ['--sort']]) {
      await write('sitesync.yaml', text);
      const r = await fmt(sort);
      expect(r.code, r.stderr).toBe(0);
      const formatted = await read('sitesync.yaml');
      expect(formatted).not.toMatch(/^[ \t]+$/m);
      expect(parse(formatted)).toEqual(parse(text));
      const check = await fmt(['--check', ...sort]);
      expect(check.stdout + check.stderr, sort.join()).toContain('sitesync.yaml is already formatted');
      expect(check.code).toBe(0);
      if (sort.length) {
        expect(r.stdout).toBe('Formatted sitesync.yaml, its websites left in their order (not sorted)\n');
        expect(r.stderr).toContain('Note: sitesync.yaml: --sort left its websites in their order: alpha.example uses *office, whose anchor is in zeta.example');
      } else {
        expect(r.stdout).toBe('Formatted sitesync.yaml\n');
        expect(r.stderr).toBe('');
      }
    }
  });

  it('a missing file is named', async () => {
    const r = await fmt(['nope.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nope.yaml: no such file');
  });

  it('the examples in the repository are formatted (CI runs fmt --check on them)', async () => {
    const examples = (await readdir(join(root, 'examples'))).filter((f) => f.endsWith('.yaml')).map((f) => `examples/${f}`);
    expect(examples).toContain('examples/sitesync.yaml');
    const r = await runCli(['fmt', '--check', ...examples], { cwd: root });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
