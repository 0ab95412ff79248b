/** Which live websites import adds, and to which account: selectImports, over plain data. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SAFETY, type Config, type LiveWebsite } from '../../src/model/types.js';
import { selectImports } from '../../src/planner/imports.js';
import type { SitesyncError } from '../../src/messages/errors.js';

function account(name: string | undefined, listed: string[] = [], ignore: string[] = []): Config {
  return {
    file: '/x/sitesync.yaml',
    account: name === undefined ? undefined : { name, apiKeyEnv: `${name.toUpperCase()}_KEY`, pos: { line: 1, col: 1 } },
    defaults: {},
    prune: false,
    protect: [],
    ignore: ignore.map((glob) => ({ glob, pos: { line: 3, col: 1 } })),
    retire: [],
    safety: DEFAULT_SAFETY,
    websites: listed.map((domain, i) => ({ domain, written: domain, pos: { line: 10 + i, col: 5 } })),
    warnings: [],
  };
}

let id = 0;
const live = (...domains: string[]): LiveWebsite[] => domains.map((domain) => ({ id: ++id, domain, privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [] }));

describe('selectImports in a file with accounts', () => {
  const acme = account('acme', ['acme.example']);
  const beta = account('beta');
  const accounts = [
    { config: acme, live: live('acme.example', 'shop.acme.example', 'shared.example') },
    { config: beta, live: live('beta.example', 'shared.example') },
  ];

  it('a domain goes to the account whose service holds it', () => {
    const { imports } = selectImports(accounts, { domains: ['beta.example', 'shop.acme.example'] }, 'sitesync.yaml');
    expect(imports.map((i) => [i.config.account!.name, i.sites.map((s) => s.domain)])).toEqual([
      ['acme', ['shop.acme.example']],
      ['beta', ['beta.example']],
    ]);
  });

  it('a domain two accounts hold is refused naming both, suggesting --account', () => {
    expect(() => selectImports(accounts, { domains: ['shared.example'] }, 'sitesync.yaml')).toThrow(
      'shared.example: accounts acme and beta both hold it; choose one with --account; nothing was imported',
    );
  });

  it('a domain no account holds is refused by name', () => {
    expect(() => selectImports(accounts, { domains: ['www.nowhere.example'] }, 'sitesync.yaml')).toThrow(
      'www.nowhere.example: no live website of any of the accounts read has this domain',
    );
  });

  it('a domain already listed is refused with its place and account', () => {
    expect(() => selectImports(accounts, { domains: ['www.acme.example'] }, 'sitesync.yaml')).toThrow(
      'www.acme.example: already listed in sitesync.yaml:10 (account acme)',
    );
  });

  it('--unmanaged takes every unlisted website of each account, by name', () => {
    const { imports } = selectImports(accounts, { unmanaged: true }, 'sitesync.yaml');
    expect(imports.map((i) => [i.config.account!.name, i.sites.map((s) => s.domain)])).toEqual([
      ['acme', ['shared.example', 'shop.acme.example']],
      ['beta', ['beta.example', 'shared.example']],
    ]);
  });
});

describe('selectImports in a single-account file', () => {
  it('--unmanaged leaves out ignored websites, and notes names no entry can hold', () => {
    const config = account(undefined, [], ['*.test.example']);
    const sites = [...live('a.test.example', 'b.example'), { id: 99, domain: 'a b.example', privacy: 0 as const }];
    const { imports, notes, ignored } = selectImports([{ config, live: sites }], { unmanaged: true }, 'sitesync.yaml');
    expect(imports[0]!.sites.map((s) => s.domain)).toEqual(['b.example']);
    expect(ignored!.map((i) => i.sites.map((s) => s.domain))).toEqual([['a b.example']]);
    expect(notes).toEqual(['left out "a b.example" (id 99): no file entry can name it; listed under ignore to leave it alone']);
  });

  it('of two live websites with one key (x.org and x.org.), the oldest is the one imported', () => {
    const config = account(undefined);
    const sites: LiveWebsite[] = [
      { id: 7, domain: 'x.org', stored: 'x.org.' },
      { id: 3, domain: 'x.org' },
    ];
    const { imports } = selectImports([{ config, live: sites }], { domains: ['x.org'] }, 'sitesync.yaml');
    expect(imports[0]!.sites.map((s) => s.id)).toEqual([3]);
  });
});

describe('selectImports: a default for a field the service does not show', () => {
  const withDefaults = (): Config => ({ ...account(undefined), defaults: { exclude_params: ['utm_source'] } });
  // The deployed service returns no exclude_params: undefined in the record.
  const deployed = (domain: string): LiveWebsite => ({ id: ++id, domain, privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [] });

  it('a DOMAIN is refused, naming the field and the default, with how to choose', () => {
    let error: SitesyncError | undefined;
    try {
      selectImports([{ config: withDefaults(), live: [deployed('shop.example')] }], { domains: ['shop.example'] }, 'sitesync.yaml');
    } catch (e) {
      error = e as SitesyncError;
    }
    expect(error?.message).toBe(
      'shop.example: the service does not show its exclude_params, and the defaults set exclude_params: [utm_source]: listed, it would be sent the default with its next update, over the value it holds, which sitesync cannot read; nothing was imported',
    );
    expect(error?.details.at(-1)).toMatch(/^Say what it should hold: add its entry by hand/);
    // A website whose field the service shows, or a default the file does not set, is imported.
    const shown = { ...deployed('shown.example'), exclude_params: ['gclid'] };
    expect(selectImports([{ config: withDefaults(), live: [shown] }], { unmanaged: true }, 'sitesync.yaml').imports[0]!.sites).toEqual([shown]);
    expect(selectImports([{ config: account(undefined), live: [deployed('x.example')] }], { domains: ['x.example'] }, 'sitesync.yaml').imports).toHaveLength(1);
  });

  it('--unmanaged is refused whole, once per account, naming the websites', () => {
    const sites = ['a.example', 'b.example', 'c.example', 'd.example'].map(deployed);
    expect(() => selectImports([{ config: withDefaults(), live: sites }], { unmanaged: true }, 'sitesync.yaml')).toThrow(
      'the service does not show the exclude_params of 4 websites ("a.example", "b.example", "c.example", …), and the defaults set exclude_params: [utm_source]: listed, they would be sent the default with their next update',
    );
  });
});

describe('selectImports: live text stays raw in messages (escaped once, where shown)', () => {
  it('a name with an ESC is left out with a note that holds it raw, and a DOMAIN holding one is named raw', () => {
    const config = account(undefined);
    const { notes } = selectImports([{ config, live: [{ id: 5, domain: 'a\x1b[2j.example', privacy: 0 }] }], { unmanaged: true }, 'sitesync.yaml');
    expect(notes).toEqual(['left out "a\x1b[2j.example" (id 5): no file entry can name it; listed under ignore to leave it alone']);
    expect(() => selectImports([{ config, live: [] }], { domains: ['b\x1b.example'] }, 'sitesync.yaml')).toThrow(/^b\x1b\.example: /);
  });
});

