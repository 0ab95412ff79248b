/**
 * Run from a subfolder of a config repository (`clients/harbor/`), a command that finds no
 * sitesync.yaml there says where the repository's is, as git finds its repository: up to the
 * folder holding .git (issue 39, item 11).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliHere } from '../helpers/cli.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a config looked for from a subfolder', () => {
  it('names the parent folder whose sitesync.yaml the run should read, and how', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sitesync-upward-'));
    await mkdir(join(dir, '.git'));
    await mkdir(join(dir, 'clients/harbor'), { recursive: true });
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites: []\n');
    const r = await runCliHere(['validate'], { cwd: join(dir, 'clients/harbor') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no such file in ${join(dir, 'clients/harbor')}; a parent folder holds ../../sitesync.yaml: pass -c ../../sitesync.yaml, or run from ../..`);
    expect(r.stderr).not.toContain('export -o');
  });

  it('without one up to the repository top, says where it looked; it looks no higher', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sitesync-upward-'));
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\nwebsites: []\n');
    await mkdir(join(dir, 'repo/.git'), { recursive: true });
    await mkdir(join(dir, 'repo/clients/harbor'), { recursive: true });
    const r = await runCliHere(['validate'], { cwd: join(dir, 'repo/clients/harbor') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no such file (write one, or start from the live account: sitesync export -o FILE); looked in ${join(dir, 'repo/clients/harbor')} and each parent folder up to the repository's top, ${join(dir, 'repo')}`);
  });
});
