/** `sitesync fmt`'s layout: every fixture keeps its meaning and formats to itself a second time. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { formatConfig } from '../../src/config/format.js';
import { root } from '../helpers/cli.js';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

const fixtures = [...yamlFiles(join(root, 'test/fixtures')), ...yamlFiles(join(root, 'examples'))].filter((f) => {
  const doc = parseDocument(readFileSync(f, 'utf8'), { uniqueKeys: false });
  // Only files that are YAML with one document (the others are fixtures of reading errors).
  return doc.errors.length === 0 && !/\n---/.test(readFileSync(f, 'utf8'));
});

describe('fmt on every fixture and example', () => {
  it.each(fixtures.map((f) => [relative(root, f), f]))('%s: the same meaning, and formatting twice changes nothing', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    let once: string;
    try {
      once = formatConfig(text, file);
    } catch (error) {
      // Alias bombs and the like are refused, never formatted into something else.
      expect(String(error)).toMatch(/alias|Excessive/i);
      return;
    }
    expect(parseDocument(once, { uniqueKeys: false }).toJS({ maxAliasCount: 100 })).toEqual(parseDocument(text, { uniqueKeys: false }).toJS({ maxAliasCount: 100 }));
    expect(formatConfig(once, file)).toBe(once);
  });
});

describe('the canonical layout', () => {
  const messy = `# the header stays
websites:
    - email: true   # reports on
      domain: b.example
    - {domain: a.example, exclude_params: [utm_source, fbclid]}
version: 1
defaults: {exclude_bots: true}
`;

  it('keys in the schema order, lists and mappings in block style, two spaces, a blank line between websites, comments kept', () => {
    // The file's header stays on top (then a blank line), whichever key it was above.
    expect(formatConfig(messy, 'x.yaml')).toBe(`# the header stays

version: 1
defaults:
  exclude_bots: true
websites:
  - domain: b.example
    email: true # reports on

  - domain: a.example
    exclude_params:
      - utm_source
      - fbclid
`);
  });

  it('--sort orders websites by domain', () => {
    const out = formatConfig(messy, 'x.yaml', { sort: true });
    expect(out.indexOf('a.example')).toBeLessThan(out.indexOf('b.example'));
  });

  it('accounts follow the account schema; unknown keys stay, after the known ones', () => {
    const text = 'accounts:\n  acme:\n    websites: []\n    custom: 1\n    api_key_env: K\n    base_url: https://a.example\nversion: 1\n';
    expect(formatConfig(text, 'x.yaml')).toBe('version: 1\naccounts:\n  acme:\n    base_url: https://a.example\n    api_key_env: K\n    websites: []\n    custom: 1\n');
  });

  it('a file that is not YAML is an error at its line, and nothing is formatted', () => {
    expect(() => formatConfig('version: 1\nwebsites: [\n', 'x.yaml')).toThrow(/YAML/);
  });
});
