/**
 * A stranger's config (a pull request's) built to hold a CI job: inputs within the caps
 * (src/caps.ts) whose work grew faster than their size. Each is read in about the time its size
 * takes; before, each took minutes or hours.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/api.js';
import { parseFile } from '../../src/config/parse.js';
import { ConfigError, formatDiagnostic } from '../../src/messages/errors.js';

function problemsOf(text: string): string[] {
  try {
    parseFile(text, 'x.yaml', { env: {} });
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.diagnostics.map(formatDiagnostic);
  }
}

/** `count` lines `kN: 1`: keys of the file's top mapping. */
function keys(count: number): string {
  return Array.from({ length: count }, (_, i) => `k${i}: 1\n`).join('');
}

describe('a mapping of a great many keys', () => {
  /** `{k0, k1, …}`: a flow mapping of `count` keys. */
  const flow = (count: number) => `{${Array.from({ length: count }, (_, i) => `k${i}`).join(', ')}`;

  it('is checked for keys written twice by a lookup, not by comparing each key with every one before it', { timeout: 30_000 }, () => {
    expect(problemsOf(`version: 1\nwebsites: []\nprune: ${flow(100_000)}}\n`)).toEqual(['x.yaml:3:8: prune must be true or false, not a mapping']);
  });

  it('with a key written twice, says where', { timeout: 30_000 }, () => {
    const text = `version: 1\nwebsites: []\nprune: ${flow(100_000)}, k7}\n`;
    expect(problemsOf(text)).toEqual([`x.yaml:3:${text.lastIndexOf('k7') - text.indexOf('prune') + 1}: this key is written twice in the same mapping`]);
  });

  it('of unknown keys: each is found where it is written by a lookup, not by reading the mapping from its start', { timeout: 30_000 }, () => {
    const found = problemsOf(`version: 1\nwebsites: []\n${keys(40_000)}`);
    expect(found).toHaveLength(40_000);
    expect(found[0]).toMatch(/^x\.yaml:3:1: unknown key "k0" \(known keys: /);
    expect(found[39_999]).toMatch(/^x\.yaml:40002:1: unknown key "k39999" \(known keys: /);
  });
});

describe('a great many websites, each with a mistake', () => {
  it("are each said, the schema's errors gathered in one list, not copied for each website", { timeout: 30_000 }, () => {
    const found = problemsOf(`version: 1\nwebsites: [${Array(60_000).fill('1').join(', ')}]\n`);
    expect(found).toHaveLength(60_000);
    expect(found[0]).toBe('x.yaml:2:12: websites[0] must be a mapping, not a number');
    expect(found[59_999]).toBe(`x.yaml:2:${12 + 59_999 * 3}: websites[59999] must be a mapping, not a number`);
  });
});

describe('a great many names under ignore beside a great many websites', () => {
  it('each name is looked up among the websites, not tested against each of them', { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-large-'));
    try {
      const file = join(dir, 'sitesync.yaml');
      const lines = (count: number, line: (i: number) => string) => Array.from({ length: count }, (_, i) => line(i)).join('');
      // The last name is another spelling of a listed website (with a trailing dot): its twin, left alone.
      const text = `version: 1\nignore:\n${lines(20_000, (i) => `  - i${i}.example.com\n`)}  - w7.example.com.\nwebsites:\n${lines(20_000, (i) => `  - domain: w${i}.example.com\n`)}`;
      await writeFile(file, text);
      const config = await loadConfig(file, { env: {} });
      expect(config.websites).toHaveLength(20_000);
      expect(config.ignore).toHaveLength(20_000);
      expect(config.twinSpellings?.map((p) => p.glob)).toEqual(['w7.example.com.']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
