/** import's edit of a config file: the new entries are added, and every other byte stays. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { insertWebsites, missingComments } from '../../src/edit/insert-websites.js';

const NEW = [
  { entry: { domain: 'new.example.com', email: true, exclude_ips: ['203.0.113.7', '2001:db8::/32'] }, notes: ['a note about it'] },
  { entry: { domain: 'other.example.com' }, notes: [] },
];

/** The result is the old text with `added` put in at `at` (the text up to the first match). */
function expectInsertedAfter(before: string, after: string, marker: string, added: string): void {
  const at = before.indexOf(marker) + marker.length;
  expect(after).toBe(before.slice(0, at) + added + before.slice(at));
}

describe('insertWebsites: a block list gets the new entries as text after its last item, a blank line before each (as fmt lays websites out)', () => {
  it('keeps every comment, blank line, anchor and flow list elsewhere byte for byte (2-space, indented "- ")', () => {
    const before = [
      '# yaml-language-server: $schema=./schema.json',
      'version: 1',
      '',
      'defaults: &d   # shared',
      '  exclude_params: [utm_source, fbclid]',
      'protect: ["example.com"]',
      '',
      'websites:',
      '  # the shop',
      '  - domain: shop.example.com',
      '    privacy: password',
      '    password: ${SHOP_PASSWORD}',
      '    exclude_ips:',
      '      - 10.0.0.1',
      '    # exclude_bots: false',
      '',
      '  # - domain: retired.example.com',
      '',
      '# the end',
      'prune: false',
      '',
    ].join('\n');
    const after = insertWebsites(before, undefined, NEW);
    expectInsertedAfter(
      before,
      after,
      '    # exclude_bots: false\n',
      [
        '',
        '  # a note about it',
        '  - domain: new.example.com',
        '    email: true',
        '    exclude_ips:',
        '      - 203.0.113.7',
        '      - 2001:db8::/32',
        '',
        '  - domain: other.example.com',
        '',
      ].join('\n'),
    );
  });

  it('follows a 4-space file with "- " at column 0 and lists at the key\'s column', () => {
    const before = ['version: 1', 'api:', '    base_url: https://stats.example.com', 'websites:', '-   domain: a.example.com', '    exclude_params:', '    - gclid', ''].join('\n');
    const after = insertWebsites(before, undefined, NEW);
    expect(after).toBe(
      before +
        ['', '# a note about it', '-   domain: new.example.com', '    email: true', '    exclude_ips:', '    - 203.0.113.7', '    - 2001:db8::/32', '', '-   domain: other.example.com', ''].join('\n'),
    );
  });

  it('follows a 4-space file with indented "- " and lists indented by 4', () => {
    const before = ['version: 1', 'websites:', '    - domain: a.example.com', '      exclude_params:', '          - gclid', 'prune: true', ''].join('\n');
    const after = insertWebsites(before, undefined, NEW);
    expectInsertedAfter(
      before,
      after,
      '          - gclid\n',
      ['', '    # a note about it', '    - domain: new.example.com', '      email: true', '      exclude_ips:', '          - 203.0.113.7', '          - 2001:db8::/32', '', '    - domain: other.example.com', ''].join('\n'),
    );
  });

  it('writes lists inside entries as flow lists where the file does', () => {
    const before = 'version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: [gclid]\n';
    const after = insertWebsites(before, undefined, NEW);
    expect(after).toBe(
      `${before}\n  # a note about it\n  - domain: new.example.com\n    email: true\n    exclude_ips: [203.0.113.7, 2001:db8::/32]\n\n  - domain: other.example.com\n`,
    );
  });

  it('adds a final newline when the file has none, and keeps a comment after the last item', () => {
    const before = 'version: 1\nwebsites:\n  - domain: a.example.com   # the first';
    const after = insertWebsites(before, undefined, [NEW[1]!]);
    expect(after).toBe(`${before}\n\n  - domain: other.example.com\n`);
  });

  it('adds to the websites of the named account in an accounts: file, not another', () => {
    const before = [
      'version: 1',
      'defaults: { exclude_bots: true }',
      'accounts:',
      '  acme:',
      '    base_url: https://stats.acme.example',
      '    api_key_env: ACME_STATS_KEY',
      '    websites:',
      '      - domain: acme.example',
      '  beta:',
      '    base_url: https://stats.beta.example',
      '    api_key_env: BETA_STATS_KEY',
      '    websites:',
      '    - domain: beta.example',
      '',
    ].join('\n');
    const after = insertWebsites(before, 'beta', [NEW[1]!]);
    expect(after).toBe(`${before}\n    - domain: other.example.com\n`);
    const acme = insertWebsites(before, 'acme', [NEW[1]!]);
    expectInsertedAfter(before, acme, '      - domain: acme.example\n', '\n      - domain: other.example.com\n');
  });
});

describe('insertWebsites: a flow, empty or missing list is edited through the Document', () => {
  it('turns "websites: []" into a block list and keeps the comments', () => {
    const before = '# head\nversion: 1\nprune: false # never\nwebsites: []\n';
    const after = insertWebsites(before, undefined, NEW);
    expect(after).toBe(
      '# head\nversion: 1\nprune: false # never\nwebsites:\n  # a note about it\n  - domain: new.example.com\n    email: true\n    exclude_ips:\n      - 203.0.113.7\n      - 2001:db8::/32\n\n  - domain: other.example.com\n',
    );
  });

  it('adds to a flow list of websites in flow style', () => {
    const before = 'version: 1\nwebsites: [{ domain: a.example.com }]\n';
    const after = insertWebsites(before, undefined, [NEW[1]!]);
    expect(parse(after)).toEqual({ version: 1, websites: [{ domain: 'a.example.com' }, { domain: 'other.example.com' }] });
  });

  it('creates websites: under an account that has none (its websites are in included files)', () => {
    const before = 'version: 1\naccounts:\n  acme:\n    base_url: https://stats.acme.example\n    api_key_env: ACME_STATS_KEY\n    include: ["clients/acme/*.yaml"]\n';
    const after = insertWebsites(before, 'acme', [NEW[1]!]);
    expect(after).toBe(`${before}    websites:\n      - domain: other.example.com\n`);
  });

  it('fills "websites:" left empty', () => {
    const after = insertWebsites('version: 1\nwebsites:\n', undefined, [NEW[1]!]);
    expect(after).toBe('version: 1\nwebsites:\n  - domain: other.example.com\n');
  });
});

describe('insertWebsites: no other byte changes, whatever the list', () => {
  it("keeps a CRLF file's line ending in the lines it adds", () => {
    const before = 'version: 1\r\nwebsites:\r\n  - domain: a.example.com\r\n# end\r\n';
    const after = insertWebsites(before, undefined, NEW);
    expectInsertedAfter(
      before,
      after,
      'a.example.com\r\n',
      '\r\n  # a note about it\r\n  - domain: new.example.com\r\n    email: true\r\n    exclude_ips:\r\n      - 203.0.113.7\r\n      - 2001:db8::/32\r\n\r\n  - domain: other.example.com\r\n',
    );
    expect(insertWebsites('version: 1\r\nwebsites: []\r\n', undefined, [NEW[1]!])).toBe('version: 1\r\nwebsites:\r\n  - domain: other.example.com\r\n');
  });

  it("an account whose websites are in included files gets websites: after its last key; flow mappings elsewhere stay as written", () => {
    const before = [
      'version: 1',
      'defaults: { exclude_bots: true }',
      'accounts:',
      '  globex:',
      '    base_url: https://analytics.example.com',
      '    api_key_env: GLOBEX_STATS_KEY',
      '    safety: { max_delete_percent: 20, min_existing: 2 }',
      '    include: ["clients/globex/*.yaml"]    # more websites, from other files',
      '',
      '  # the next client',
      '  acme:',
      '    base_url: https://stats.acme.example',
      '    api_key_env: ACME_STATS_KEY',
      '    websites: []',
      '',
    ].join('\n');
    expectInsertedAfter(before, insertWebsites(before, 'globex', [NEW[1]!]), 'other files\n', '    websites:\n      - domain: other.example.com\n');
    expect(insertWebsites(before, 'acme', [NEW[1]!])).toBe(before.replace('    websites: []\n', '    websites:\n      - domain: other.example.com\n'));
  });

  it('a flow list with items is written anew as a block list in its place; a comment after it and every other line stay', () => {
    const before = 'version: 1\nprotect: [ "example.com" ]\nwebsites: [{domain: a.example.com, exclude_ips: [10.0.0.1]}]   # ours\nprune: false\n';
    const after = insertWebsites(before, undefined, [NEW[1]!]);
    expect(after).toBe(
      'version: 1\nprotect: [ "example.com" ]\nwebsites:   # ours\n  - domain: a.example.com\n    exclude_ips: [10.0.0.1]\n\n  - domain: other.example.com\nprune: false\n',
    );
  });

  it('"websites:" with a comment on its line keeps the comment there', () => {
    expect(insertWebsites('version: 1\nwebsites:   # to come\nprune: true\n', undefined, [NEW[1]!])).toBe(
      'version: 1\nwebsites:   # to come\n  - domain: other.example.com\nprune: true\n',
    );
  });

  it('an account written as a flow mapping is refused: no block list can go into it', () => {
    expect(() => insertWebsites('version: 1\naccounts:\n  acme: {base_url: https://x.example, api_key_env: K}\n', 'acme', [NEW[1]!])).toThrow(
      'account acme is written as a flow mapping ({…}), where no block list of websites can go; write it in block style (sitesync fmt does), then import again; nothing was written',
    );
  });
});

describe('the safety net', () => {
  it('missingComments names a comment that a re-print dropped', () => {
    expect(missingComments('a: 1 # one\n# two\n', 'a: 1 # one\n')).toEqual(['# two']);
    expect(missingComments('a: 1 # one\n', 'a: 1\n# one\n')).toEqual([]);
  });
});
