/** Editing a file in place: one run at a time (withFileLocks), never over another program's change (replaceIfUnchanged); a file of its own never through a link (writeNewChecked). */
import { lstat, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FILE_CHANGED, IS_A_LINK, lockPath, replaceIfUnchanged, withFileLocks, writeNewChecked } from '../../src/io/files.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-lock-'));
  file = join(dir, 'sitesync.yaml');
  await writeFile(file, 'version: 1\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('withFileLocks', () => {
  it('runs edits of one file one after the other, each reading what the one before wrote', async () => {
    const append = (line: string) =>
      withFileLocks([file], async () => {
        const text = await readFile(file, 'utf8');
        await pause(20); // a read-modify-write with time in it: unlocked, the edits would overwrite each other
        await writeFile(file, `${text}${line}\n`);
      });
    await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map(append));
    expect((await readFile(file, 'utf8')).split('\n').slice(1, -1).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(await readdir(dir)).toEqual(['sitesync.yaml']);
  });

  it('gives up after waiting, naming the process that holds the lock and the lock to remove', async () => {
    await writeFile(lockPath(file), `${process.pid} ${hostname()}\n`);
    const started = Date.now();
    await expect(withFileLocks([file], async () => 'edited', { waitMs: 300, shown: () => 'sitesync.yaml' })).rejects.toThrow(
      `sitesync.yaml: another sitesync (process ${process.pid}) is editing this file; waited 300 ms, nothing was written. If no sitesync is running, remove .sitesync.yaml.sitesync-lock`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('takes over the lock of a process that is gone, and of one left half-written long ago; removes its own however the edit ends', async () => {
    await writeFile(lockPath(file), `999999999 ${hostname()}\n`);
    expect(await withFileLocks([file], async () => 'edited')).toBe('edited');
    await writeFile(lockPath(file), '');
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lockPath(file), minuteAgo, minuteAgo);
    expect(await withFileLocks([file], async () => 'edited again', { waitMs: 1000 })).toBe('edited again');
    await expect(
      withFileLocks([file], async () => {
        throw new Error('failed half way');
      }),
    ).rejects.toThrow('failed half way');
    expect(await readdir(dir)).toEqual(['sitesync.yaml']);
  });
});

describe('replaceIfUnchanged', () => {
  it('replaces the file that still holds what was read', async () => {
    await replaceIfUnchanged(file, 'version: 1\n', 'version: 1\nwebsites: []\n');
    expect(await readFile(file, 'utf8')).toBe('version: 1\nwebsites: []\n');
  });

  it('writes nothing over a change made since it was read (a byte-order mark counts), and leaves no temporary file', async () => {
    await writeFile(file, '\ufeffversion: 1\n');
    const attempt = replaceIfUnchanged(file, 'version: 1\n', 'version: 1\nwebsites: []\n');
    await expect(attempt).rejects.toMatchObject({ code: FILE_CHANGED });
    expect(await readFile(file, 'utf8')).toBe('\ufeffversion: 1\n');
    expect(await readdir(dir)).toEqual(['sitesync.yaml']);
  });
});

describe('writeNewChecked', () => {
  it('never writes through a symbolic link that appeared where its file goes (after the name was chosen): an error, the file it names untouched, no temporary left', async () => {
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'precious\n');
    const archive = join(dir, 'site-1-2026-11-26.json');
    await symlink(victim, archive);
    await expect(writeNewChecked(archive, '{}\n')).rejects.toMatchObject({ code: IS_A_LINK });
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
    expect((await lstat(archive)).isSymbolicLink()).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['site-1-2026-11-26.json', 'sitesync.yaml', 'victim.txt']);
  });

  it('writes a file of its own, and reads it back', async () => {
    const archive = join(dir, 'site-1-2026-11-26.json');
    await writeNewChecked(archive, '{"a":1}\n', (back) => (JSON.parse(back).a === 1 ? undefined : 'not an archive'));
    expect(await readFile(archive, 'utf8')).toBe('{"a":1}\n');
  });

  it('never replaces a file that is there, nor one written at the same moment: of two writers of one name, one wins, the other is told EEXIST', async () => {
    const archive = join(dir, 'site-1-2026-11-26.json');
    await writeFile(archive, 'first\n');
    await expect(writeNewChecked(archive, 'second\n')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(archive, 'utf8')).toBe('first\n');
    const race = join(dir, 'site-2-2026-11-26.json');
    const results = await Promise.allSettled([writeNewChecked(race, 'a\n'), writeNewChecked(race, 'b\n')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const won = results[0]!.status === 'fulfilled' ? 'a\n' : 'b\n';
    expect(await readFile(race, 'utf8')).toBe(won);
    expect((await readdir(dir)).sort()).toEqual(['site-1-2026-11-26.json', 'site-2-2026-11-26.json', 'sitesync.yaml']);
  });
});
