/** fmt finds the files a config includes with the loader's own walker, and answers as validate does. */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../helpers/cli.js';

async function inFolder(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sitesync-fmt-includes-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('fmt and include:', () => {
  it('a named file that links out of its repository is refused, said of the name given, and no file is written', () =>
    inFolder({ 'repo/.git/HEAD': '', 'outside.yaml': 'version: 1\nwebsites: [  ]\n', 'repo/ok.yaml': 'version: 1\nwebsites: [  ]\n' }, async (dir) => {
      await symlink(join(dir, 'outside.yaml'), join(dir, 'repo', 'sitesync.yaml'));
      const fmt = await runCliHere(['fmt', 'sitesync.yaml', 'ok.yaml'], { cwd: join(dir, 'repo') });
      expect(fmt.stderr).toContain('sitesync.yaml: this is a symbolic link, and the file it names lies outside the repository: sitesync reads no config there');
      expect(fmt.code).toBe(1);
      expect(await readFile(join(dir, 'outside.yaml'), 'utf8')).toBe('version: 1\nwebsites: [  ]\n');
      expect(await readFile(join(dir, 'repo', 'ok.yaml'), 'utf8')).toBe('version: 1\nwebsites: [  ]\n');
    }));

  it('a glob that matches no file is an error at its line, as validate says it, and nothing is written', () =>
    inFolder({ 'sitesync.yaml': 'version: 1\ninclude: ["clients/*.yaml"]\nwebsites: [{domain: a.example}]\n' }, async (dir) => {
      const validate = await runCliHere(['validate'], { cwd: dir });
      const fmt = await runCliHere(['fmt'], { cwd: dir });
      const said = 'sitesync.yaml:2:11: include "clients/*.yaml" matches no file';
      expect(validate.stderr).toContain(said);
      expect(fmt.stderr).toContain(said);
      expect(fmt.code).toBe(1);
      expect(await readFile(join(dir, 'sitesync.yaml'), 'utf8')).toBe('version: 1\ninclude: ["clients/*.yaml"]\nwebsites: [{domain: a.example}]\n');
    }));

  it('a file included by two accounts is refused by fmt as by validate', () =>
    inFolder(
      {
        'sitesync.yaml': 'version: 1\naccounts:\n  a:\n    base_url: https://a.example\n    api_key_env: A_KEY\n    include: [shared.yaml]\n  b:\n    base_url: https://b.example\n    api_key_env: B_KEY\n    include: [shared.yaml]\n',
        'shared.yaml': 'websites: [{domain: s.example}]\n',
      },
      async (dir) => {
        const fmt = await runCliHere(['fmt', '--check'], { cwd: dir });
        expect(fmt.stderr).toMatch(/^sitesync\.yaml:10:15: include "shared\.yaml": \S*shared\.yaml is already included by account a; a file belongs to one account$/m);
        expect(fmt.code).toBe(1);
      },
    ));

  it('the diff of --check hides a password written in clear, even in an entry whose domain is wrong', () =>
    inFolder({ 'sitesync.yaml': 'version: 1\nwebsites: [{domain: "bad domain", password: hunter2-clear}]\n' }, async (dir) => {
      const fmt = await runCliHere(['fmt', '--check'], { cwd: dir });
      expect(fmt.code).toBe(1);
      expect(fmt.stdout).toContain('--- sitesync.yaml');
      expect(`${fmt.stdout}${fmt.stderr}`).not.toContain('hunter2-clear');
    }));

  it('the diff of --check hides every password written in clear, wherever it stands: defaults, an account, a file that is a list', () =>
    inFolder(
      {
        'sitesync.yaml': 'version: 1\ndefaults:\n    password:   hunter2-defaults\nwebsites:\n  - domain: a.example\n',
        'accounts.yaml': 'version: 1\naccounts:\n  acme:\n    base_url: https://a.example\n    password:   hunter2-account\n    websites: []\n',
        'list.yaml': '- password:   hunter2-list\n',
      },
      async (dir) => {
        for (const file of ['sitesync.yaml', 'accounts.yaml', 'list.yaml']) {
          const fmt = await runCliHere(['fmt', '--check', file], { cwd: dir });
          expect(fmt.code, file).toBe(1);
          expect(fmt.stdout, file).toContain(`--- ${file}`);
          expect(`${fmt.stdout}${fmt.stderr}`, file).not.toMatch(/hunter2-/);
        }
      },
    ));
});
