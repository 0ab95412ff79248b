import { describe, expect, it } from 'vitest';
import { jsonUnicodeEscapes, markdownCode, markdownText, printable } from '../../src/messages/escape.js';
import { SecretValues } from '../../src/secrets/values.js';

describe('what the service says is cleaned of every secret, whatever its length', () => {
  it('a one-character password is cleaned too', () => {
    const secrets = new SecretValues();
    secrets.add('1');
    expect(secrets.clean('password 1 is too short (id 21)')).toBe('password (redacted) is too short (id 2(redacted))');
  });

  it('in one pass, longest first: a secret inside another, or inside "(redacted)", is not mangled', () => {
    const secrets = new SecretValues();
    for (const s of ['e', 'ab', 'xabx']) secrets.add(s);
    expect(secrets.clean('xabx ab e')).toBe('(redacted) (redacted) (redacted)');
  });

  it('two secrets that overlap in the text are both gone: the stretch they cover is one (redacted)', () => {
    const secrets = new SecretValues();
    for (const s of ['abcXYZ', 'XYZdef', 'zz']) secrets.add(s);
    expect(secrets.clean('1 abcXYZdef 2 zzz 3 XYZdef abcXYZ')).toBe('1 (redacted) 2 (redacted) 3 (redacted) (redacted)');
  });

  it('characters that mean something in a regular expression are matched as they are', () => {
    const secrets = new SecretValues();
    secrets.add('a.b*(c|');
    expect(secrets.clean('axb a.b*(c| end')).toBe('axb (redacted) end');
  });

  it('a parsed body is cleaned in every string, keys included; other values are kept', () => {
    const secrets = new SecretValues();
    secrets.add('pw');
    const body = { message: { password: ['pw is weak'], pw: 'x' }, status: 422, list: [1, 'pw'] };
    expect(secrets.cleanDeep(body)).toEqual({ message: { password: ['(redacted) is weak'], '(redacted)': 'x' }, status: 422, list: [1, '(redacted)'] });
  });

  it('a password said back percent-encoded, form-encoded or inside a JSON string is cleaned in each spelling', () => {
    const secrets = new SecretValues();
    secrets.add('p@ss w&rd"');
    expect(secrets.clean('raw p@ss w&rd" form password=p%40ss+w%26rd%22 path /p%40ss%20w%26rd%22 json {"password":"p@ss w&rd\\""}')).toBe(
      'raw (redacted) form password=(redacted) path /(redacted) json {"password":"(redacted)"}',
    );
    expect(secrets.size).toBe(1);
  });

  it("a password in a URL's path or query as the URL parser encodes it, and inside a JSON string as PHP writes one, is cleaned too", () => {
    const secrets = new SecretValues();
    secrets.add('p@ss word:99');
    secrets.add('pässwörd/123');
    const location = new URL('http://x/login/p@ss word:99?next=p@ss word:99');
    expect(location.pathname + location.search).toBe('/login/p@ss%20word:99?next=p@ss%20word:99');
    expect(secrets.clean(location.pathname + location.search)).toBe('/login/(redacted)?next=(redacted)');
    expect(secrets.clean('{"message":"p\\u00e4ssw\\u00f6rd\\/123 is taken"}')).toBe('{"message":"(redacted) is taken"}');
  });

  it('with nothing registered, text is left exactly as it is', () => {
    expect(new SecretValues().clean('anything')).toBe('anything');
  });

  it('what the service holds is cleaned of secrets of 8 characters or more only: a shorter one occurs in ordinary values by chance', () => {
    const secrets = new SecretValues();
    for (const s of ['1', 'delete', 'a-long-password']) secrets.add(s);
    expect(secrets.cleanData('10.0.0.1 /delete?pw=a-long-password')).toBe('10.0.0.1 /delete?pw=(redacted)');
    expect(secrets.clean('10.0.0.1')).toBe('(redacted)0.0.0.(redacted)');
  });
});

describe('live text is shown as data on a terminal', () => {
  it.each([
    ['a\x1b[2J\x1b[31mred.example.com', 'a\\x1b[2J\\x1b[31mred.example.com'],
    ['new\nline\r\tx', 'new\\nline\\r\\tx'],
    ['del\x7f c1\x9b31m', 'del\\x7f c1\\x9b31m'],
    ['bidi\u202eevil\u2066x\u200f', 'bidi\\u202eevil\\u2066x\\u200f'],
    ['plain.example.com', 'plain.example.com'],
    ['bücher.example ✓ → é', 'bücher.example ✓ → é'],
    // A backslash that would read as an escape is doubled: the text \x1b never looks like an ESC.
    ['lit\\x1b[2j.example.com', 'lit\\\\x1b[2j.example.com'],
    ['a\\\x1b', 'a\\\\\\x1b'],
    ['C:\\Users\\me', 'C:\\Users\\me'],
  ])('%j is shown as %s', (raw, shown) => {
    expect(printable(raw)).toBe(shown);
  });

  it.each([
    ['exa\u200dmple.com', 'exa\\u200dmple.com'],
    ['soft\u00adhyphen', 'soft\\xadhyphen'],
    ['zw\u200bsp \u200cnj \u2060wj \ufeffbom', 'zw\\u200bsp \\u200cnj \\u2060wj \\ufeffbom'],
    ['vs\ufe0f cgj\u034f filler\u3164 mvs\u180e alm\u061c', 'vs\\ufe0f cgj\\u034f filler\\u3164 mvs\\u180e alm\\u061c'],
    ['tag\u{e0041} vs\u{e0100} unassigned\u2065', 'tag\\u{e0041} vs\\u{e0100} unassigned\\u2065'],
    // Visible characters stay, and a backslash before a "u" is doubled so that no text reads as an escape.
    ['emoji ✓ 😀 é', 'emoji ✓ 😀 é'],
    ['lit\\u200d', 'lit\\\\u200d'],
  ])('the invisible %j is shown as %s', (raw, shown) => {
    expect(printable(raw)).toBe(shown);
  });

  it('every format (Cf) and default-ignorable character is escaped, by their Unicode properties', () => {
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const ch = String.fromCodePoint(code);
      if (/[\p{Cf}\p{Default_Ignorable_Code_Point}]/u.test(ch)) expect(printable(ch), `U+${code.toString(16)}`).not.toContain(ch);
    }
  });

  it('JSON keeps its values: DEL, C1 and bidi controls become \\u escapes that parse back', () => {
    const value = { d: 'a\x7fb\x9bc\u202ed\x1be' };
    const text = jsonUnicodeEscapes(JSON.stringify(value, null, 2));
    expect(text).not.toMatch(/[\x7f-\x9f\u202e\x1b]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('JSON: format and default-ignorable characters too, a pair of escapes past U+FFFF', () => {
    const value = { d: 'exa\u200dmple.com soft\u00ad tag\u{e0041} 😀' };
    const text = jsonUnicodeEscapes(JSON.stringify(value));
    expect(text).toBe('{"d":"exa\\u200dmple.com soft\\u00ad tag\\udb40\\udc41 😀"}');
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('live text is shown as data in markdown', () => {
  it.each([
    ['exa\u200dmple.com', 'exa\\\\u200dmple.com'],
    ['a|b.example.com', 'a\\|b.example.com'],
    ['`x`.example.com', '\\`x\\`.example.com'],
    ['<b>x</b>.example.com', '&lt;b&gt;x&lt;/b&gt;.example.com'],
    ['a<!--x.example.com', 'a&lt;!--x.example.com'],
    ['x](evil.example).example.com', 'x\\](evil.example).example.com'],
    ['*.example.com', '\\*.example.com'],
    ['a\\|b', 'a\\\\\\|b'],
    ['a&amp;b', 'a&amp;amp;b'],
    ['_em_ utm_source $x$ ~~s~~', '\\_em\\_ utm_source \\$x\\$ \\~\\~s\\~\\~'],
    ['a\x1b[31mb', 'a\\\\x1b\\[31mb'],
    ['a\\x1b[31mb', 'a\\\\\\\\x1b\\[31mb'],
    // Mentions and issue references neither link nor notify; an e-mail address is no mention.
    ['@org/team, #12, org/repo#3, ops@example.com', '@&#8203;org/team, \\#&#8203;12, org/repo\\#&#8203;3, ops@example.com'],
  ])('%j as text is %s', (raw, md) => {
    expect(markdownText(raw)).toBe(md);
  });

  it('ordinary domains stay code spans; anything else is <code> with its content escaped', () => {
    expect(markdownCode('example.com')).toBe('`example.com`');
    expect(markdownCode('https://analytics.example.com')).toBe('`https://analytics.example.com`');
    expect(markdownCode('my_site.example.com')).toBe('`my_site.example.com`');
    expect(markdownCode('`x`.example.com')).toBe('<code>\\`x\\`.example.com</code>');
    expect(markdownCode('a|b.example.com')).toBe('<code>a\\|b.example.com</code>');
    expect(markdownCode('a<!--x.example.com')).toBe('<code>a&lt;!--x.example.com</code>');
  });
});
