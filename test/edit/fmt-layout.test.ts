/** `sitesync fmt`'s layout (src/edit/layout.ts): pure text in, text out. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { ConfigError } from '../../src/messages/errors.js';
import { formatConfigText } from '../../src/edit/layout.js';
import { readFileCollecting } from '../../src/config/parse.js';
import { root } from '../helpers/cli.js';

const fmt = (text: string, sort = false) => formatConfigText(text, { file: 'sitesync.yaml', sort }).text;

/** Every YAML file under test/ and examples/. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/**
 * The config files the tests write through their helpers: string literals that start a config
 * (`version: 1`); a JavaScript `${…}` in them (an emulator's URL) is written as `interpolated`.
 */
function yamlWrittenByTests(): { name: string; text: string }[] {
  const found: { name: string; text: string }[] = [];
  for (const file of readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.test.ts') || file.endsWith('fmt-layout.test.ts')) continue;
    const source = readFileSync(join(root, 'test', file), 'utf8');
    for (const match of source.matchAll(/`((?:[^`\\]|\\.)*)`|'((?:[^'\\\n]|\\.)*)'/g)) {
      const body = match[1] ?? match[2]!;
      if (!/^(?:#[^\n]*(?:\n|\\n))*version: 1(?:\n|\\n)/.test(body)) continue;
      const template = match[1] !== undefined;
      const text = (template ? body.replace(/(?<!\\)\$\{[^}]*\}/g, 'interpolated') : body).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
      found.push({ name: `${file} at ${match.index}`, text });
    }
  }
  return found;
}

const fixtures = [...yamlFiles(join(root, 'test')), ...yamlFiles(join(root, 'examples'))].map((file) => ({
  name: relative(root, file),
  text: readFileSync(file, 'utf8'),
}));
const written = yamlWrittenByTests();

/**
 * What a file means, or undefined when it is not YAML (fmt's error for it is tested below):
 * its data, or, for a file whose aliases expand too often to compute it (an alias bomb), its
 * tree with anchors and aliases as they are written.
 */
function meaningOf(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length) return undefined;
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch {
    return treeOf(doc.contents);
  }
}

function treeOf(node: unknown): unknown {
  if (isAlias(node)) return { alias: node.source };
  if (isScalar(node)) return { anchor: node.anchor, value: node.value };
  if (isMap(node)) return { anchor: node.anchor, map: Object.fromEntries(node.items.map((p) => [String(treeOf(p.key) && (p.key as { value?: unknown }).value), treeOf(p.value)])) };
  if (isSeq(node)) return { anchor: node.anchor, seq: node.items.map(treeOf) };
  return node;
}

/** The meaning with the websites in any order (what --sort may change). */
function anyOrder(meaning: unknown): unknown {
  const websites = (meaning as { websites?: unknown } | null)?.websites;
  if (!Array.isArray(websites)) return meaning;
  return { ...(meaning as object), websites: websites.map(sortedJson).sort() };
}

/** JSON with every object's keys sorted: the same for the same data, whatever the key order. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

describe('fmt keeps every file of the suite meaning the same, and formatting twice changes nothing', () => {
  it('finds the fixtures and the files the tests write', () => {
    expect(fixtures.length).toBeGreaterThan(40);
    expect(written.length).toBeGreaterThan(20);
  });

  for (const { name, text } of [...fixtures, ...written]) {
    it(name, () => {
      const meaning = meaningOf(text);
      // A file that does not parse, or holds a value the yaml package cannot write back (!!binary): refused, left as it is.
      if (meaning === undefined || text.includes('!!binary')) {
        expect(() => fmt(text)).toThrow(ConfigError);
        return;
      }
      const once = fmt(text);
      expect(meaningOf(once), 'the formatted file means what the file meant').toEqual(meaning);
      expect(fmt(once), 'formatting the formatted file changes nothing').toBe(once);
      const sorted = fmt(text, true);
      expect(anyOrder(meaningOf(sorted)), '--sort only reorders websites').toEqual(anyOrder(meaning));
      expect(fmt(sorted, true)).toBe(sorted);
    });
  }
});

describe('the canonical layout', () => {
  it('keys come in the schema order, unknown keys after the known ones in their order', () => {
    const text = 'websites:\n  - privacy: private\n    x-b: 1\n    domain: a.example\n    x-a: 2\nx-team: web\nsafety: {min_existing: 3, max_delete_percent: 10}\nversion: 1\n';
    expect(fmt(text)).toBe(
      [
        'version: 1',
        'safety:',
        '  max_delete_percent: 10',
        '  min_existing: 3',
        'websites:',
        '  - domain: a.example',
        '    privacy: private',
        '    x-b: 1',
        '    x-a: 2',
        'x-team: web',
        '',
      ].join('\n'),
    );
  });

  it('flow lists and mappings become block style, two spaces in, one blank line between websites', () => {
    const text = 'version: 1\ndefaults: { exclude_bots: true }\nprotect: ["example.com"]\nwebsites:\n- {domain: a.example, exclude_ips: [203.0.113.7, "2001:db8::/32"]}\n- domain: b.example\n\n\n\n- domain: c.example\n';
    expect(fmt(text)).toBe(
      [
        'version: 1',
        'defaults:',
        '  exclude_bots: true',
        'protect:',
        '  - "example.com"',
        'websites:',
        '  - domain: a.example',
        '    exclude_ips:',
        '      - 203.0.113.7',
        '      - "2001:db8::/32"',
        '',
        '  - domain: b.example',
        '',
        '  - domain: c.example',
        '',
      ].join('\n'),
    );
  });

  it('an empty list or mapping stays [] / {} on its line, with the comment beside it', () => {
    const text = 'version: 1\ndefaults: {}\nwebsites: [] # none yet\naccounts:\n  a:\n    api_key_env: K\n    websites: []\n';
    expect(fmt(text)).toBe(text);
    expect(fmt(fmt(text))).toBe(text);
  });

  it('comments stay with the key, item or list they are written at, and the header stays on top', () => {
    const text = [
      '# yaml-language-server: $schema=./schema.json',
      'websites:',
      '  # the shop',
      '  - exclude_params: [ref]   # affiliate links',
      '    domain: shop.example    # since 2019',
      'protect: [shop.example]  # never deleted',
      '# the format',
      'version: 1',
      '# end of file',
      '',
    ].join('\n');
    const out = fmt(text);
    expect(out).toBe(
      [
        '# yaml-language-server: $schema=./schema.json',
        '',
        '# the format',
        'version: 1',
        'protect:',
        '  # never deleted',
        '  - shop.example',
        'websites:',
        '  # the shop',
        '  - domain: shop.example # since 2019',
        '    exclude_params:',
        '      # affiliate links',
        '      - ref',
        '',
        '# end of file',
        '',
      ].join('\n'),
    );
    expect(fmt(out)).toBe(out);
  });

  it('scalars are written as they were: quotes, ${NAME}, block text, numbers', () => {
    const text = "version: 1\nwebsites:\n  - domain: 'single.example'\n    password: \"${SHOP_PW}\"\n    email: 1\n    exclude_ips: |\n      198.51.100.0/24\n      198.51.100.77\n";
    expect(fmt(text)).toBe(text);
  });

  it('--sort orders websites by domain (case aside); without it they keep the file order', () => {
    const text = 'version: 1\nwebsites:\n  # zeta first\n  - domain: zeta.example\n\n  - domain: Alpha.example\n\n  - domain: mid.example\n';
    expect(fmt(text)).toBe(text);
    expect(fmt(text, true)).toBe(
      'version: 1\nwebsites:\n  - domain: Alpha.example\n\n  - domain: mid.example\n\n  # zeta first\n  - domain: zeta.example\n',
    );
  });

  it('an alias never ends up before its anchor: anchored sections keep their order', () => {
    const text = 'x-shared:\n  office: &office [203.0.113.7]\nwebsites:\n  - domain: a.example\n    exclude_ips: *office\nversion: 1\n';
    const out = fmt(text);
    expect(out).toBe('version: 1\nx-shared:\n  office: &office\n    - 203.0.113.7\nwebsites:\n  - domain: a.example\n    exclude_ips: *office\n');
    expect(meaningOf(out)).toEqual(meaningOf(text));
  });

  it('--sort with anchors: an alias of an anchor another website holds keeps the list in its order, says why, with no blank-line artefacts; else it sorts', () => {
    const text = [
      'version: 1',
      'defaults: &defaults',
      '  exclude_params: [utm_source]',
      'websites:',
      '  - domain: zeta.example',
      '    exclude_ips: &office [203.0.113.7]',
      '  - domain: alpha.example',
      '    exclude_ips: *office',
      '  - domain: mid.example',
      '    exclude_params: *defaults',
      '',
    ].join('\n');
    const out = formatConfigText(text, { file: 'f.yaml', sort: true });
    expect(out.notSorted).toEqual({
      lists: 'its websites',
      why: 'alpha.example uses *office, whose anchor is in zeta.example, and an alias must stay below its anchor; anchor the value in the website that sorts first to sort them',
    });
    expect(out.text).not.toMatch(/^[ \t]+$/m);
    expect(out.text).toBe(fmt(text));
    expect(formatConfigText(out.text, { file: 'f.yaml', sort: true }).text).toBe(out.text);
    expect(meaningOf(out.text)).toEqual(meaningOf(text));
    expect(out.text.indexOf('zeta.example')).toBeLessThan(out.text.indexOf('alpha.example'));
    // Where every alias stays below its anchor (anchors above the list, or first in domain order), it sorts.
    const above = [
      'version: 1',
      'defaults:',
      '  exclude_params: &params [utm_source]',
      'websites:',
      '  - domain: b.example',
      '    exclude_params: *params',
      '  - domain: a.example',
      '    exclude_params: *params',
      '',
    ].join('\n');
    const sortedAbove = formatConfigText(above, { file: 'f.yaml', sort: true });
    expect(sortedAbove.notSorted).toBeUndefined();
    expect(sortedAbove.text).toBe(
      'version: 1\ndefaults:\n  exclude_params: &params\n    - utm_source\nwebsites:\n  - domain: a.example\n    exclude_params: *params\n\n  - domain: b.example\n    exclude_params: *params\n',
    );
    const anchorFirst = 'version: 1\nwebsites:\n  - domain: c.example\n  - domain: a.example\n    exclude_ips: &office [203.0.113.7]\n  - domain: b.example\n    exclude_ips: *office\n';
    const sorted = formatConfigText(anchorFirst, { file: 'f.yaml', sort: true });
    expect(sorted.notSorted).toBeUndefined();
    expect(sorted.text).toBe(
      'version: 1\nwebsites:\n  - domain: a.example\n    exclude_ips: &office\n      - 203.0.113.7\n\n  - domain: b.example\n    exclude_ips: *office\n\n  - domain: c.example\n',
    );
  });

  it('keeps the line ending of a CRLF file; a formatted CRLF file is unchanged', () => {
    const text = 'websites:\r\n  - {domain: b.example}\r\nversion: 1   # the format\r\n';
    const out = fmt(text);
    expect(out).toBe('version: 1 # the format\r\nwebsites:\r\n  - domain: b.example\r\n');
    expect(fmt(out)).toBe(out);
  });

  it('a many-account file: each account follows its schema, and its include globs are found', () => {
    const text = [
      'accounts:',
      '  acme:',
      '    websites: [{privacy: private, domain: acme.example}, {domain: b.acme.example}]',
      '    include: ["clients/acme/*.yaml"]   # relative to this file',
      '    api_key_env: ACME_STATS_KEY',
      '    base_url: https://stats.acme.example',
      'defaults: { exclude_bots: true, privacy: public }',
      'version: 1',
      '',
    ].join('\n');
    const out = formatConfigText(text, { file: 'f.yaml' });
    // What the file includes is the loader's to say (parse.ts), which fmt reads: one reading of include:.
    expect(readFileCollecting(text, 'f.yaml', { env: {}, lenientEnv: true }).parsed.includes.map((i) => i.glob)).toEqual(['clients/acme/*.yaml']);
    expect(out.text).toBe(
      [
        'version: 1',
        'defaults:',
        '  privacy: public',
        '  exclude_bots: true',
        'accounts:',
        '  acme:',
        '    base_url: https://stats.acme.example',
        '    api_key_env: ACME_STATS_KEY',
        '    include:',
        '      # relative to this file',
        '      - "clients/acme/*.yaml"',
        '    websites:',
        '      - domain: acme.example',
        '        privacy: private',
        '',
        '      - domain: b.acme.example',
        '',
      ].join('\n'),
    );
  });

  it("an account's keys follow the schema's account order", () => {
    const text = 'version: 1\naccounts:\n  acme: {websites: [{domain: a.example}], base_url: https://x.example}\n';
    const out = formatConfigText(text, { file: 'f.yaml' });
    expect(out.text).toBe('version: 1\naccounts:\n  acme:\n    base_url: https://x.example\n    websites:\n      - domain: a.example\n');
  });

  it("an account's safety and websites follow the top level's (its schema points to them there)", () => {
    const text = 'version: 1\naccounts:\n  acme:\n    websites:\n      - privacy: 1\n        domain: a.example\n    safety: {active_days: 3, max_delete_percent: 4}\n';
    const out = formatConfigText(text, { file: 'f.yaml' });
    expect(out.text).toBe('version: 1\naccounts:\n  acme:\n    safety:\n      max_delete_percent: 4\n      active_days: 3\n    websites:\n      - domain: a.example\n        privacy: 1\n');
  });

  it('a file that is not YAML: FILE:LINE:COL of the mistake', () => {
    const attempt = () => formatConfigText('version: 1\nwebsites:\n  - domain: [a.example\n', { file: 'bad.yaml' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (e) {
      const [d] = (e as ConfigError).diagnostics;
      expect(`${d!.file}:${d!.line}`).toBe('bad.yaml:4');
      expect(d!.message).toMatch(/^YAML: /);
    }
  });

  it('an alias without an anchor above it is an error at the alias', () => {
    const attempt = () => formatConfigText('version: 1\nwebsites:\n  - domain: *site\n', { file: 'bad.yaml' });
    expect(attempt).toThrow(/bad\.yaml:3:13: YAML: the alias \*site names no anchor before it/);
  });
});
