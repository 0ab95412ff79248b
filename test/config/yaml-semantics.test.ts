/**
 * One YAML semantics: a config file means to sitesync what it means to the `yaml` package
 * (and so to editors' YAML language server), whatever its blanks, quotes, depth or markers.
 */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/config/parse.js';
import { ConfigError, formatDiagnostic } from '../../src/messages/errors.js';

const NBSP = '\u00a0';
const INVISIBLE = ' (it holds an invisible character, U+00A0, that YAML does not take for a blank: delete it)';

function read(text: string) {
  return parseFile(text, 'x.yaml', { env: {} }).configs[0]!;
}

function problemsOf(text: string): string[] {
  try {
    read(text);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.diagnostics.map(formatDiagnostic);
  }
}

describe('a no-break space (U+00A0) is text, as editors show it, never a blank', () => {
  it('"prune: true" followed by U+00A0 is an error, not prune', () => {
    const text = `version: 1\nprune: true${NBSP}\nwebsites: []\n`;
    expect(problemsOf(text)).toEqual([`x.yaml:2:8: prune must be true or false, not a string${INVISIBLE}`]);
  });

  it('"version: 1" followed by U+00A0 is an error', () => {
    expect(problemsOf(`version: 1${NBSP}\nwebsites: []\n`)).toEqual([`x.yaml:1:10: version must be 1, not "1${NBSP}"${INVISIBLE}`]);
  });

  it('"email: true" followed by U+00A0 is an error', () => {
    const found = problemsOf(`version: 1\nwebsites:\n  - domain: a.example.com\n    email: true${NBSP}\n`);
    expect(found).toEqual([`x.yaml:4:12: websites[0].email must be true or false (or 0, 1), not "true${NBSP}"${INVISIBLE}`]);
  });

  it('"privacy: private" followed by U+00A0 is an error', () => {
    const found = problemsOf(`version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: private${NBSP}\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^x\.yaml:4:14: websites\[0\]\.privacy must be public, private or password/);
    expect(found[0]).toContain(INVISIBLE);
  });

  it('an indent made of U+00A0 is not an indent: no website hides there', () => {
    // yaml (and so the editor) reads "  - domain" with its no-break spaces as a key of the top level.
    const found = problemsOf(`version: 1\nwebsites:\n${NBSP}${NBSP}- domain: a.example.com\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^x\.yaml:3:1: unknown key "\u00a0\u00a0- domain"/);
  });
});

describe('quotes inside a flow list are what yaml says they are', () => {
  it("exclude_params: [it's, other's] is two entries", () => {
    const config = read("version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: [it's, other's]\n");
    expect(config.websites[0]!.exclude_params).toEqual(["it's", "other's"]);
  });
});

describe('a deeply nested file is a FILE:LINE:COL error, never an internal error', () => {
  for (const depth of [3_500, 100_000]) {
    it(`${depth} nested flow lists point at the first list too deep`, () => {
      const text = `version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
      // Levels: the file, websites, the website, then 61 lists; the 62nd starts at column 82.
      expect(problemsOf(text)).toEqual(['x.yaml:4:82: the file nests more than 64 levels deep here; a config file needs 4']);
    });
  }

  it('3,500 nested block mappings point at the first mapping too deep', () => {
    const lines = ['version: 1', 'websites: []'];
    for (let i = 0; i < 3_500; i++) lines.push(`${' '.repeat(i)}k${i}:`);
    expect(problemsOf(`${lines.join('\n')} 1\n`)).toEqual(['x.yaml:67:65: the file nests more than 64 levels deep here; a config file needs 4']);
  });
});

describe('an unrelated document-start marker does not change whether a file is valid', () => {
  const site = '  - domain: a.example.com\n';
  const files = [
    `version: 1\nwebsites:\n${site}    email: true\n`,
    `version: 1\nwebsites:\n${site}    email: true${NBSP}\n`,
    `version: 1\nwebsites:\n${site}    privacy: private${NBSP}\n`,
    `version: 1\nprune: true${NBSP}\nwebsites:\n${site}`,
    `version: 1\nwebsites:\n${site}    exclude_params: [it's, other's]\n`,
  ];
  const messages = (text: string) => problemsOf(text).map((line) => line.replace(/^x\.yaml:\d+:\d+: /, ''));

  it.each(files.map((f) => [JSON.stringify(f), f]))('with and without a leading ---: %s', (_, text) => {
    expect(messages(`---\n${text}`)).toEqual(messages(text));
  });

  it('a leading --- reads the same websites', () => {
    const body = files[0]!;
    const shifted = read(body).websites.map((w) => ({ ...w, pos: { line: w.pos.line + 1, col: w.pos.col } }));
    expect(read(`---\n${body}`).websites).toEqual(shifted);
  });
});
