import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { bigConfig } from '../../bench/fixtures.js';
import { fastParse } from '../../src/config/fast-yaml.js';
import { Locator, type Path } from '../../src/config/locate.js';

/** Every path in a parsed value, containers included. */
function paths(value: unknown, prefix: (string | number)[] = []): Path[] {
  const out: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, k]));
  return out;
}

/**
 * The fast reader either gives up, or gives exactly what `yaml` gives: the same value and, for
 * every path, the same positions as the Locator over yaml's document.
 */
function agree(text: string): 'fast' | 'fallback' {
  const fast = fastParse(text);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (!fast) return 'fallback';
  expect(doc.errors, `yaml found errors where the fast reader did not:\n${text}`).toEqual([]);
  expect(fast.value, text).toEqual(doc.toJS());
  const at = new Locator(doc as Document, lines);
  for (const path of paths(fast.value)) {
    expect(fast.positions.value(path), `value of ${JSON.stringify(path)} in:\n${text}`).toEqual(at.value(path));
    expect(fast.positions.key(path), `key of ${JSON.stringify(path)} in:\n${text}`).toEqual(at.key(path));
  }
  expect(fast.positions.itemValues(['websites'], 'domain')).toEqual(at.itemValues(['websites'], 'domain'));
  return 'fast';
}

const fixtures = join(import.meta.dirname, '../fixtures/config');

describe('the fast YAML reader agrees with yaml, or gives up', () => {
  it('on every config fixture', () => {
    for (const dir of ['valid', 'invalid']) {
      for (const file of readdirSync(join(fixtures, dir))) agree(readFileSync(join(fixtures, dir, file), 'latin1'));
    }
  });

  it('reads the plain files real configs are, without falling back', () => {
    expect(agree(bigConfig(200))).toBe('fast');
    expect(agree(readFileSync(join(fixtures, 'valid/www-prefix.yaml'), 'utf8'))).toBe('fast');
  });

  it.each([
    ['scalars of every core type', 'version: 1\na: ~\nb: null\nc: Null\nd: true\ne: False\nf: 12\ng: -3\nh: +4\ni: 1.50\nj: .5\nk: 2.\nl: text with spaces\nm: 10.0.0.1\nn: "quoted # not a comment"\no: \'single\'\np: 007\nq: -0\n'],
    ['comments everywhere', '# head\nversion: 1 # trailing\n\n# between\nwebsites: # after key\n  # inside\n  - domain: a.example.com # x\n    privacy: 1\n'],
    ['flow lists', 'a: []\nb: [ x , "y z", \'w\' ]\nc: [1, 2.5, true, null]\nd: ["2001:db8::/32", 10.0.0.1]\n'],
    ['sequences at the key’s indentation', 'websites:\n- domain: a.example.com\n  email: true\n- domain: b.example.com\n'],
    ['nested block lists and maps', 'defaults:\n  exclude_params:\n    - utm_source\n    - fbclid\n  email: 1\nwebsites:\n  -   domain: wide.example.com\n      favorite: false\n'],
    ['keys with dollar and dashes', '$schema: x\nsome-key: 1\n_under: 2\n'],
    ['unicode', 'websites:\n  - domain: bücher.example\n    note: 日本語\n'],
  ])('%s', (_name, text) => {
    expect(agree(text)).toBe('fast');
  });

  it.each([
    ['anchors and aliases', 'a: &x 1\nb: *x\n'],
    ['block scalars', 'a: |\n  one\n  two\n'],
    ['escapes', 'a: "tab\\there"\n'],
    ['single-quote escapes', "a: 'it''s'\n"],
    ['multi-line plain scalars', 'a: one\n  two\n'],
    ['flow mappings', 'a: {b: 1}\n'],
    ['nested flow lists', 'a: [[1]]\n'],
    ['tabs', 'a:\t1\n'],
    ['CRLF', 'a: 1\r\n'],
    ['documents', '---\na: 1\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['empty values', 'a:\nb: 1\n'],
    ['a top-level list', '- a\n'],
    ['hex and exponents', 'a: 0x1F\nb: 1e3\n'],
    ['long integers', 'a: 12345678901234567890\n'],
    ['.inf', 'a: .inf\n'],
    ['tags', 'a: !!str 1\n'],
    ['complex keys', '? a\n: 1\n'],
    ['quoted keys', '"a": 1\n'],
    ['a colon in a flow plain scalar', 'a: [2001:db8::/32]\n'],
    ['a value that is a mapping error', 'a: b: c\n'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['an unclosed quote', 'a: "open\n'],
    ['__proto__', '__proto__: 1\n'],
  ])('gives up on %s', (_name, text) => {
    expect(agree(text)).toBe('fallback');
  });

  it('agrees on thousands of random variations of a config', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    const scalars = ['a.example.com', '"quoted.example.com"', "'single'", '1', '0', 'true', 'no', 'null', '~', '', '10.0.0.1', '2001:db8::1', '"2001:db8::/32"', '-1', '1.5', 'x # comment', 'a b', 'private', '${PW}', '$${x}', 'café', '#', 'a:b', 'a: b', '- a', '[a, b]', '[]', '[ "x", y ]', '&a', '*a', '|', 'x\ty'];
    let fast = 0;
    for (let n = 0; n < 3000; n++) {
      const indent = pick(['  ', '    ', ' ']);
      const lines = ['version: 1', pick(['websites:', 'websites: # list', 'websites:   '])];
      const sites = 1 + Math.floor(random() * 4);
      for (let i = 0; i < sites; i++) {
        const dash = pick(['- ', '-  ', '- ']);
        const keys = ['domain', 'privacy', 'email', 'exclude_ips', 'favorite'].filter(() => random() < 0.6);
        if (keys.length === 0) keys.push('domain');
        keys.forEach((key, k) => {
          const lead = k === 0 ? `${indent}${dash}` : `${indent}${' '.repeat(dash.length)}`;
          if (key === 'exclude_ips' && random() < 0.3) {
            lines.push(`${lead}${key}:`);
            for (let j = 0; j < 2; j++) lines.push(`${indent}${' '.repeat(dash.length)}${pick(['  ', '    '])}- ${pick(scalars)}`);
          } else {
            lines.push(`${lead}${key}: ${pick(scalars)}`);
          }
        });
        if (random() < 0.2) lines.push(pick(['', '# note', `${indent}# indented note`]));
      }
      if (random() < 0.3) lines.push(pick(['prune: true', 'protect: ["*.example.com"]', 'ignore: []', 'defaults:\n  email: 1']));
      if (agree(`${lines.join('\n')}\n`) === 'fast') fast++;
    }
    // Most variations are plain enough for the fast path; the rest fell back.
    expect(fast).toBeGreaterThan(400);
  });

  it('agrees on thousands of one-character mutations of real files', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const bases = [bigConfig(6), readFileSync(join(fixtures, 'valid/www-prefix.yaml'), 'utf8'), 'version: 1\nwebsites:\n- domain: a.example.com\n  exclude_ips: [10.0.0.1, "x y"]\n  email: true # yes\n'];
    const alphabet = [' ', ':', '-', '#', '"', "'", '[', ']', ',', '\n', 'a', '1', '.', '{', '&', '*', '!', '|', '>', '?', '%', '@', '`', '\\'];
    let fast = 0;
    for (let n = 0; n < 4000; n++) {
      let text = bases[n % bases.length]!;
      for (let m = 0; m < 1 + Math.floor(random() * 2); m++) {
        const at = Math.floor(random() * text.length);
        const c = alphabet[Math.floor(random() * alphabet.length)]!;
        const op = random();
        text = op < 0.4 ? text.slice(0, at) + c + text.slice(at) : op < 0.7 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + c + text.slice(at + 1);
      }
      if (agree(text) === 'fast') fast++;
    }
    expect(fast).toBeGreaterThan(1000);
  });
});
