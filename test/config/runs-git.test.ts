import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('git', () => {
  it('is run in one place, io/git.ts: no other file of src/ starts a git process', () => {
    const running = sources(src)
      .filter((file) => /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*['"`]git['"`]/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file).split('\\').join('/'));
    expect(running).toEqual(['io/git.ts']);
  });
});
