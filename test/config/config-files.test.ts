/** How the CLI reads `-c FILE` and `--baseline FILE`: pipes, size cap, and what a missing one says. */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, cleanEnv, runCli, runCliHere } from '../helpers/cli.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const CONFIG = `version: 1
websites:
  - domain: example.com
    privacy: password
    password: \${SITE_PW}
`;

async function seeded(): Promise<Scenario> {
  s = await scenario();
  s.emu.seed(KEY, [{ domain: 'example.com', privacy: 2, email: 0, exclude_bots: 1, password: 'old-secret-1' }]);
  await s.write(CONFIG);
  s.emu.resetStats();
  return s;
}

/** A named pipe that yields `text` once a reader opens it, as `<(git show …)` does. */
function fifoWith(dir: string, text: string): string {
  const path = join(dir, 'baseline.fifo');
  execFileSync('mkfifo', [path]);
  const writer = createWriteStream(path);
  writer.on('error', () => {});
  writer.end(text);
  return path;
}

describe('-c and --baseline read pipes, as plan --help shows', () => {
  it('plan --baseline from a named pipe (process substitution) sends the changed password', async () => {
    const sc = await seeded();
    const baseline = fifoWith(sc.dir, CONFIG.replace('${SITE_PW}', '${OLD_SITE_PW}'));
    const r = await sc.cli(['plan', '--baseline', baseline], { env: { SITE_PW: 'new-secret-2' }, process: true });
    expect(r.stderr).not.toContain('not a regular file');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('~ update example.com (id 1)');
    expect(r.stdout).not.toContain('new-secret-2');
    expect(writes(sc.emu)).toEqual([]);
  });

  it('a piped --baseline that includes files says to give its folder, and writes nothing', async () => {
    const sc = await seeded();
    const baseline = fifoWith(sc.dir, 'version: 1\ninclude: [sites/*.yaml]\nwebsites: []\n');
    const r = await sc.cli(['plan', '--baseline', baseline], { env: { SITE_PW: 'new-secret-2' }, process: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${baseline}:2:11: include "sites/*.yaml": this file was read from a pipe or standard input, which has no folder to find included files in; give the file in its folder (or read it and its includes from git: --baseline-ref origin/main)`,
    );
    expect(writes(sc.emu)).toEqual([]);
  });

  it('validate -c /dev/stdin < FILE that includes files says to give the file in its folder, not that globs are relative to /dev', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-stdin-'));
    try {
      await mkdir(join(dir, 'sites'));
      await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\ninclude: [sites/*.yaml]\nwebsites: []\n');
      await writeFile(join(dir, 'sites', 'a.yaml'), 'websites:\n  - domain: a.example.com\n');
      // As a user types it: the shell opens the file as standard input, and stat sees a regular file.
      const r = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" validate -c /dev/stdin < sitesync.yaml`], { cwd: dir, encoding: 'utf8', env: cleanEnv() });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(
        '/dev/stdin:2:11: include "sites/*.yaml": this file was read from a pipe or standard input, which has no folder to find included files in; give the file in its folder (with the files it includes)',
      );
      expect(r.stderr).not.toContain('relative to /dev');
      const inFolder = spawnSync(process.execPath, [bin, 'validate', '-c', 'sitesync.yaml'], { cwd: dir, encoding: 'utf8', env: cleanEnv() });
      expect(inFolder.stdout).toBe('✓ sitesync.yaml is valid: 1 website, 1 included file.\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an include of the file\'s own folder, written as an absolute path, matches no file (validate and fmt), not an internal error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-own-folder-'));
    try {
      await writeFile(join(dir, 'sitesync.yaml'), `version: 1\ninclude: ["${dir}", "${dir}/."]\nwebsites: []\n`);
      const validate = await runCliHere(['validate'], { cwd: dir });
      expect(validate.stderr).toContain(`sitesync.yaml:2:11: include "${dir}" matches no file (globs are relative to ${dir})`);
      expect(validate.stderr).toContain(`include "${dir}/." matches no file`);
      expect(validate.code).toBe(1);
      const fmt = await runCliHere(['fmt', '--check'], { cwd: dir });
      // fmt walks includes with the loader's walker and rules: a glob that matches no file is an error there too.
      expect(fmt.stderr).toContain(`sitesync.yaml:2:11: include "${dir}" matches no file (globs are relative to ${dir})`);
      expect(fmt.code).toBe(1);
      expect(`${validate.stderr}${fmt.stderr}`).not.toContain('Internal error');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('validate -c /dev/stdin reads the file from standard input', async () => {
    const r = await runCli(['validate', '-c', '/dev/stdin'], { input: 'version: 1\nwebsites:\n  - domain: a.example.com\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('/dev/stdin is valid: 1 website.');
  });

  it('plan -c /dev/stdin plans the file from standard input', async () => {
    const sc = await seeded();
    const r = await sc.cli(['plan', '-c', '/dev/stdin'], { input: CONFIG, env: { SITE_PW: 'x-secret-3' }, process: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(1 unchanged, 0 unmanaged)');
  });

  it('an endless device is cut off at 16 MiB while reading, not read to the end', async () => {
    const r = await runCliHere(['validate', '-c', '/dev/zero']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('/dev/zero: the file is more than 16 MiB; a config file may be at most 16 MiB');
  });
});

describe('a missing file says what it should be', () => {
  it('a missing --baseline says what a baseline is, not to export one', async () => {
    const sc = await seeded();
    const r = await sc.cli(['plan', '--baseline', 'base.yaml'], { env: { SITE_PW: 'x-secret-4' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('base.yaml: no such file (a baseline is the config as it was before your change');
    expect(r.stderr).toContain('--baseline-ref origin/main reads it and its includes from git');
    expect(r.stderr).not.toContain('export');
  });

  it('a missing -c file still suggests starting from export', async () => {
    const r = await runCliHere(['validate', '-c', 'nope.yaml']);
    expect(r.stderr).toContain('nope.yaml: no such file (write one, or start from the live account: sitesync export -o FILE)');
  });
});

describe('a hostile file gets a FILE:LINE:COL message, never an internal error', () => {
  it('3,500 nested lists: validate points at the first level too deep', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-deep-'));
    try {
      const file = join(dir, 'deep.yaml');
      await writeFile(file, `version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: ${'['.repeat(3500)}${']'.repeat(3500)}\n`);
      const r = await runCliHere(['validate', '-c', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${file}:4:82: the file nests more than 64 levels deep here; a config file needs 4`);
      expect(r.stderr).not.toMatch(/Internal error|call stack/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Runs `fn` in a new folder of its own, removed afterwards. */
async function inNewFolder(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sitesync-hostile-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A test that reads 4,000,000 YAML tokens, the cap, to see it refused: 2 to 7 s of CPU on a quiet
 * machine (yaml's lexer takes about 1 µs a token, its parser as much again), by nature. A machine
 * running two suites side by side gives it a fraction of a core: it may take minutes there.
 */
const READS_THE_TOKEN_CAP = { timeout: 240_000 };

describe('a file under the size cap that would take gigabytes to read', () => {
  it('16 MiB of `x: [1,1,1,…]` is refused at the token past the limit, by validate and fmt, without reading it into memory', READS_THE_TOKEN_CAP, () =>
    inNewFolder(async (dir) => {
      const file = join(dir, 'many.yaml');
      await writeFile(file, `x: [${'1,'.repeat(8 * 1024 * 1024 - 4)}1]\n`);
      for (const args of [['validate', '-c', file], ['fmt', '--check', file]]) {
        const r = await runCliHere(args);
        expect(r.code, r.stderr).toBe(1);
        // 4,000,000 tokens: `x`, `:`, ` `, `[`, then a value and a comma each (two lexer tokens a value).
        expect(r.stderr).toContain(`${file}:1:2666667: the file holds more than 4,000,000 YAML tokens`);
        expect(r.stderr).not.toMatch(/Internal error|heap|allocation/i);
      }
    }));

  it('a flood of line breaks is refused the same way, at its line', READS_THE_TOKEN_CAP, () =>
    inNewFolder(async (dir) => {
      const file = join(dir, 'blank.yaml');
      await writeFile(file, `version: 1\nwebsites: []\n${'\n'.repeat(4_100_000)}`);
      const r = await runCliHere(['validate', '-c', file]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.]/g, '\\.')}:\\d+:1: the file holds more than 4,000,000 YAML tokens`));
    }));
});

describe('a config and the files it includes hold at most what one file may, together', () => {
  const workspace = async (dir: string, files: string[]) => {
    await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\ninclude: ["sites/*.yaml"]\nwebsites: []\n');
    await mkdir(join(dir, 'sites'));
    for (const [i, text] of files.entries()) await writeFile(join(dir, 'sites', `s${i}.yaml`), text);
    return runCliHere(['validate'], { cwd: dir });
  };

  it('in YAML tokens: three files of 1.5 million each are refused at the third, where the 4,000,000 run out; nothing after it is read', READS_THE_TOKEN_CAP, () =>
    inNewFolder(async (dir) => {
      // Each file alone is under the cap; a thousand of them would take a thousand times as long.
      const r = await workspace(dir, Array.from({ length: 4 }, (_, i) => `websites:\n  - domain: s${i}.example.com\n${'\n'.repeat(1_500_000)}`));
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/sites\/s2\.yaml:\d+:1: the files read before this one hold 3,0\d\d,\d{3} YAML tokens, and this one more than 99\d,\d{3} by here: more than 4,000,000 together/);
      expect(r.stderr).not.toContain('s3.yaml');
      expect(r.stderr).toContain('1 problem found.');
    }));

  it('in bytes: three files of 6 MiB are refused at the include that reaches past 16 MiB', () =>
    inNewFolder(async (dir) => {
      const r = await workspace(dir, Array.from({ length: 3 }, () => `# ${'x'.repeat(6 * 1024 * 1024)}\nwebsites: []\n`));
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('sitesync.yaml:2:11: include "sites/*.yaml": with ');
      expect(r.stderr).toContain('sites/s2.yaml, the config and the files it includes hold more than 16 MiB together, more than any config (100,000 websites take at most about 15 MiB); nothing more is read');
    }));
});

describe('patterns: every website is tested against every pattern with "*"', () => {
  it('a list of more than 1,000 is an error at the first one too many (6,000 against 60,000 websites took minutes); names written out in full, any number', () =>
    inNewFolder(async (dir) => {
      const list = (key: string, n: number, glob: (i: number) => string) => [`${key}:`, ...Array.from({ length: n }, (_, i) => `  - "${glob(i)}"`)];
      const file = (lines: string[]) => ['version: 1', ...lines, 'websites:', ...Array.from({ length: 2000 }, (_, i) => `  - domain: site-${i}.example.com`), ''].join('\n');
      await writeFile(join(dir, 'sitesync.yaml'), file([...list('ignore', 1001, (i) => `*a*${i}.example.org`), ...list('password_env', 1001, (i) => `X_*${i}`)]));
      const r = await runCliHere(['validate'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('sitesync.yaml:1003:5: ignore[1000]: more than 1,000 patterns with "*" in one list (names written out in full, any number): each website is tested against each of them');
      expect(r.stderr).toContain('password_env[1000]: more than 1,000 patterns with "*" in one list');
      expect(r.stderr).toContain('2 problems found.');
      // Names written out are found by a lookup: as many as a file holds.
      await writeFile(join(dir, 'sitesync.yaml'), file([...list('retire', 20_000, (i) => `gone-${i}.example.org`), ...list('ignore', 1000, (i) => `*a*${i}.example.org`)]));
      expect((await runCliHere(['validate'], { cwd: dir })).code).toBe(0);
    }));
});

describe('an entry holding a carriage return', () => {
  it('is refused before anything is written, rather than stored as two entries that every later plan would change again', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_ips: ["203.0.113.7\\r0.0.0.0/0"]\n');
    s.emu.resetStats();
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml:4:19: websites[0].exclude_ips[0] holds a carriage return (U+000D) at character 12');
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.websites(KEY)[0]!.exclude_ips).toBeFalsy();
  });
});

describe('a large file', () => {
  /** About 4,000 websites. */
  const big = (bad?: number) =>
    `version: 1\nwebsites:\n${Array.from({ length: 4000 }, (_, i) => `  - domain: site-${i}.example.com\n    privacy: ${i === bad ? 'privat' : 'private'}\n`).join('')}`;

  it('plan of a large file finds what to create, as for a small one', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'site-0.example.com', privacy: 1, email: 0, exclude_bots: 1 }]);
    await s.write(big());
    const r = await s.cli(['plan', '--detailed-exitcode']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Plan: 3999 to create, 0 to update, 0 to delete (1 unchanged, 0 unmanaged).');
  });

  it('an error in a large file is FILE:LINE:COL, and nothing is written', async () => {
    s = await scenario();
    await s.write(big(2500));
    s.emu.resetStats();
    const r = await s.cli(['plan']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`sitesync.yaml:${3 + 2 * 2500 + 1}:14: websites[2500].privacy must be public, private or password (or 0, 1, 2), not "privat"`);
    expect(r.stderr).not.toContain('Internal error');
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('include: stays inside the repository holding the config', () => {
  it('a folder linked from outside, a ../ glob and an absolute path outside are refused at the include, and nothing of those files is read or written', async () => {
    const top = await mkdtemp(join(tmpdir(), 'sitesync-include-'));
    try {
      const repo = join(top, 'repo');
      await mkdir(join(repo, '.git'), { recursive: true });
      await mkdir(join(top, 'outside'));
      const secret = 'ghp_OUTSIDE_VALUE_123';
      const outsideText = `websites:\n  - domain: x.example.com\n    privacy: ${secret}\n`;
      await writeFile(join(top, 'outside/x.yaml'), outsideText);
      await symlink(join(top, 'outside'), join(repo, 'linked'));
      for (const include of ['linked/*.yaml', '../outside/*.yaml', join(top, 'outside/*.yaml')]) {
        await writeFile(join(repo, 'sitesync.yaml'), `version: 1\ninclude: ["${include}"]\nwebsites: []\n`);
        for (const args of [['validate'], ['fmt'], ['fmt', '--check']]) {
          const r = await runCliHere(args, { cwd: repo });
          expect(r.code, `${include}: ${args.join(' ')}`).toBe(1);
          expect(r.stdout + r.stderr).toContain('outside the repository');
          expect(r.stdout + r.stderr).not.toContain(secret);
        }
      }
      expect(await readFile(join(top, 'outside/x.yaml'), 'utf8')).toBe(outsideText);
      // Inside the repository, an absolute path is fine, and so is a subfolder.
      await mkdir(join(repo, 'clients'));
      await writeFile(join(repo, 'clients/a.yaml'), 'websites:\n  - domain: a.example.com\n');
      await writeFile(join(repo, 'sitesync.yaml'), `version: 1\ninclude: ["${join(repo, 'clients/*.yaml')}"]\nwebsites: []\n`);
      const ok = await runCliHere(['validate'], { cwd: repo });
      expect(ok.stdout).toContain('1 website, 1 included file');
      expect(ok.code).toBe(0);
    } finally {
      await rm(top, { recursive: true, force: true });
    }
  });

  it('the .git folder is refused by any name a case-insensitive file system reads as it (.GIT, .Git, .git., GIT~1)', () =>
    inNewFolder(async (top) => {
      const repo = join(top, 'repo');
      await mkdir(join(repo, '.git'), { recursive: true });
      for (const folder of ['.GIT', '.Git', '.git.', 'GIT~1']) {
        // (This file system tells them apart: each is a folder of its own here.)
        await mkdir(join(repo, folder), { recursive: true });
        await writeFile(join(repo, folder, 'config.yaml'), 'websites:\n  - domain: git.example.com\n');
      }
      for (const include of ['.GIT/*.yaml', '.Git/config.yaml', '.git./config.yaml', 'GIT~1/*.yaml', './.GIT/../.GIT/config.yaml']) {
        await writeFile(join(repo, 'sitesync.yaml'), `version: 1\ninclude: ["${include}"]\nwebsites: []\n`);
        const r = await runCliHere(['validate'], { cwd: repo });
        expect(r.code, include).toBe(1);
        expect(r.stderr, include).toContain('(or in its .git folder)');
        expect(r.stdout + r.stderr).not.toContain('git.example.com');
      }
    }));

  it("the .git folder and a config file that is a link out are refused, naming nothing out there; a glob follows no link (to a file outside, or to / under a **)", async () => {
    const top = await mkdtemp(join(tmpdir(), 'sitesync-include-'));
    try {
      const repo = join(top, 'repo');
      await mkdir(join(repo, '.git'), { recursive: true });
      await writeFile(join(repo, '.git/config.yaml'), 'websites:\n  - domain: git.example.com\n');
      await mkdir(join(repo, 'clients/deep'), { recursive: true });
      await writeFile(join(repo, 'clients/a.yaml'), 'websites:\n  - domain: a.example.com\n');
      await writeFile(join(top, 'outside.yaml'), 'websites:\n  - domain: OUTSIDE_TEXT\n');
      await symlink(join(top, 'outside.yaml'), join(repo, 'clients/deep/linked.yaml'));
      await writeFile(join(repo, 'sitesync.yaml'), 'version: 1\ninclude: [".git/*.yaml"]\nwebsites: []\n');
      const git = await runCliHere(['validate'], { cwd: repo });
      expect(git.code).toBe(1);
      expect(git.stderr).toContain('.git folder');
      expect(git.stderr).not.toContain('git.example.com');
      // Links are not followed by a glob: neither the file linked from outside nor a link to /
      // under a ** (which would walk the machine) is read.
      await symlink('/', join(repo, 'clients/deep/root'));
      await writeFile(join(repo, 'sitesync.yaml'), 'version: 1\ninclude: ["clients/**/*.yaml"]\nwebsites: []\n');
      const ok = await runCliHere(['validate'], { cwd: repo });
      expect(ok.stdout).toContain('1 website, 1 included file');
      expect(ok.stdout + ok.stderr).not.toContain('OUTSIDE_TEXT');
      // The config file itself a link to a file outside: refused before it is read.
      await writeFile(join(top, 'secret.yaml'), 'version: 1\nwebsites:\n  - domain: OUTSIDE_TEXT\n');
      await rm(join(repo, 'sitesync.yaml'));
      await symlink(join(top, 'secret.yaml'), join(repo, 'sitesync.yaml'));
      const linked = await runCliHere(['validate'], { cwd: repo });
      expect(linked.code).toBe(1);
      expect(linked.stderr).toContain('symbolic link');
      expect(linked.stderr).not.toContain('OUTSIDE_TEXT');
      // fmt neither shows it (--check's diff) nor writes it, nor leaves a lock out there.
      const before = await readFile(join(top, 'secret.yaml'), 'utf8');
      for (const args of [['fmt', '--check', 'sitesync.yaml'], ['fmt', 'sitesync.yaml']]) {
        const r = await runCliHere(args, { cwd: repo });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stdout + r.stderr).toContain('symbolic link');
        expect(r.stdout + r.stderr).not.toContain('OUTSIDE_TEXT');
      }
      expect(await readFile(join(top, 'secret.yaml'), 'utf8')).toBe(before);
      expect((await readdir(top)).filter((f) => f.includes('sitesync-lock'))).toEqual([]);
    } finally {
      await rm(top, { recursive: true, force: true });
    }
  });
});
