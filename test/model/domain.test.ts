import { describe, expect, it } from 'vitest';
import { interpolate, literal } from '../../src/config/interpolate.js';
import { domainKey, GlobSet, manageableTraits, parseDomainInput, searchLiteral } from '../../src/model/domain.js';

describe('domains as users write them', () => {
  it.each([
    ['example.com', { domain: 'example.com' }],
    ['  Example.COM ', { domain: 'example.com' }],
    ['www.example.com', { domain: 'example.com', strippedWww: true }],
    ['bücher.example', { domain: 'xn--bcher-kva.example' }],
    ['xn--bcher-kva.example', { domain: 'xn--bcher-kva.example' }],
    [`${'x'.repeat(63)}.example.com`, { domain: `${'x'.repeat(63)}.example.com` }],
    // The service's own limit is 255 characters, not DNS's 253.
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, { domain: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}` }],
    ['1.2.3.4', { domain: '1.2.3.4' }],
    ['010.1.1.255.', { domain: '010.1.1.255' }],
    // Once a name starts with www., the service removes every www. in it (str_replace).
    ['www.www.twice.example', { domain: 'twice.example', strippedWww: true }],
    ['WWW.shop.www.example.com', { domain: 'shop.example.com', strippedWww: true }],
    ['shop.www.example.com', { domain: 'shop.www.example.com' }],
    ['a-b--c.example.com', { domain: 'a-b--c.example.com' }],
    ['my_site.example.com', { domain: 'my_site.example.com' }],
    ['trailing.example.org.', { domain: 'trailing.example.org' }],
    ['192.0.2.1', { domain: '192.0.2.1' }],
    ['BÜCHER.example.', { domain: 'xn--bcher-kva.example' }],
  ])('%s is accepted', (input, expected) => {
    expect(parseDomainInput(input)).toEqual(expected);
  });

  it.each([
    ['http://example.com', 'write "example.com"'],
    ['example.com:443', 'write "example.com"'],
    ['example.com/path?q=1', 'write "example.com"'],
    ['user@example.com', 'write "example.com"'],
    ['-bad.example.com', 'is not a valid domain name'],
    ['bad-.example.com', 'is not a valid domain name'],
    ['a..example.com', 'is not a valid domain name'],
    [`${'x'.repeat(64)}.example.com`, 'is not a valid domain name'],
    ['exa mple.com', 'white space'],
    ['exa!mple.com', 'is not a valid domain name'],
    ['a<b>.example.com', 'is not a valid domain name'],
    ['*.example.com', 'is not a valid domain name'],
    ['x.org..', 'is not a valid domain name'],
    ['', 'the domain is empty'],
    // The service's own rule, saying which part fails.
    ['example.123', 'its last label "123" is all digits'],
    ['a.b_c', 'its last label "b_c" holds "_": the last label takes letters, digits and "-" only'],
    ['256.1.1.1', 'it is no IPv4 address (four parts of 0 to 255)'],
    ['localhost', 'it has no dot'],
    ['www.com', '"www.com" (stored by the service as "com") is not a valid domain name: it has no dot'],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(64)}`, 'it is 256 characters long, and the service takes at most 255'],
  ])('%s is refused (%s)', (input, problem) => {
    expect(parseDomainInput(input).problem).toContain(problem);
  });

  it('live domains are keyed like file domains', () => {
    expect(domainKey('WWW.Example.com')).toBe('example.com');
    expect(domainKey('www.shop.www.example.com')).toBe('shop.example.com');
    expect(domainKey('shop.www.example.com')).toBe('shop.www.example.com');
    expect(domainKey('bücher.example')).toBe('xn--bcher-kva.example');
  });

  it.each([
    ['trailing.example.org.', 'trailing.example.org'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'bücher.example.'],
    ['my_site.example.com', 'MY_SITE.example.com'],
  ])('the live %s and the file\'s %s are one website', (live, written) => {
    expect(parseDomainInput(written).domain).toBe(domainKey(live));
  });

  it.each([
    ['a b.example.com', 'a b.example.com'],
    ['a\u001b[2j.example.com', 'a\u001b[2j.example.com'],
    ['a b.bücher.example.', 'a b.xn--bcher-kva.example'],
  ])('a live name that is no host name (%s) still has a key, which an ignore pattern of it matches', (live, key) => {
    expect(domainKey(live)).toBe(key);
    expect(new GlobSet([live]).matches(domainKey(live))).toBe(true);
  });

  it('export can tell which live names a file entry can hold', () => {
    expect(manageableTraits('trailing.example.org.')).toEqual({ trailingDot: true, unicode: false, ipv4: false, underscore: false });
    expect(manageableTraits('bücher.example')).toMatchObject({ unicode: true });
    expect(manageableTraits('192.0.2.1')).toMatchObject({ ipv4: true });
    expect(manageableTraits('my_site.example.com')).toMatchObject({ underscore: true });
    for (const odd of ['a b.example.com', '*.example.com', 'a|b.example.com', 'a\u001b[2J.example.com']) expect(manageableTraits(odd)).toBeUndefined();
  });
});

describe('domain globs', () => {
  const set = new GlobSet(['*.shop.example.com', 'example.com', 'api-*.example.org']);
  it.each([
    ['a.shop.example.com', 0],
    ['shop.example.com', -1],
    ['a.b.shop.example.com', -1],
    ['example.com', 1],
    ['x.example.com', -1],
    ['api-eu.example.org', 2],
    ['api-.example.org', 2],
    ['api.example.org', -1],
  ])('%s → pattern %i', (domain, index) => {
    expect(set.indexOf(domain)).toBe(index);
  });

  it.each([
    ['ab*ba.com', 'aba.com', false],
    ['ab*ba.com', 'abba.com', true],
    ['*a*b*.com', 'xbxax.com', false],
    ['*a*b*.com', 'xaxbx.com', true],
    ['a**b.com', 'ab.com', true],
    ['*-*-*.example.com', 'a-b.example.com', false],
    ['*-*-*.example.com', '--.example.com', true],
    ['*.*', 'a.b', true],
    ['*', 'a.b', false],
    ['*x*.com', 'x.com', true],
  ] as const)('%s against %s: %s', (glob, domain, matched) => {
    expect(new GlobSet([glob]).matches(domain)).toBe(matched);
  });

  it('the first pattern that matches, whether a name written out or a glob, before or after it', () => {
    expect(new GlobSet(['*.example.com', 'a.example.com']).indexOf('a.example.com')).toBe(0);
    expect(new GlobSet(['a.example.com', '*.example.com']).indexOf('a.example.com')).toBe(0);
    expect(new GlobSet(['b.example.com', 'A.Example.com.', '*.example.com']).indexOf('a.example.com')).toBe(1);
    expect(new GlobSet(['x.org', '*.*.org', 'a.b.org']).indexOf('a.b.org')).toBe(1);
  });

  it('a pattern of 30 stars against a long label takes milliseconds, not minutes (no backtracking)', () => {
    const glob = `${'*a'.repeat(30)}*b.com`;
    const label = 'a'.repeat(60);
    const set = new GlobSet([glob, `www.${glob}`]);
    for (const domain of [`${label}.com`, `${label}c.com`, `x.${label}.com`]) expect(set.matches(domain)).toBe(false);
    expect(set.matches(`${label}b.com`)).toBe(true);
    // A generous bound: the regular expression this replaces ran for minutes on a 40-character label.
  });
});

describe('a name hiding an invisible character is another name', () => {
  it.each(['zw\u200bsp.example.com', 'soft\u00adhy.example.com', 'vs\ufe0fx.example.com', 'bom\ufeffx.example.com'])(
    '%j keys as itself, not as the name without it (which IDNA would give)',
    (live) => {
      expect(domainKey(live)).toBe(live);
      expect(parseDomainInput(live).domain).toBeUndefined();
    },
  );
});

describe('a live domain is text, never a pattern', () => {
  it.each([
    // [globs, live domain, matched]
    [['*.example.com'], '*.example.com', true],
    [['*.example.com'], 'a.example.com', true],
    [['a.example.com'], '*.example.com', false],
    [['*.*.com'], '*.example.com', true],
    [['x*.example.com'], '*.example.com', false],
    [['*.example.com'], '*.b.example.com', false],
    [['a.example.com'], 'a|b.example.com', false],
    [['*.example.com'], 'a|b.example.com', true],
    [['*.example.com'], 'x](evil.example).example.com', false],
    [['*.com'], 'a\nb.com', true],
    [['b.com'], 'a\nb.com', false],
  ] as const)('%j matching the live %j: %s', (globs, domain, matched) => {
    expect(new GlobSet([...globs]).matches(domain)).toBe(matched);
  });

  it('a live "*" does not act as a wildcard: the text "*.example.com" equals only itself', () => {
    const literal = new GlobSet(['a.example.com', 'b.example.com']);
    expect(literal.matches('*.example.com')).toBe(false);
    expect(new GlobSet(['*.example.com']).matches('*.example.com')).toBe(true);
  });
});

describe('${NAME} interpolation', () => {
  it.each([
    ['plain', {}, 'plain', [], []],
    ['${A}', { A: 'x' }, 'x', [], []],
    ['a-${A}-${B}', { A: '1', B: '2' }, 'a-1-2', [], []],
    ['$${A}', { A: 'x' }, '${A}', [], []],
    ['$$${A}', { A: 'x' }, '$${A}', [], []],
    ['${MISSING}', {}, '${MISSING}', ['MISSING'], []],
    ['${1X}', {}, '${1X}', [], ['${1X}']],
    ['${open', {}, '${open', [], ['${open']],
    ['cost $5', {}, 'cost $5', [], []],
  ] as const)('%s', (text, env, value, missing, malformed) => {
    const r = interpolate(text, env);
    expect(r.value).toBe(value);
    expect(r.missing).toEqual(missing);
    expect(r.malformed).toEqual(malformed);
  });

  it('what export writes for a live text reads back as exactly that text, whatever its $, { and }', () => {
    const alphabet = ['$', '{', '}', 'A', '_'];
    for (let n = 0; n < 6 ** 5; n++) {
      let text = '';
      for (let k = n; k > 0; k = Math.floor(k / 6)) text += alphabet[(k % 6) - 1] ?? '';
      const r = interpolate(literal(text), { A: 'from the environment' });
      expect(r.value, text).toBe(text);
      expect(r.referenced || r.malformed.length > 0, text).toBe(false);
    }
  });
});

describe('what a --target searches for', () => {
  it.each([
    ['w5.example', 'w5.example'],
    ['w43*.example', 'w43'],
    ['*.shop.example.com', '.shop.example.com'],
    ['shop.*', 'shop.'],
    ['W5.Example', 'w5.example'],
    ['www.w5.example', 'w5.example'],
    ['x.org.', 'x.org'],
    ['my_site.example', 'my_site.example'],
    ['*shop.example.com', '.example.com'],
    ['*bcher*.shop.example', '.shop.example'],
    ['shop.xn*.example', 'shop.'],
  ])('%s searches %s', (glob, literal) => {
    expect(searchLiteral(glob)).toBe(literal);
  });

  it.each(['*', '*.com', '*.*', 'bücher.example', 'xn--bcher-kva.example', '*.xn--bcher-kva.example', '*bcher*.example', '*kva.example', 'xn*'])(
    '%s searches nothing: the whole list is read',
    (glob) => {
      expect(searchLiteral(glob)).toBeUndefined();
    },
  );

  it('a leading www. in a pattern matches the website the service stores without it', () => {
    expect(new GlobSet(['www.shop.example.com']).matches('shop.example.com')).toBe(true);
    expect(new GlobSet(['WWW.*.example.com']).matches('a.example.com')).toBe(true);
  });
});
