/**
 * Live data is data, not markup or terminal control. The service stores domains as given, so
 * the account may hold names that would break a table, a code span, an HTML comment or the
 * terminal itself; every output shows them as the text they are.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const ESC_DOMAIN = 'a\x1b[2j\x1b[31mred.example.com';
const ODD = [
  'a|b.example.com',
  '`x`.example.com',
  '<b>x</b>.example.com',
  'a<!--x.example.com',
  'x](evil.example).example.com',
  '*.example.com',
  ESC_DOMAIN,
  'bidi\u202emoc.example.com',
  'c1\u009b2j.example.com',
];
/** What a terminal must never receive from data: C0 but newline, DEL, C1, bidi controls. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function oddAccount(): Promise<Scenario> {
  s = await scenario({ keys: [{ key: KEY, name: 'Evil \x1b[2J <b>|name|</b>', email: 'e`@x.example' }] });
  s.emu.seed(KEY, [
    ...ODD.map((domain) => ({ domain, privacy: 0, email: 0, exclude_bots: 1 })),
    { domain: 'keep.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: '10.0.0.1\n\x1b[31mevil|`x`' },
  ]);
  await s.write('version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n    exclude_ips: [10.0.0.1]\n');
  return s;
}

describe('odd live domains in every output', () => {
  it('the text plan shows control characters as escapes and every domain as written', async () => {
    const sc = await oddAccount();
    const r = await sc.cli(['plan']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('- delete a\\x1b[2j\\x1b[31mred.example.com (id 7)');
    expect(r.stdout).toContain('- delete bidi\\u202emoc.example.com (id 8)');
    expect(r.stdout).toContain('- delete c1\\x9b2j.example.com (id 9)');
    for (const d of ODD.slice(0, 6)) expect(r.stdout).toContain(`- delete ${d} (id `);
    expect(r.stdout).toContain('- \\x1b[31mevil|`x`');
    expect(r.stdout).toContain('(account: Evil \\x1b[2J <b>|name|</b> <e`@x.example>)');
  });

  it('the coloured text plan carries only its own colour codes', async () => {
    const sc = await oddAccount();
    const r = await sc.cli(['plan'], { env: { FORCE_COLOR: '1' } });
    expect(r.stdout).toContain('\x1b[31m'); // its own red
    expect(r.stdout).not.toContain('\x1b[2j');
    expect(r.stdout).not.toContain('\x1b[2J');
    expect(r.stdout).not.toContain('\x1b[31mred.example.com');
    expect(r.stdout).not.toContain('\x1b[31mevil');
    expect(r.stdout).toContain('a\\x1b[2j\\x1b[31mred.example.com');
    // Without its own colour codes, nothing raw is left.
    expect(r.stdout.replace(/\x1b\[\d+m/g, '')).not.toMatch(RAW_CONTROL);
  });

  it('the markdown comment keeps its table, <details> and code spans whole', async () => {
    const sc = await oddAccount();
    const r = await sc.cli(['plan', '--format', 'markdown']);
    // The hidden approved block ends it, one line in which no domain can end the comment or be markup.
    const approved = /\n<!-- sitesync-approved: ([^\n]*?) -->\n$/.exec(r.stdout)!;
    expect(approved[1]).not.toMatch(/[<>&]|--/);
    const md = r.stdout.slice(0, approved.index + 1);
    expect(md).not.toMatch(RAW_CONTROL);
    const rows = md.split('\n').filter((l) => l.startsWith('| '));
    // GFM splits cells at pipes that are not backslash-escaped (a backslash escapes the next character).
    const cells = (row: string) => row.replace(/\\./g, '').split('|').length - 2;
    const summaryRows = rows.filter((l) => /^\| (🟢|🟡|🔴) (create|update|delete) \|/.test(l));
    expect(summaryRows).toHaveLength(ODD.length + 1);
    for (const row of summaryRows) expect(cells(row), row).toBe(3);
    for (const row of rows.filter((l) => /^\| (privacy|exclude_ips|field) /.test(l))) expect(cells(row), row).toBe(3);
    // No HTML but the comment's own, no comment opener, no link, no stray backtick.
    const withoutOwnTags = md.replace(/<\/?(details|summary|code)>/g, '').replace('<!-- sitesync-plan -->', '').replace(/^> /gm, '');
    expect(withoutOwnTags, md).not.toMatch(/[<>]/);
    expect(md.match(/<!--/g)).toHaveLength(1);
    expect(md.replace(/\\./g, '')).not.toContain(']('); // only escaped ones
    const spans = md.replace(/`[\w.:/@+%=,-]*`/g, '');
    expect(spans.replace(/\\`/g, '')).not.toContain('`');
    expect(md).toContain('<code>a\\|b.example.com</code>');
    expect(md).toContain('<code>\\`x\\`.example.com</code>');
    expect(md).toContain('<code>&lt;b&gt;x&lt;/b&gt;.example.com</code>');
    expect(md).toContain('<code>a&lt;!--x.example.com</code>');
    expect(md).toContain('<code>x\\](evil.example).example.com</code>');
    expect(md).toContain('<code>\\*.example.com</code>');
    expect(md).toContain('<code>a\\\\x1b\\[2j\\\\x1b\\[31mred.example.com</code>');
    expect(md.match(/<details>/g)).toHaveLength(1);
    expect(md.match(/<\/details>/g)).toHaveLength(1);
  });

  it('--format json and a saved plan hold every domain exactly, and no raw control character', async () => {
    const sc = await oddAccount();
    const saved = await sc.cli(['plan', '--out', 'plan.json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(await readFile(join(sc.dir, 'plan.json'), 'utf8')).not.toMatch(RAW_CONTROL);
    const r = await sc.cli(['plan', '--format', 'json']);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    const plan = JSON.parse(r.stdout);
    const deleted = plan.changes.filter((c: { action: string }) => c.action === 'delete').map((c: { domain: string }) => c.domain);
    expect(deleted.sort()).toEqual([...ODD].sort());
    expect(plan.accounts[0].account.name).toBe('Evil \x1b[2J <b>|name|</b>');
  });

  it('apply lines, failures and --verbose logs show control characters as escapes', async () => {
    const sc = await oddAccount();
    const escId = sc.emu.websites(KEY).find((w) => w.domain === ESC_DOMAIN)!.id;
    sc.emu.faults.before = (req) =>
      req.method === 'DELETE' && req.path.endsWith(`/websites/${escId}`)
        ? { status: 422, body: { message: 'refused \x1b[2J\x1b[31m here \u202e' } }
        : undefined;
    const r = await sc.cli(['--verbose', 'apply', '--auto-approve', '--force', '--parallelism', '1']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('✓ delete `x`.example.com (id 2)');
    expect(r.stdout).toContain('✗ delete a\\x1b[2j\\x1b[31mred.example.com (id 7): refused \\x1b[2J\\x1b[31m here \\u202e');
    expect(r.stdout).toContain('Applied: 0 created, 1 updated, 8 deleted, 1 failed.');
    expect(sc.emu.websites(KEY).map((w) => w.domain).sort()).toEqual([ESC_DOMAIN, 'keep.example.com'].sort());
  });

  it('account shows the name the service holds with its control characters escaped', async () => {
    const sc = await oddAccount();
    const r = await sc.cli(['account']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toContain('Evil \\x1b[2J <b>|name|</b> <e`@x.example>');
  });

  it('export writes valid YAML that reads back to the same domains, with nothing raw in it', async () => {
    const sc = await oddAccount();
    sc.emu.seed(KEY, [{ domain: 'pw\x1b[2j.example.com', privacy: 2, password: 'x', email: 0, exclude_bots: 1 }]);
    const r = await sc.cli(['export', '-o', 'out.yaml']);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(join(sc.dir, 'out.yaml'), 'utf8');
    expect(text).not.toMatch(RAW_CONTROL);
    const doc = parse(text) as { websites: { domain: string; exclude_ips?: string[] }[]; ignore?: string[]; protect?: string[] };
    // Every live website reads back as stored: listed, or left alone under ignore/protect.
    const named = [...doc.websites.map((w) => w.domain), ...(doc.ignore ?? []), ...(doc.protect ?? [])];
    expect(named.sort()).toEqual([...ODD, 'keep.example.com', 'pw\x1b[2j.example.com'].sort());
    expect(doc.websites.find((w) => w.domain === 'keep.example.com')!.exclude_ips).toEqual(['10.0.0.1', '\x1b[31mevil|`x`']);
    expect(text).toContain('# "pw\\x1b[2j.example.com" (id');
    // A file refuses the control character (validate says where): the entry says so, and what to do.
    expect(text).toContain('# exclude_ips "\\x1b[31mevil|`x`" holds a control character, which a file refuses: delete it here (apply then removes it at the service)');
  });
});

describe('live text in the pull-request comment', () => {
  it('mentions and issue references from the service neither link nor notify anyone', async () => {
    s = await scenario({ profile: 'full' }); // a service that returns exclude_params
    s.emu.seed(KEY, [{ domain: 'keep.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: '@acme/everyone\n#1\nref' }]);
    await s.write('version: 1\nwebsites:\n  - domain: keep.example.com\n    exclude_params: [ref]\n');
    const r = await s.cli(['plan', '--format', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('| exclude_params | removed: @&#8203;acme/everyone, \\#&#8203;1 |');
    expect(r.stdout).not.toMatch(/@acme|#1/);
  });
});

describe('a domain holding the text "\\x1b" and one holding an ESC', () => {
  const LITERAL = 'lit\\x1b[2j.example.com'; // a backslash, then x1b: no control character
  const REAL = 'lit\x1b[2j.example.com';

  it('read differently in the text plan, the markdown comment, apply lines and the export', async () => {
    s = await scenario();
    s.emu.seed(KEY, [LITERAL, REAL, 'keep.example.com'].map((domain) => ({ domain, privacy: 0, email: 0, exclude_bots: 1 })));
    await s.write('version: 1\nprune: true\nsafety: {max_delete_percent: 100}\nwebsites:\n  - domain: keep.example.com\n');
    const text = (await s.cli(['plan'])).stdout;
    expect(text).toContain('- delete lit\\\\x1b[2j.example.com (id 1)');
    expect(text).toContain('- delete lit\\x1b[2j.example.com (id 2)');
    const md = (await s.cli(['plan', '--format', 'markdown'])).stdout;
    expect(md).toContain('<code>lit\\\\\\\\x1b\\[2j.example.com</code>'); // renders lit\\x1b[2j…
    expect(md).toContain('<code>lit\\\\x1b\\[2j.example.com</code>'); // renders lit\x1b[2j…
    const exported = await s.cli(['export', '-o', 'out.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const yaml = await readFile(join(s.dir, 'out.yaml'), 'utf8');
    expect(yaml).toContain('"lit\\\\x1b[2j.example.com" (id 1)');
    expect(yaml).toContain('"lit\\x1b[2j.example.com" (id 2)');
    const applied = await s.cli(['apply', '--auto-approve', '--parallelism', '1']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('✓ delete lit\\\\x1b[2j.example.com (id 1)');
    expect(applied.stdout).toContain('✓ delete lit\\x1b[2j.example.com (id 2)');
  });
});

describe('a live "*" is a character, not a wildcard', () => {
  async function starAccount(yaml: string): Promise<Scenario> {
    s = await scenario();
    s.emu.seed(KEY, ['*.example.com', 'a.example.com', 'b.example.com'].map((domain) => ({ domain, privacy: 0, email: 0, exclude_bots: 1 })));
    await s.write(`version: 1\nprune: true\nsafety: {max_delete_percent: 100}\n${yaml}websites: []\n`);
    return s;
  }
  const deletes = async (sc: Scenario, args: string[] = []) => {
    const r = await sc.cli(['plan', '--format', 'json', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout).changes as { domain: string }[]).map((c) => c.domain).sort();
  };

  it('protect and ignore match the live "*.example.com" only by patterns that match its text', async () => {
    let sc = await starAccount('protect: ["a.example.com"]\n');
    expect(await deletes(sc)).toEqual(['*.example.com', 'b.example.com']);
    await sc.close();
    sc = await starAccount('ignore: ["b.example.com"]\n');
    expect(await deletes(sc)).toEqual(['*.example.com', 'a.example.com']);
    await sc.close();
    sc = await starAccount('protect: ["*.example.com"]\n');
    expect(await deletes(sc)).toEqual([]);
  });

  it('--target a.example.com leaves the live "*.example.com" out; --target "*.example.com" takes all three', async () => {
    const sc = await starAccount('');
    expect(await deletes(sc, ['--target', 'a.example.com'])).toEqual(['a.example.com']);
    expect(await deletes(sc, ['--target', '*.example.com'])).toEqual(['*.example.com', 'a.example.com', 'b.example.com']);
  });
});

describe('invisible characters in live text are shown escaped in every output', () => {
  /** Format and default-ignorable characters a name can hide: each shows as nothing, or as another name. */
  const HIDDEN = [
    'exa\u200dmple.com',
    'soft\u00adhy.example.com',
    'zw\u200bsp.example.com',
    'wj\u2060x.example.com',
    'bom\ufeffx.example.com',
    'vs\ufe0fx.example.com',
    'tag\u{e0041}x.example.com',
    'lrm\u200ex.example.com',
  ];
  const RAW_INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

  async function hiddenAccount(): Promise<Scenario> {
    s = await scenario({ keys: [{ key: KEY, name: 'Acme\u200b Corp', email: 'ops@example.com' }] });
    s.emu.seed(KEY, HIDDEN.map((domain) => ({ domain, privacy: 0, email: 0, exclude_bots: 1 })));
    await s.write('version: 1\nprune: true\nsafety: {max_delete_percent: 100}\nwebsites: []\n');
    return s;
  }

  it('a live exa\\u200dmple.com never prints as example.com: text, markdown, JSON, export', async () => {
    const sc = await hiddenAccount();
    const text = await sc.cli(['plan']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toMatch(RAW_INVISIBLE);
    expect(text.stdout).toContain('- delete exa\\u200dmple.com (id 1)');
    expect(text.stdout).toContain('- delete soft\\xadhy.example.com (id 2)');
    expect(text.stdout).toContain('- delete tag\\u{e0041}x.example.com (id 7)');
    expect(text.stdout).toContain('Acme\\u200b Corp');

    const md = (await sc.cli(['plan', '--format', 'markdown'])).stdout;
    expect(md).not.toMatch(RAW_INVISIBLE);
    expect(md).toContain('<code>exa\\\\u200dmple.com</code>');

    const json = (await sc.cli(['plan', '--format', 'json'])).stdout;
    expect(json).not.toMatch(RAW_INVISIBLE);
    expect(json).toContain('"exa\\u200dmple.com"');
    const deleted = JSON.parse(json).changes.map((c: { domain: string }) => c.domain);
    expect(deleted.sort()).toEqual([...HIDDEN].sort());

    const exported = await sc.cli(['export']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toMatch(RAW_INVISIBLE);
    const doc = parse(exported.stdout) as { ignore?: string[] };
    expect([...(doc.ignore ?? [])].sort()).toEqual([...HIDDEN].sort());
  });

  it('errors and GitHub annotations show them escaped as well', async () => {
    const sc = await hiddenAccount();
    sc.emu.faults.before = (req) => (req.method === 'DELETE' && req.path.endsWith('/websites/1') ? { status: 422, body: { message: 'no\u2060 way' } } : undefined);
    const applied = await sc.cli(['apply', '--auto-approve', '--force', '--parallelism', '1']);
    expect(applied.code).toBe(1);
    expect(applied.stdout + applied.stderr).not.toMatch(RAW_INVISIBLE);
    expect(applied.stdout).toContain('✗ delete exa\\u200dmple.com (id 1): ');
    expect(applied.stdout).toContain('no\\u2060 way');

    await sc.write('version: 1\nwebsites:\n  - domain: "exa\\u200dmple.com"\n  - domain: "exa\\u200dmple.com"\n');
    for (const format of ['text', 'github']) {
      const r = await sc.cli(['validate', '--format', format]);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toMatch(RAW_INVISIBLE);
      expect(r.stdout + r.stderr).toContain('exa\\u200dmple.com');
    }
  });
});
