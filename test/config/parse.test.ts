import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/api.js';
import { parseFile } from '../../src/config/parse.js';
import { ConfigError, formatDiagnostic } from '../../src/messages/errors.js';
import { isIpOrCidr } from '../../src/model/exclude-ips.js';

const fixtures = join(import.meta.dirname, '../fixtures/config');
const env = { EXAMPLE_STATS_PASSWORD: 'correct horse' };

async function problems(file: string, environment: Record<string, string> = env): Promise<string[]> {
  try {
    await loadConfig(file, { env: environment });
  } catch (error) {
    if (error instanceof ConfigError) {
      return error.diagnostics
        .filter((d) => d.severity === 'error')
        .map((d) => formatDiagnostic(d).replace(`${fixtures}/invalid/`, ''));
    }
    throw error;
  }
  return [];
}

// One fixture per failure, named by what it breaks: [fixture, FILE:LINE:COL: message].
const invalid: [string, string][] = [
  ['unknown-key', 'unknown-key.yaml:4:5: unknown key "exlude_ips" in websites[0] (did you mean "exclude_ips"?)'],
  ['unknown-top-level-key', 'unknown-top-level-key.yaml:2:1: unknown key "webistes" (did you mean "websites"?)'],
  ['missing-version', 'missing-version.yaml:1:1: the file has no "version", which is required'],
  ['wrong-version', 'wrong-version.yaml:1:10: version must be 1, not 2'],
  ['missing-domain', 'missing-domain.yaml:3:5: websites[0] has no "domain", which is required'],
  ['bad-privacy', 'bad-privacy.yaml:4:14: websites[0].privacy must be public, private or password (or 0, 1, 2), not "secret"'],
  ['privacy-out-of-range', 'privacy-out-of-range.yaml:4:14: websites[0].privacy must be public, private or password (or 0, 1, 2), not 3'],
  ['email-yes', 'email-yes.yaml:4:12: websites[0].email must be true or false (or 0, 1), not "yes"'],
  ['exclude-bots-two', 'exclude-bots-two.yaml:4:19: websites[0].exclude_bots must be true or false (or 0, 1), not 2'],
  ['list-of-numbers', 'list-of-numbers.yaml:4:22: websites[0].exclude_params[0] must be a string, not a number (quote it: "1")'],
  ['favorite-string', 'favorite-string.yaml:4:15: websites[0].favorite must be true or false, not a string'],
  ['password-number', 'password-number.yaml:5:15: websites[0].password must be a string, not a number (quote it)'],
  ['password-too-long', 'password-too-long.yaml:5:15: websites[0].password must be at most 128 characters'],
  ['password-in-defaults', 'password-in-defaults.yaml:3:3: password cannot be a default: set it on each website'],
  ['favorite-in-defaults', 'favorite-in-defaults.yaml:3:3: favorite cannot be a default: set it on each website'],
  ['missing-env-var', 'missing-env-var.yaml:5:15: websites[0].password: environment variable SITESYNC_TEST_UNSET_VARIABLE is not set'],
  ['malformed-reference', 'malformed-reference.yaml:4:22: websites[0].exclude_params[0]: "${1BAD}" is not a valid reference (use ${NAME}; write $${ for a literal "${")'],
  ['domain-with-scheme', 'domain-with-scheme.yaml:3:13: websites[0].domain: "https://example.com/" is not a bare domain name (no scheme, port or path): write "example.com"'],
  ['domain-with-port', 'domain-with-port.yaml:3:13: websites[0].domain: "example.com:8080" is not a bare domain name (no scheme, port or path): write "example.com"'],
  ['domain-with-path', 'domain-with-path.yaml:3:13: websites[0].domain: "example.com/blog" is not a bare domain name (no scheme, port or path): write "example.com"'],
  ['domain-invalid-label', 'domain-invalid-label.yaml:3:13: websites[0].domain: "exa!mple.com" is not a valid domain name'],
  ['domain-single-label', 'domain-single-label.yaml:3:13: websites[0].domain: "localhost" is not a valid domain name'],
  ['duplicate-domain', 'duplicate-domain.yaml:5:13: "EXAMPLE.com" (as "example.com") is listed twice: at line 3 and at line 5'],
  ['duplicate-www-domain', 'duplicate-www-domain.yaml:4:13: "www.example.com" (as "example.com") is listed twice: at line 3 and at line 4'],
  ['listed-and-ignored', 'listed-and-ignored.yaml:5:13: "a.sandbox.example.com" is listed at line 5 but ignored by "*.sandbox.example.com" at line 3: remove one of them'],
  ['bad-glob', 'bad-glob.yaml:2:11: protect[0]: "https://example.com/" is not a domain pattern (no scheme, port or path)'],
  ['bad-base-url', 'bad-base-url.yaml:3:13: api.base_url "analytics.example.com" is not a URL (write it like https://analytics.example.com)'],
  ['safety-percent-over-100', 'safety-percent-over-100.yaml:3:23: safety.max_delete_percent must be at most 100, not 150'],
  ['duplicate-key', 'duplicate-key.yaml:2:1: this key is written twice in the same mapping'],
  ['yaml-syntax', 'yaml-syntax.yaml:4:1: YAML: Missing closing "quote'],
  ['multiple-documents', 'multiple-documents.yaml:3:1: the file holds more than one YAML document (---): sitesync reads one'],
  ['top-level-list', 'top-level-list.yaml:1:1: the top level is a list; it must be a mapping with "version: 1" and "websites:"'],
  ['top-level-scalar', 'top-level-scalar.yaml:1:1: the top level is a single value; it must be a mapping with "version: 1" and "websites:"'],
  ['empty', 'empty.yaml:1:1: the file is empty: it needs at least "version: 1" and "websites:"'],
  ['only-comments', 'only-comments.yaml:1:1: the file is empty: it needs at least "version: 1" and "websites:"'],
  ['latin1-encoding', 'latin1-encoding.yaml:3:16: the file is not UTF-8 text (save it as UTF-8)'],
  ['binary', 'binary.yaml:2:1: this is a binary file (a NUL byte), not a YAML config file'],
  ['alias-bomb', 'alias-bomb.yaml:1:1: the file expands aliases too often'],
];

describe('an invalid file is refused with FILE:LINE:COL: message', () => {
  it.each(invalid)('%s', async (name, expected) => {
    const found = await problems(join(fixtures, 'invalid', `${name}.yaml`));
    expect(found.some((line) => line.startsWith(expected)), `got:\n${found.join('\n')}`).toBe(true);
  });

  it('every invalid fixture is in the table', async () => {
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir(join(fixtures, 'invalid'))).map((f) => f.replace(/\.yaml$/, ''));
    expect(files.sort()).toEqual(invalid.map(([n]) => n).sort());
  });

  it('reports every problem at once, in line order', async () => {
    const text = [
      'version: 1',
      'websites:',
      '  - domain: https://a.example.com',
      '    privacy: nope',
      '  - domain: b.example.com',
      '    exclude_ips: [1.2.3]',
      '    colour: red',
    ].join('\n');
    let error: unknown;
    try {
      parseFile(text, 'many.yaml', { env: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).diagnostics.map(formatDiagnostic)).toEqual([
      'many.yaml:3:13: websites[0].domain: "https://a.example.com" is not a bare domain name (no scheme, port or path): write "a.example.com"',
      'many.yaml:4:14: websites[0].privacy must be public, private or password (or 0, 1, 2), not "nope"',
      'many.yaml:6:19: warning: websites[1].exclude_ips[0]: "1.2.3" is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it',
      'many.yaml:7:5: unknown key "colour" in websites[1] (known keys: domain, privacy, password, email, exclude_bots, exclude_params, exclude_ips, favorite)',
    ]);
  });

  it('never echoes a password value in a message', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n    password: [hunter2]\n';
    const messages = await problemsOf(text);
    expect(messages.join('\n')).toContain('password must be a string, not a list');
    expect(messages.join('\n')).not.toContain('hunter2');
  });
});

describe('config messages that lead to the fix', () => {
  it('a wrong domain does not hide the same website\'s bad exclude_ips', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: https://a.example.com/\n    exclude_ips: [10.0.0.999]\n    privacy: nope\n';
    expect(await problemsOf(text)).toEqual([
      'x.yaml:3:13: websites[0].domain: "https://a.example.com/" is not a bare domain name (no scheme, port or path): write "a.example.com"',
      'x.yaml:4:19: warning: websites[0].exclude_ips[0]: "10.0.0.999" is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it',
      'x.yaml:5:14: websites[0].privacy must be public, private or password (or 0, 1, 2), not "nope"',
    ]);
  });

  it('a website listed twice or without a domain still has its other fields checked', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n  - domain: a.example.com\n    exclude_ips: [nope]\n  - exclude_ips: [nope2]\n';
    const found = await problemsOf(text);
    expect(found).toContain('x.yaml:5:19: warning: websites[1].exclude_ips[0]: "nope" is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it');
    expect(found).toContain('x.yaml:6:19: warning: websites[2].exclude_ips[0]: "nope2" is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it');
  });

  it('an exclude_ips entry written on many websites is judged the same on each, and warned about on each', () => {
    // isIpOrCidr remembers what it has checked (a bounded memo): more distinct entries than it
    // keeps, then the first ones again, must give the same answers.
    const entries = Array.from({ length: 5000 }, (_, i) => `10.${i >> 8}.${i & 255}.1`);
    expect(entries.every(isIpOrCidr)).toBe(true);
    for (const text of ['10.0.0.1', '2001:db8::/32', 'office-router', '10.0.0.999', '2001:db8::/129', 'fe80::1%eth0']) {
      expect([isIpOrCidr(text), isIpOrCidr(text)]).toEqual(Array(2).fill(['10.0.0.1', '2001:db8::/32'].includes(text)));
    }
    const sites = Array.from({ length: 3 }, (_, i) => `  - domain: s${i}.example.com\n    exclude_ips: [office-router, 10.0.0.1]\n`).join('');
    const { warnings } = parseFile(`version: 1\nwebsites:\n${sites}`, 'x.yaml', { env: {} });
    expect(warnings.map(formatDiagnostic)).toEqual(
      [4, 6, 8].map((line, i) => `x.yaml:${line}:19: warning: websites[${i}].exclude_ips[0]: "office-router" is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it`),
    );
  });

  it('${NAME} takes only a variable that is set, never what every object inherits (${toString}, ${__proto__}, ${constructor})', async () => {
    const site = (domain: string, name: string) => `  - domain: ${domain}\n    privacy: password\n    password: \${${name}}\n`;
    const text = `version: 1\nwebsites:\n${site('a.example.com', 'toString')}${site('b.example.com', '__proto__')}${site('c.example.com', 'constructor')}`;
    expect(await problemsOf(text)).toEqual([
      'x.yaml:5:15: websites[0].password: environment variable toString is not set',
      'x.yaml:8:15: websites[1].password: environment variable __proto__ is not set',
      'x.yaml:11:15: websites[2].password: environment variable constructor is not set',
    ]);
    // Set, they are variables like any other.
    const env = Object.assign(Object.create(null) as Record<string, string>, { toString: 'pw-0', constructor: 'pw-2' });
    const set = parseFile(text.replace('${__proto__}', 'literal'), 'x.yaml', { env }).configs[0]!;
    expect(set.websites.map((w) => w.password?.value)).toEqual(['pw-0', 'literal', 'pw-2']);
  });

  it('${NAME} anywhere but a website password is refused at its line, saying why and what to write instead', async () => {
    const text = [
      'version: 1',
      'api:',
      '  base_url: "https://stats.example.com/${KEY}"',
      'defaults:',
      '  exclude_params: ["${KEY}"]',
      'websites:',
      '  - domain: ${KEY}.example.com',
      '    exclude_ips: ["${KEY}"]',
      '    email: "${KEY}"',
      '  - domain: b.example.com',
      '    exclude_params: ["a$${b}"]',
      '',
    ].join('\n');
    const found = await problemsOf(text, { KEY: 'sk-live-SECRET-VALUE' });
    expect(found).toEqual([
      "x.yaml:3:13: api.base_url: ${NAME} is read from the environment only in a website's password; here its value would show in plans and pull-request comments, and the key would be sent to it: give the address with --base-url or SITESYNC_BASE_URL, or write it here",
      "x.yaml:5:20: defaults.exclude_params[0]: ${NAME} is read from the environment only in a website's password; here its value would show in plans and pull-request comments: write the value itself",
      "x.yaml:7:13: websites[0].domain: ${NAME} is read from the environment only in a website's password; here its value would show in plans and pull-request comments: write the value itself",
      "x.yaml:8:19: websites[0].exclude_ips[0]: ${NAME} is read from the environment only in a website's password; here its value would show in plans and pull-request comments: write the value itself",
      "x.yaml:9:12: websites[0].email: ${NAME} is read from the environment only in a website's password; here its value would show in plans and pull-request comments: write the value itself",
    ]);
    expect(found.join('\n')).not.toContain('SECRET-VALUE');
    // $${ still writes a literal ${, anywhere.
    const literal = parseFile('version: 1\nwebsites:\n  - domain: b.example.com\n    exclude_params: ["a$${b}"]\n', 'x.yaml', { env: {} }).configs[0]!;
    expect(literal.websites[0]!.exclude_params).toEqual(['a${b}']);
  });

  it('a "password" that is not a website\'s (websites as a mapping, a list nested deeper) does not read ${NAME}', async () => {
    for (const text of [
      'version: 1\nwebsites:\n  evil:\n    password: "${KEY}"\n',
      'version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params:\n      websites: [{password: "${KEY}"}]\n',
    ]) {
      const found = await problemsOf(text, { KEY: 'sk-live-SECRET-VALUE' });
      expect(found.join('\n')).toContain("${NAME} is read from the environment only in a website's password");
      expect(found.join('\n')).not.toContain('SECRET-VALUE');
    }
  });

  it("a password's value is held to the product's rules only (the schema sees ${NAME} as written): a message names the variable and the rule, never the value", async () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: ${PW}\n';
    expect(await problemsOf(text, { PW: ' ' })).toEqual([]);
    expect(await problemsOf(text, { PW: 'x'.repeat(500) })).toEqual([
      'x.yaml:5:15: websites[0].password: the value read from ${PW} is longer than 128 characters, the most the service takes',
    ]);
    expect(await problemsOf(text, { PW: '' })).toEqual([
      'x.yaml:5:15: websites[0].password: the value read from ${PW} is empty; the service takes a password of 1 to 128 characters',
    ]);
    const config = parseFile(text, 'x.yaml', { env: { PW: 'p'.repeat(128) } }).configs[0]!;
    expect(config.websites[0]!.password!.template).toBe('${PW}');
    expect(config.websites[0]!.password!.value).toBe('p'.repeat(128));
    // Written in clear, it is what the file says, and checked.
    expect((await problemsOf(`version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: ${'q'.repeat(129)}\n`)).join('\n')).toContain('password');
  });

  it('api: {api_key: …} says where the key goes, without repeating it', async () => {
    const found = await problemsOf('version: 1\napi:\n  base_url: https://a.example.com\n  api_key: sk-live-VERY-SECRET-123\nwebsites: []\n');
    expect(found).toEqual([
      'x.yaml:4:3: "api_key": the API key never goes in the file; put it in SITESYNC_API_KEY or in a file named by --api-key-file, and remove it from this file (and from git history)',
    ]);
    expect(found.join('\n')).not.toContain('VERY-SECRET');
  });

  it('a top-level token: is told the same', async () => {
    const found = await problemsOf('version: 1\ntoken: abc-SECRET\nwebsites: []\n');
    expect(found[0]).toMatch(/^x\.yaml:2:1: "token": the API key never goes in the file; put it in SITESYNC_API_KEY/);
    expect(found.join('\n')).not.toContain('abc-SECRET');
  });

  it('email: "true" says to drop the quotes', async () => {
    const text = 'version: "1"\nprune: "false"\nsafety:\n  min_existing: "5"\nwebsites:\n  - domain: a.example.com\n    email: "true"\n    privacy: "1"\n';
    expect(await problemsOf(text)).toEqual([
      'x.yaml:1:10: version must be 1, not "1" (drop the quotes: 1)',
      'x.yaml:2:8: prune must be true or false, not a string (drop the quotes: false)',
      'x.yaml:4:17: safety.min_existing must be a whole number, not a string (drop the quotes: 5)',
      'x.yaml:7:12: websites[0].email must be true or false (or 0, 1), not "true" (drop the quotes: true)',
      'x.yaml:8:14: websites[0].privacy must be public, private or password (or 0, 1, 2), not "1" (drop the quotes: 1)',
    ]);
  });

  it('a quoted value the field would not take anyway gets no such hint', async () => {
    const found = await problemsOf('version: 1\nwebsites:\n  - domain: a.example.com\n    email: "2"\n');
    expect(found).toEqual(['x.yaml:4:12: websites[0].email must be true or false (or 0, 1), not "2"']);
  });
});

describe('a control character in a domain or a list entry is an error at its position', () => {
  const ONE_LINE = 'an entry is one line of printable text (write each entry as its own list item)';

  it('exclude_ips: ["203.0.113.7\\r0.0.0.0/0"], which the service would read back as two entries, one of them 0.0.0.0/0', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_ips: ["203.0.113.7\\r0.0.0.0/0"]\n';
    expect(await problemsOf(text)).toEqual([
      `x.yaml:4:19: websites[0].exclude_ips[0] holds a carriage return (U+000D) at character 12, where the service would start another entry: ${ONE_LINE}`,
    ]);
  });

  it('in every list field, in defaults, in the one-string form, and in a domain (once, not also as "not a valid domain")', async () => {
    const text = [
      'version: 1',
      'defaults:',
      '  exclude_params: ["utm\\e[2Jx"]',
      'websites:',
      '  - domain: "a\\x85b.example.com"',
      '    exclude_params: "ref\\ngclid\\tfb"',
      '  - domain: b.example.com',
      '    exclude_ips: "10.0.0.1\\r\\n10.0.0.2"',
      '',
    ].join('\n');
    expect(await problemsOf(text)).toEqual([
      `x.yaml:3:20: defaults.exclude_params[0] holds an escape (U+001B) at character 4: ${ONE_LINE}`,
      `x.yaml:5:13: websites[0].domain holds a control character (U+0085) at character 2: ${ONE_LINE}`,
      `x.yaml:6:21: websites[0].exclude_params holds a tab (U+0009) at character 10: ${ONE_LINE}`,
    ]);
  });

  it('a line break between entries of the one-string form is no control character, nor is any printable character', async () => {
    const config = parseFile('version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: "ref\\r\\ngclid\\nfb ü €"\n', 'x.yaml', { env: {} }).configs[0]!;
    expect(config.websites[0]!.exclude_params).toEqual(['ref', 'gclid', 'fb ü €']);
  });
});

describe('a literal "${" written as "$${" is text, never a reference read again', () => {
  it('websites: [{domain: "$${X}"}, {domain: a.example.com}]: the first entry is an error at its position, not skipped', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: "$${X}"\n  - domain: a.example.com\n';
    expect(await problemsOf(text, { X: 'x.example.com' })).toEqual([
      'x.yaml:3:13: websites[0].domain: "${X}" is not a valid domain name (letters, digits, "-" and "_" in labels separated by dots)',
    ]);
  });

  it('in a list entry it is the literal text, and checked as any entry', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: ["$${X}"]\n    exclude_ips: ["$${X}"]\n';
    const { configs, warnings } = parseFile(text, 'x.yaml', { env: { X: '10.0.0.1' } });
    expect(configs[0]!.websites[0]!.exclude_params).toEqual(['${X}']);
    expect(configs[0]!.websites[0]!.exclude_ips).toEqual(['${X}']);
    expect(warnings.map(formatDiagnostic)).toEqual([
      'x.yaml:5:19: warning: websites[0].exclude_ips[0]: "${X}" is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it',
    ]);
  });

  it('in a password it is a password written in clear, "${X}", never the variable X', () => {
    const { configs, warnings } = parseFile('version: 1\nwebsites:\n  - domain: a.example.com\n    password: "$${X}"\n', 'x.yaml', { env: { X: 'from-the-environment' } });
    const password = configs[0]!.websites[0]!.password!;
    expect(password.value).toBe('${X}');
    expect(password.template).toBe('$${X}');
    expect(warnings.map(formatDiagnostic)).toEqual([
      'x.yaml:4:15: warning: the password of a.example.com is written in the file: use ${NAME} and set NAME in the environment',
    ]);
  });
});

async function problemsOf(text: string, env: Record<string, string> = {}): Promise<string[]> {
  try {
    parseFile(text, 'x.yaml', { env });
    return [];
  } catch (e) {
    return (e as ConfigError).diagnostics.map(formatDiagnostic);
  }
}

describe('files that are not config files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sitesync-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a missing file says so and how to start one', async () => {
    expect(await problems(join(dir, 'nope.yaml'))).toEqual([
      `${join(dir, 'nope.yaml')}: no such file (write one, or start from the live account: sitesync export -o FILE)`,
    ]);
  });

  it('a folder is refused', async () => {
    await mkdir(join(dir, 'folder.yaml'));
    expect(await problems(join(dir, 'folder.yaml'))).toEqual([`${join(dir, 'folder.yaml')}: this is a folder, not a config file`]);
  });

  it('a file of thousands of YAML mistakes shows the first hundred and counts the rest (a stranger\'s file is not a million lines of output)', async () => {
    const found = await problemsOf(`version: 1\nwebsites: []\n${'- a\n'.repeat(1000)}`);
    expect(found).toHaveLength(101);
    expect(found[0]).toMatch(/^x\.yaml:3:1: YAML: /);
    expect(found[100]).toMatch(/^x\.yaml:\d+:\d+: and 3,899 more YAML errors after this one; mend these first$/);
  });

  it('a file of a million replacement characters (U+FFFD, written as such) and then a byte that is not UTF-8 is refused at that byte, in one read of it', async () => {
    const file = join(dir, 'replacements.yaml');
    const bytes = Buffer.concat([Buffer.from('# '), Buffer.from('\ufffd'.repeat(1_000_000)), Buffer.from([0xff]), Buffer.from('\nversion: 1\n')]);
    await writeFile(file, bytes);
    expect(await problems(file)).toEqual([`${file}:1:3000003: the file is not UTF-8 text (save it as UTF-8)`]);
  });

  it('a huge file is refused before it is read', async () => {
    const file = join(dir, 'huge.yaml');
    await writeFile(file, Buffer.alloc(17 * 1024 * 1024, 0x20));
    const found = await problems(file);
    expect(found).toEqual([`${file}: the file is 17.0 MiB; a config file may be at most 16 MiB`]);
  });
});

describe('a valid file becomes the normalized model', () => {
  it('reads every key of the contract', async () => {
    const config = await loadConfig(join(fixtures, 'valid/full.yaml'), { env });
    expect(config.baseUrl).toBe('https://analytics.example.com');
    expect(config.defaults).toEqual({ exclude_bots: 1, exclude_params: ['utm_source', 'utm_medium', 'fbclid'] });
    expect(config.prune).toBe(false);
    expect(config.protect.map((p) => p.glob)).toEqual(['example.com', '*.shop.example.com']);
    expect(config.ignore.map((p) => [p.glob, p.pos.line])).toEqual([['*.sandbox.example.com', 10]]);
    expect(config.safety).toEqual({ max_delete_percent: 30, min_existing: 10, active_days: 30 });
    expect(config.websites.map((w) => w.domain)).toEqual([
      'example.com',
      'blog.example.com',
      'shop.example.com',
      'xn--bcher-kva.example',
    ]);
  });

  it('normalizes names, flags and lists, and keeps the secret template', async () => {
    const config = await loadConfig(join(fixtures, 'valid/full.yaml'), { env });
    const [example, blog, shop, idn] = config.websites;
    expect(example).toMatchObject({
      domain: 'example.com',
      privacy: 2,
      email: 1,
      exclude_bots: 1,
      exclude_params: ['gclid'],
      exclude_ips: ['203.0.113.7', '2001:db8::/32'],
      favorite: true,
      password: { template: '${EXAMPLE_STATS_PASSWORD}', value: 'correct horse' },
      pos: { line: 15, col: 13 },
    });
    expect(blog).toEqual({ domain: 'blog.example.com', written: 'blog.example.com', pos: { line: 23, col: 13 } });
    expect(shop).toMatchObject({
      domain: 'shop.example.com',
      written: 'Shop.Example.COM',
      privacy: 1,
      email: 0,
      exclude_bots: 0,
      exclude_params: ['ref', 'utm_campaign'],
      exclude_ips: ['10.0.0.0/8', '192.168.1.1'],
    });
    expect(idn).toMatchObject({ domain: 'xn--bcher-kva.example', privacy: 0 });
  });

  it('$${ writes a literal ${', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n    exclude_params: ["$${NOT_A_VAR}"]\n';
    const config = parseFile(text, 'x.yaml', { env: {} }).configs[0]!;
    expect(config.websites[0]!.exclude_params).toEqual(['${NOT_A_VAR}']);
  });

  it('an empty websites key is a file with no websites', async () => {
    for (const name of ['no-websites', 'empty-list']) {
      const config = await loadConfig(join(fixtures, 'valid', `${name}.yaml`), { env: {} });
      expect(config.websites).toEqual([]);
    }
  });

  it('www. is matched to the bare form, with a warning', async () => {
    const config = await loadConfig(join(fixtures, 'valid/www-prefix.yaml'), { env: {} });
    expect(config.websites[0]!.domain).toBe('example.org');
    expect(config.warnings.map(formatDiagnostic)).toEqual([
      `${join(fixtures, 'valid/www-prefix.yaml')}:3:13: warning: "www.example.org": the service stores this website as "example.org"; write the bare form`,
    ]);
  });

  it('domains the service stores are valid: underscore, trailing dot, IPv4 address, unicode', async () => {
    const config = await loadConfig(join(fixtures, 'valid/odd-domains.yaml'), { env: {} });
    expect(config.websites.map((w) => w.domain)).toEqual(['my_site.example.com', 'trailing.example.org', '192.0.2.1', 'xn--bcher-kva.example']);
    expect(config.warnings).toEqual([]);
  });

  it('an exclude_ips entry the service never matches is a warning with its line, not an error', async () => {
    const file = join(fixtures, 'valid/never-matching-ips.yaml');
    const config = await loadConfig(file, { env: {} });
    expect(config.websites[0]!.exclude_ips).toEqual(['10.0.0.1', 'office-router', '192.168.1.*']);
    const never = 'is not an IPv4 or IPv6 address or CIDR range: the service keeps it, but never matches a visitor with it';
    expect(config.warnings.map(formatDiagnostic)).toEqual([
      `${file}:4:29: warning: websites[0].exclude_ips[1]: "office-router" ${never}`,
      `${file}:4:44: warning: websites[0].exclude_ips[2]: "192.168.1.*" ${never}`,
      `${file}:6:18: warning: websites[1].exclude_ips: "2001:db8::/129" ${never}`,
    ]);
  });

  it('a password written in clear is allowed, with a warning that does not repeat it', async () => {
    const config = await loadConfig(join(fixtures, 'valid/literal-password.yaml'), { env: {} });
    const warnings = config.warnings.map(formatDiagnostic).join('\n');
    expect(warnings).toContain('the password of example.org is written in the file: use ${NAME}');
    expect(warnings).not.toContain('hunter2-literal');
  });

  it('a baseline may name variables that are no longer set', () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${GONE}\n';
    const config = parseFile(text, 'old.yaml', { env: {}, lenientEnv: true }).configs[0]!;
    expect([config.websites[0]!.password?.template, config.websites[0]!.password?.value]).toEqual(['${GONE}', '${GONE}']);
  });
});

describe('the library shows no password', () => {
  it('JSON.stringify, util.inspect, console.log and a template string of a loaded config show (sensitive), never the value', async () => {
    const { inspect } = await import('node:util');
    const config = parseFile('version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: ${PW}\n', 'x.yaml', { env: { PW: 'pw-SECRET-value' } }).configs[0]!;
    const password = config.websites[0]!.password!;
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 10 }), inspect(password, { showHidden: true }), `${password}`, String(password)]) {
      expect(shown).not.toContain('pw-SECRET-value');
    }
    expect(JSON.stringify(config)).toContain('"password":"(sensitive)"');
    // The code that sends it reads it.
    expect(password.value).toBe('pw-SECRET-value');
    expect(password.template).toBe('${PW}');
  });
});
