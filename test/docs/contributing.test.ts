/**
 * docs/contributing.md's map of the source tree stays true: it names every folder of src/, and
 * every file it names is where it says (a folder's line and the lines under it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { codeBlocks, section, page } from '../helpers/docs.js';

/** The map: each top-level entry (`  name/`, `  name.ts`, `schemas/`) with the text written beside and under it. */
function entries(): Array<{ folder: string; text: string }> {
  const map = codeBlocks(section(page('docs/contributing.md'), 'The source tree'), '')[0] ?? codeBlocks(section(page('docs/contributing.md'), 'The source tree'), 'text')[0];
  if (!map) throw new Error('docs/contributing.md: no map under "The source tree"');
  const out: Array<{ folder: string; text: string }> = [];
  let under = '';
  for (const line of map.split('\n')) {
    const top = /^(\S+\/)\s/.exec(line) ?? /^(\S+\/)$/.exec(line);
    const inSrc = /^ {2}(\S+)\s/.exec(line);
    if (top) under = top[1]!;
    if (top || inSrc) out.push({ folder: inSrc ? join(under, inSrc[1]!) : under, text: line.replace(/^\s*\S+/, '') });
    else if (out.length) out.at(-1)!.text += ` ${line}`;
  }
  return out;
}

describe("docs/contributing.md's map of src/", () => {
  it('names every folder of src/', () => {
    const named = new Set(entries().map((e) => e.folder.replace(/\/$/, '')));
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}`);
    expect(folders.filter((f) => !named.has(f))).toEqual([]);
  });

  it('every file it names exists where it says', () => {
    const missing: string[] = [];
    let count = 0;
    for (const { folder, text } of entries()) {
      const dir = /\.ts$/.test(folder) ? folder.replace(/[^/]+$/, '') : folder;
      if (/\.ts$/.test(folder)) {
        count++;
        if (!existsSync(join(root, folder))) missing.push(folder);
      }
      for (const m of text.matchAll(/(?<![\w./-])([a-z][\w-]*\.(?:ts|json))\b/g)) {
        count++;
        if (!existsSync(join(root, dir, m[1]!))) missing.push(`${join(dir, m[1]!)} (named under ${folder})`);
      }
    }
    expect(missing).toEqual([]);
    expect(count).toBeGreaterThan(60);
  });
});

/** Every test file, by path from test/, with its text. */
function testFiles(dir = join(root, 'test'), prefix = ''): Array<{ path: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(join(dir, entry.name), `${prefix}${entry.name}/`);
    return entry.name.endsWith('.ts') ? [{ path: `${prefix}${entry.name}`, text: readFileSync(join(dir, entry.name), 'utf8') }] : [];
  });
}

describe('the tests of a worker share one module graph (vitest.config.ts: isolate: false)', () => {
  it('so none mocks a module, writes process.env, changes folder or fakes timers', () => {
    const shared = [/\bvi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers)\(/, /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]/, /\bdelete process\.env\b/, /\bprocess\.chdir\(/];
    const found = testFiles().flatMap(({ path, text }) => shared.filter((pattern) => pattern.test(text)).map((pattern) => `${path}: ${pattern}`));
    expect(found).toEqual([]);
    expect(readFileSync(join(root, 'vitest.config.ts'), 'utf8')).toMatch(/isolate: false/);
  });
});
