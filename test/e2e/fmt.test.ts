/** `sitesync fmt` as users run it: writes in place, --check writes nothing and shows a diff, included files too. */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-fmt-'));
  await mkdir(join(dir, 'clients'));
  await writeFile(
    join(dir, 'sitesync.yaml'),
    '# yaml-language-server: $schema=./schema.json\nwebsites:\n  - {domain: a.example, email: true}  # the shop\nversion: 1\ninclude: [clients/*.yaml]\n',
  );
  await writeFile(join(dir, 'clients/b.yaml'), 'websites:\n- exclude_params: [ref]\n  domain: b.example\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fmt = (args: string[]) => runCli(['fmt', ...args], { cwd: dir });

describe('sitesync fmt', () => {
  it('--check writes nothing, prints a unified diff of every file (included ones too) and exits 1', async () => {
    const r = await fmt(['--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('--- sitesync.yaml\n+++ sitesync.yaml');
    expect(r.stdout).toContain('--- clients/b.yaml\n+++ clients/b.yaml');
    expect(r.stdout).toContain('+include:\n+  - clients/*.yaml');
    expect(r.stderr).toContain('2 files are not formatted: run sitesync fmt sitesync.yaml');
    expect(await readFile(join(dir, 'sitesync.yaml'), 'utf8')).toContain('{domain: a.example, email: true}');
  });

  it('formats in place, keeping the comments; a second run and --check find nothing to do; the file still validates', async () => {
    const r = await fmt([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Formatted sitesync.yaml');
    expect(r.stderr).toContain('Formatted clients/b.yaml');
    expect(await readFile(join(dir, 'sitesync.yaml'), 'utf8')).toBe(
      '# yaml-language-server: $schema=./schema.json\n\nversion: 1\ninclude:\n  - clients/*.yaml\nwebsites:\n  # the shop\n  - domain: a.example\n    email: true\n',
    );
    expect(await readFile(join(dir, 'clients/b.yaml'), 'utf8')).toBe('websites:\n  - domain: b.example\n    exclude_params:\n      - ref\n');
    const check = await fmt(['--check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toBe('');
    const validate = await runCli(['validate'], { cwd: dir });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('2 websites, 1 included file');
  });

  it('a file that is not YAML is an error at FILE:LINE:COL, and nothing is written', async () => {
    await writeFile(join(dir, 'bad.yaml'), 'version: 1\nwebsites: [\n');
    const r = await fmt(['bad.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bad\.yaml:\d+:\d+: YAML: /m);
    expect(await readFile(join(dir, 'bad.yaml'), 'utf8')).toBe('version: 1\nwebsites: [\n');
  });
});
