/**
 * What sitesync writes (export -o, plan --out, fmt, import) lands in a regular file, or nowhere:
 * a name of standard input or output is refused before any work, and a symbolic link is kept
 * while the file it names is written. Run as root (CI containers), a rename over /dev/stdout
 * replaced it for the whole machine. The tests name descriptors as /proc/self/fd/N, over which
 * no rename can succeed, so that a regression fails here without harming the machine; the
 * /dev spellings are held by the unit test of namesDescriptor.
 */
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { namesDescriptor } from '../../src/io/files.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function seeded(): Promise<Scenario> {
  s = await scenario();
  s.emu.seed(KEY, [{ domain: 'a.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
  await s.write('version: 1\nwebsites:\n  - domain: b.example.com\n');
  s.emu.resetStats();
  return s;
}

describe('where sitesync writes', () => {
  it('names of standard input and output are told apart from files', () => {
    for (const name of ['/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/fd/63', '/proc/self/fd/1', '/proc/thread-self/fd/0', '/proc/4242/fd/0', '/proc/4242/task/4243/fd/1']) {
      expect([name, namesDescriptor(name)]).toEqual([name, true]);
    }
    for (const name of ['/dev/shm/sitesync.yaml', '/dev/null/x', 'fd/1', '/tmp/dev/stdin', '/proc/self/fd', 'sitesync.yaml']) {
      expect([name, namesDescriptor(name)]).toEqual([name, false]);
    }
  });

  it('export -o naming standard output is refused before the account is read, and says to leave out -o', async () => {
    const sc = await seeded();
    for (const force of [[], ['--force']]) {
      const r = await sc.cli(['export', '-o', '/proc/self/fd/1', ...force], { process: true });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('--output /proc/self/fd/1: this is not a regular file (it names standard input or output, a pipe, a device, or a link to none); without --output, the output goes to standard output');
    }
    // A link to nothing is refused before the account is read too, as the write would refuse it.
    await symlink('missing.yaml', join(sc.dir, 'dangling.yaml'));
    const dangling = await sc.cli(['export', '-o', 'dangling.yaml', '--force']);
    expect(dangling.code).toBe(1);
    expect(dangling.stderr).toContain('--output dangling.yaml: this is not a regular file (it names standard input or output, a pipe, a device, or a link to none)');
    expect(sc.emu.stats.requests).toBe(0);
  });

  it('export -o through a symbolic link writes the file it names and keeps the link', async () => {
    const sc = await seeded();
    await mkdir(join(sc.dir, 'real'));
    await writeFile(join(sc.dir, 'real', 'export.yaml'), 'old\n');
    await symlink('real/export.yaml', join(sc.dir, 'export.yaml'));
    const r = await sc.cli(['export', '-o', 'export.yaml', '--force']);
    expect(r.stderr).toContain('Wrote 1 website to export.yaml.');
    expect((await lstat(join(sc.dir, 'export.yaml'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(sc.dir, 'export.yaml'))).toBe('real/export.yaml');
    expect(await readFile(join(sc.dir, 'real', 'export.yaml'), 'utf8')).toContain('- domain: a.example.com');
  });

  it('export -o a name near the 255-byte limit writes it (its temporary name is cut short)', async () => {
    const sc = await seeded();
    const name = `${'e'.repeat(245)}.yaml`;
    const r = await sc.cli(['export', '-o', name]);
    expect(r.code).toBe(0);
    expect(await readFile(join(sc.dir, name), 'utf8')).toContain('- domain: a.example.com');
  });

  it('plan --out into a missing folder or onto standard output is a clear error before the account is read, not an internal one', async () => {
    const sc = await seeded();
    const missing = await sc.cli(['plan', '--out', 'plans/plan.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error: --out plans/plan.json: the folder plans does not exist; create it first\n');
    const stdout = await sc.cli(['plan', '--out', '/proc/self/fd/1'], { process: true });
    expect(stdout.code).toBe(1);
    expect(stdout.stderr).toContain('--out /proc/self/fd/1: this is not a regular file (it names standard input or output, a pipe, a device, or a link to none); --format json prints the plan itself');
    expect(sc.emu.stats.requests).toBe(0);
    // An earlier plan file is replaced, as before: plans are made again and again.
    await writeFile(join(sc.dir, 'plan.json'), '{}');
    const again = await sc.cli(['plan', '--out', 'plan.json']);
    expect(again.stderr).toBe('Saved the plan to plan.json; apply it with: sitesync apply plan.json\n');
  });

  it('fmt of standard input is refused, and fmt --check of it points at the file itself', async () => {
    const sc = await seeded();
    const input = 'version: 1\nwebsites: [{domain: a.example.com}]\n';
    const write = await sc.cli(['fmt', '/proc/self/fd/0'], { input, process: true });
    expect(write.code).toBe(1);
    expect(write.stderr).toContain('fmt /proc/self/fd/0: this is not a regular file (it names standard input or output, a pipe, a device, or a link to none), which sitesync never replaces; nothing was written');
    const check = await sc.cli(['fmt', '--check', '/proc/self/fd/0'], { input, process: true });
    expect(check.code).toBe(1);
    expect(check.stderr).toBe('/proc/self/fd/0 is not formatted; run sitesync fmt on the file itself (standard input cannot be rewritten)\n');
  });

  it('fmt --check of standard input that includes files says it has no folder, as validate does', async () => {
    const sc = await seeded();
    const r = await sc.cli(['fmt', '--check', '/proc/self/fd/0'], { input: 'version: 1\ninclude:\n  - sites/*.yaml\nwebsites: []\n', process: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '/proc/self/fd/0:3:5: include "sites/*.yaml": this file was read from a pipe or standard input, which has no folder to find included files in; give the file in its folder (with the files it includes)',
    );
  });

  it('import -c naming standard input is refused before the account is read', async () => {
    const sc = await seeded();
    const r = await sc.cli(['import', '-c', '/proc/self/fd/0', '--unmanaged'], { input: 'version: 1\nwebsites: []\n', process: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('-c /proc/self/fd/0: import adds the websites to the config file in place; name the file itself, not standard input');
    expect(sc.emu.stats.requests).toBe(0);
    expect(writes(sc.emu)).toEqual([]);
  });
});

describe('export never loses a file', () => {
  it('export -o into a folder that does not exist is a clear error, not an internal one, before any request', async () => {
    s = await scenario();
    s.emu.resetStats();
    const r = await s.cli(['export', '-o', 'missing-dir/x.yaml']);
    expect(r.stderr).toBe('Error: --output missing-dir/x.yaml: the folder missing-dir does not exist; create it first\n');
    expect(r.code).toBe(1);
    expect(s.emu.stats.log).toEqual([]);
  });

  it('an existing output file is not overwritten without --force', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.example.com' }]);
    const file = await s.write('# my hand-written config\nversion: 1\nwebsites: []\n');
    const refused = await s.cli(['export', '-o', 'sitesync.yaml']);
    expect(refused.stderr).toBe('Error: --output sitesync.yaml: the file exists; pass --force to overwrite it\n');
    expect(refused.code).toBe(1);
    expect(await readFile(file, 'utf8')).toBe('# my hand-written config\nversion: 1\nwebsites: []\n');

    const forced = await s.cli(['export', '-o', 'sitesync.yaml', '--force']);
    expect(forced.code).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('  - domain: a.example.com\n');
  });

  it('export --help names --force', async () => {
    s = await scenario();
    const r = await s.cli(['export', '--help'], { process: true });
    expect(r.stdout).toMatch(/--force\s+Overwrite the --output file if it exists/);
  });
});
