/**
 * No warning repeats on every run without a way to act on it (issue 39, item 6): a live pair
 * `lumen-dental.com` and `lumen-dental.com.` is named under ignore: by its other spelling, which
 * leaves that twin alone knowingly and stops the warning; a retire: line whose website is gone
 * says to remove it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const writes = (sc: Scenario) => sc.emu.stats.log.filter((l) => l.method !== 'GET');

describe('a live pair of one website, and the ignore: that names the other spelling', () => {
  it('warns until the file names the twin; then validate, plan and plan --prune are quiet, and the twin is never touched', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'lumen-dental.com' }, { domain: 'lumen-dental.com.' }]);
    await s.write('version: 1\nwebsites:\n  - domain: lumen-dental.com\n');
    const before = await s.cli(['plan']);
    expect(before.stdout).toContain('the service holds lumen-dental.com twice');

    await s.write('version: 1\nignore: ["lumen-dental.com."]\nwebsites:\n  - domain: lumen-dental.com\n');
    const valid = await s.cli(['validate']);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    s.emu.resetStats();
    for (const args of [['plan'], ['plan', '--prune'], ['apply', '--prune', '--auto-approve']]) {
      const r = await s.cli(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain('twice');
      expect(r.stdout).toContain('0 to create, 0 to update, 0 to delete');
    }
    expect(writes(s)).toEqual([]);
    expect(s.emu.websites(KEY).map((w) => w.domain).sort()).toEqual(['lumen-dental.com', 'lumen-dental.com.']);
  });

  it('an ignore: that names the listed spelling itself is still an error', async () => {
    s = await scenario();
    await s.write('version: 1\nignore: ["lumen-dental.com"]\nwebsites:\n  - domain: lumen-dental.com\n');
    const r = await s.cli(['validate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"lumen-dental.com" is listed at line 4 but ignored by "lumen-dental.com" at line 2: remove one of them');
  });
});

describe('a retire: line whose website is gone', () => {
  it('says how to act on it: remove the line', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'keep.example.com' }]);
    await s.write('version: 1\nretire: ["old.example.com"]\nwebsites:\n  - domain: keep.example.com\n');
    const r = await s.cli(['plan']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('retire: "old.example.com" (line 2) matches no live website: a typo? If its website is deleted, the line has done its work: remove it');
  });
});
