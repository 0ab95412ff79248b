import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/config/parse.js';
import type { Account, Change, LiveWebsite, Plan } from '../../src/model/types.js';
import { planChanges, PlanningError, type PlanOptions } from '../../src/planner/plan.js';

const env = { PW: 'secret-pw', PW2: 'other-pw' };
const BASE = 'https://analytics.example.com';

function config(yaml: string, environment: Record<string, string> = env) {
  return parseFile(`version: 1\n${yaml}`, 'sitesync.yaml', { env: environment }).configs[0]!;
}

/** A live website as the deployed service shows it: no exclude_params. */
function live(id: number, domain: string, extra: Partial<LiveWebsite> = {}): LiveWebsite {
  return { id, domain, privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], favorite: false, password: false, ...extra };
}

/** A live website from a service that returns every field. */
function full(id: number, domain: string, extra: Partial<LiveWebsite> = {}): LiveWebsite {
  return live(id, domain, { exclude_params: [], ...extra });
}

function plan(yaml: string, sites: LiveWebsite[], options: PlanOptions = {}, account: Account | null = null): Plan {
  return planChanges({ config: config(yaml), live: sites, account, baseUrl: BASE, options });
}

/** A compact view of a plan's changes: "update a.com: privacy, email". */
function brief(p: Plan): string[] {
  return p.changes.map((c: Change) => {
    const fields = c.details.map((d) => (d.write_only && c.action === 'update' ? `${d.field}[${d.write_only}]` : d.field));
    return `${c.action} ${c.domain}${fields.length ? `: ${fields.join(', ')}` : ''}`;
  });
}

describe('the planner: creates, updates, unchanged', () => {
  const cases: { name: string; yaml: string; live: LiveWebsite[]; options?: PlanOptions; expected: string[]; summary?: Partial<Plan['summary']> }[] = [
    {
      name: 'a website the account lacks is created with every enforced field',
      yaml: 'websites:\n  - domain: a.example.com',
      live: [],
      expected: ['create a.example.com: privacy, email, exclude_bots, exclude_params, exclude_ips'],
      summary: { create: 1 },
    },
    {
      name: 'a new favorite is stored, then updated (favorite is part of the create)',
      yaml: 'websites:\n  - domain: a.example.com\n    favorite: true',
      live: [],
      expected: ['create a.example.com: privacy, email, exclude_bots, exclude_params, exclude_ips, favorite'],
    },
    {
      name: 'a new password-protected website sends its password',
      yaml: 'websites:\n  - domain: a.example.com\n    privacy: password\n    password: ${PW}',
      live: [],
      expected: ['create a.example.com: privacy, password, email, exclude_bots, exclude_params, exclude_ips'],
    },
    {
      name: 'a website that matches is unchanged',
      yaml: 'websites:\n  - domain: a.example.com',
      live: [full(1, 'a.example.com')],
      expected: [],
      summary: { unchanged: 1, create: 0, update: 0 },
    },
    {
      name: 'only the fields that differ are updated',
      yaml: 'websites:\n  - domain: a.example.com\n    privacy: private\n    email: true',
      live: [full(1, 'a.example.com')],
      expected: ['update a.example.com: privacy, email'],
    },
    {
      name: 'defaults apply where the website sets nothing; its own value wins',
      yaml: 'defaults:\n  exclude_bots: false\n  email: 1\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n    email: 0',
      live: [full(1, 'a.example.com'), full(2, 'b.example.com')],
      expected: ['update a.example.com: email, exclude_bots', 'update b.example.com: exclude_bots'],
    },
    {
      name: 'lists compare as sets: order and duplicates are no change',
      yaml: 'websites:\n  - domain: a.example.com\n    exclude_ips: [10.0.0.1, 10.0.0.2, 10.0.0.1]\n    exclude_params: [b, a]',
      live: [full(1, 'a.example.com', { exclude_ips: ['10.0.0.2', '10.0.0.1'], exclude_params: ['a', 'b'] })],
      expected: [],
    },
    {
      name: 'favorite is compared only where the file sets it',
      yaml: 'websites:\n  - domain: a.example.com\n  - domain: b.example.com\n    favorite: false',
      live: [full(1, 'a.example.com', { favorite: true }), full(2, 'b.example.com', { favorite: true })],
      expected: ['update b.example.com: favorite'],
    },
    {
      name: 'a field the service does not return is never a guessed change',
      yaml: 'websites:\n  - domain: a.example.com\n    exclude_params: [utm_source]',
      live: [live(1, 'a.example.com')],
      expected: [],
      summary: { unchanged: 1 },
    },
    {
      name: 'an unreadable field is sent with an update made anyway',
      yaml: 'websites:\n  - domain: a.example.com\n    email: 1\n    exclude_params: [utm_source]',
      live: [live(1, 'a.example.com')],
      expected: ['update a.example.com: email, exclude_params[with-update]'],
    },
    {
      name: 'a password is never compared: no change on every run',
      yaml: 'websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW}',
      live: [full(1, 'a.example.com', { privacy: 2, password: true })],
      expected: [],
    },
    {
      name: 'a password that the service reports unset while privacy is 2 is sent',
      yaml: 'websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW}',
      live: [full(1, 'a.example.com', { privacy: 2, password: false })],
      expected: ['update a.example.com: password[missing]'],
    },
    {
      name: 'switching to privacy password sends the password with it',
      yaml: 'websites:\n  - domain: a.example.com\n    privacy: password\n    password: ${PW}',
      live: [full(1, 'a.example.com', { password: true })],
      expected: ['update a.example.com: privacy, password[with-update]'],
    },
    {
      name: '--resend-write-only sends write-only fields to every managed website that sets them',
      yaml: 'websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW}\n  - domain: b.example.com\n    exclude_params: [ref]\n  - domain: c.example.com',
      live: [live(1, 'a.example.com', { privacy: 2, password: true }), live(2, 'b.example.com'), live(3, 'c.example.com')],
      options: { resendWriteOnly: true },
      expected: ['update a.example.com: password[resend]', 'update b.example.com: exclude_params[resend]'],
      summary: { unchanged: 1 },
    },
    {
      name: 'an update leaves alone a field the service does not show and the file does not set (an exported file keeps exclude_params)',
      yaml: 'websites:\n  - domain: a.example.com\n    email: true',
      live: [live(1, 'a.example.com')],
      expected: ['update a.example.com: email'],
    },
    {
      name: 'a write-only field set in defaults counts as set by the file',
      yaml: 'defaults:\n  exclude_params: [utm_source]\nwebsites:\n  - domain: a.example.com\n    email: true',
      live: [live(1, 'a.example.com')],
      expected: ['update a.example.com: email, exclude_params[with-update]'],
    },
    {
      name: 'an empty list written in the file is sent: clearing is something the file can say',
      yaml: 'websites:\n  - domain: a.example.com\n    email: true\n    exclude_params: []',
      live: [live(1, 'a.example.com')],
      expected: ['update a.example.com: email, exclude_params[with-update]'],
    },
  ];

  it.each(cases)('$name', ({ yaml, live: sites, options, expected, summary }) => {
    const p = plan(yaml, sites, options);
    expect(brief(p)).toEqual(expected);
    if (summary) expect(p.summary).toMatchObject(summary);
  });
});

describe('the planner: --baseline for write-only fields', () => {
  const yaml = 'websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW}\n    exclude_params: [x]\n  - domain: b.example.com\n    exclude_params: [y]';
  const sites = [live(1, 'a.example.com', { privacy: 2, password: true }), live(2, 'b.example.com')];

  it('nothing is sent when the baseline is the same file', () => {
    expect(brief(plan(yaml, sites, { baseline: config(yaml) }))).toEqual([]);
  });

  it('a changed password or list is sent to that website only', () => {
    const old = 'websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW2}\n    exclude_params: [x]\n  - domain: b.example.com\n    exclude_params: [z]';
    expect(brief(plan(yaml, sites, { baseline: config(old) }))).toEqual([
      'update a.example.com: password[baseline], exclude_params[with-update]',
      'update b.example.com: exclude_params[baseline]',
    ]);
  });

  it('passwords are compared as written: a reference renamed is a change even when both variables hold one value, and a value that differs under one name is not', () => {
    const renamed = yaml.replace('${PW}', '${SAME_PW}');
    const same = { ...env, PW: 'one-value', SAME_PW: 'one-value' };
    const p = planChanges({ config: config(yaml, same), live: sites, account: null, baseUrl: BASE, options: { baseline: config(renamed, same) } });
    expect(brief(p)).toEqual(['update a.example.com: password[baseline], exclude_params[with-update]']);
    const other = planChanges({ config: config(yaml, { ...env, PW: 'now' }), live: sites, account: null, baseUrl: BASE, options: { baseline: config(yaml, { ...env, PW: 'then' }) } });
    expect(brief(other)).toEqual([]);
  });

  it('a changed default reaches every website that uses it', () => {
    const now = 'defaults:\n  exclude_params: [utm_source]\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n    exclude_params: [own]';
    const old = 'defaults:\n  exclude_params: [fbclid]\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n    exclude_params: [own]';
    expect(brief(plan(now, [live(1, 'a.example.com'), live(2, 'b.example.com')], { baseline: config(old) }))).toEqual([
      'update a.example.com: exclude_params[baseline]',
    ]);
  });

  it('a write-only field dropped from the file is no longer sent, and the plan says the service keeps its value', () => {
    const now = 'websites:\n  - domain: a.example.com\n    email: true';
    const old = 'websites:\n  - domain: a.example.com\n    exclude_params: [ref]';
    const p = plan(now, [live(1, 'a.example.com')], { baseline: config(old) });
    expect(brief(p)).toEqual(['update a.example.com: email']);
    expect(p.warnings).toEqual([
      'a.example.com (line 3): exclude_params is no longer in the file, so the service keeps the value it holds, which sitesync cannot read; write "exclude_params: []" to clear it',
    ]);
  });

  it('a website the baseline did not list gets its write-only fields', () => {
    expect(brief(plan(yaml, sites, { baseline: config('websites: []') }))).toEqual([
      'update a.example.com: password[baseline], exclude_params[baseline]',
      'update b.example.com: exclude_params[baseline]',
    ]);
  });
});

describe('the planner: a sent write-only field says it overwrites what it cannot read', () => {
  it('a list or a set password is marked as overwriting; a password the service has none of is not', () => {
    const p = plan(
      'websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW}\n    exclude_params: [ref]\n    email: 1\n  - domain: b.example.com\n    privacy: 2\n    password: ${PW}',
      [live(1, 'a.example.com', { privacy: 2, password: true }), live(2, 'b.example.com', { privacy: 2, password: false })],
    );
    const marks = p.changes.flatMap((c) => c.details.map((d) => `${c.domain} ${d.field}: ${d.overwrites_unread ? 'overwrites' : '-'}`));
    expect(marks).toEqual([
      'a.example.com password: overwrites',
      'a.example.com email: -',
      'a.example.com exclude_params: overwrites',
      'b.example.com password: -',
    ]);
  });

  it('a create overwrites nothing', () => {
    const p = plan('websites:\n  - domain: a.example.com\n    exclude_params: [ref]', []);
    expect(p.changes[0]!.details.some((d) => d.overwrites_unread)).toBe(false);
  });
});

describe('the planner: deletes and what protects websites', () => {
  const sites = [full(1, 'a.example.com'), full(2, 'old.example.com'), full(3, 'keep.example.com'), full(4, 'x.sandbox.example.com')];
  const yaml = (prune: boolean) =>
    `prune: ${prune}\nprotect: [keep.example.com]\nignore: ["*.sandbox.example.com"]\nwebsites:\n  - domain: a.example.com`;

  it('nothing is deleted without prune', () => {
    const p = plan(yaml(false), sites);
    expect(brief(p)).toEqual([]);
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 1, unmanaged: 3 });
  });

  it('prune deletes unlisted websites, never protected or ignored ones', () => {
    const p = plan(yaml(true), sites);
    expect(brief(p)).toEqual(['delete old.example.com']);
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 1, unchanged: 1, unmanaged: 2 });
    expect(p.changes[0]).toMatchObject({ id: 2, after: null, seen: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('--prune on the command line does what prune: true does', () => {
    expect(brief(plan(yaml(false), sites, { prune: true }))).toEqual(['delete old.example.com']);
  });

  it('an ignored website is never updated either', () => {
    const p = plan('ignore: ["*.sandbox.example.com"]\nwebsites: []', [full(4, 'x.sandbox.example.com', { privacy: 1 })], { prune: true });
    expect(p.changes).toEqual([]);
    expect(p.safety.managed).toBe(0);
  });

  it('--target narrows creates, updates and deletes', () => {
    const p = plan(
      'websites:\n  - domain: a.example.com\n    privacy: 1\n  - domain: b.shop.example.com\n  - domain: c.shop.example.com\n    privacy: 1',
      [full(1, 'a.example.com'), full(2, 'c.shop.example.com'), full(3, 'd.shop.example.com')],
      { targets: ['*.shop.example.com'], prune: true },
    );
    expect(brief(p)).toEqual(['create b.shop.example.com: privacy, email, exclude_bots, exclude_params, exclude_ips', 'update c.shop.example.com: privacy', 'delete d.shop.example.com']);
  });
});

describe('the planner: a --target that matches nothing is an error', () => {
  const yaml = 'websites:\n  - domain: a.shop.example.com';
  const sites = [full(1, 'a.shop.example.com'), full(2, 'b.example.com')];

  it('a pattern that matches a website of the file or of the account is fine', () => {
    expect(() => plan(yaml, sites, { targets: ['a.shop.example.com', 'b.example.com', '*.shop.example.com'] })).not.toThrow();
  });

  it.each([
    ['nomatch.org', '--target "nomatch.org" matches no website in the file or the account'],
    ['shop*', '--target "shop*" matches no website in the file or the account'],
    [
      'https://a.shop.example.com',
      '--target "https://a.shop.example.com" matches no website in the file or the account; "https://a.shop.example.com" is not a bare domain name (no scheme, port or path): write "a.shop.example.com"',
    ],
  ])('%s is refused with a message that names it', (target, message) => {
    expect(() => plan(yaml, sites, { targets: [target] })).toThrow(new PlanningError(message));
  });

  it('every pattern that matches nothing is named, even beside one that matches', () => {
    try {
      plan(yaml, sites, { targets: ['b.example.com', 'typo.org', 'nope.org'] });
      expect.unreachable();
    } catch (error) {
      expect((error as PlanningError).message).toBe('2 --target patterns match no website in the file or the account');
      expect((error as PlanningError).details).toEqual([
        '--target "typo.org" matches no website in the file or the account',
        '--target "nope.org" matches no website in the file or the account',
      ]);
    }
  });
});

describe('the planner: with --target, an --exclude must leave out a targeted website', () => {
  const yaml = 'websites:\n  - domain: a.shop.example.com\n  - domain: b.shop.example.com\n  - domain: c.example.com';
  const sites = [full(1, 'a.shop.example.com'), full(2, 'c.example.com')];

  it('an --exclude that matches only websites outside the targets is refused: it would exclude nothing', () => {
    expect(() => plan(yaml, sites, { targets: ['*.shop.example.com'], excludes: ['c.example.com'] })).toThrow(
      new PlanningError('--exclude "c.example.com" matches no website that --target selects, in the file or the account'),
    );
  });

  it('one that leaves out a targeted website is fine, and so is any matching --exclude without --target', () => {
    const narrowed = plan(yaml, sites, { targets: ['*.shop.example.com'], excludes: ['b.shop.example.com'] });
    expect(narrowed.changes.map((c) => c.domain)).not.toContain('b.shop.example.com');
    expect(plan(yaml, sites, { targets: ['*.shop.example.com'] }).changes.map((c) => c.domain)).toContain('b.shop.example.com');
    expect(() => plan(yaml, sites, { excludes: ['c.example.com'] })).not.toThrow();
  });
});

describe('the planner: safety and limits are part of the plan', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => full(i + 1, `s${i + 1}.example.com`));

  it('deleting more than the share of managed websites is flagged with counts', () => {
    const p = plan('prune: true\nwebsites:\n  - domain: s1.example.com', many(21).slice(0, 21));
    expect(p.safety).toMatchObject({ managed: 21, deletes: 20, exceeded: true });
    expect(p.warnings).toContain('this plan deletes 20 of 21 managed websites, 95 % > 30 %: apply will refuse without --force');
  });

  it('below min_existing the share does not count', () => {
    const p = plan('prune: true\nwebsites:\n  - domain: s1.example.com', many(9));
    expect(p.safety.exceeded).toBe(false);
  });

  it('exactly at the threshold is allowed (strictly greater refuses)', () => {
    const p = plan('prune: true\nsafety:\n  max_delete_percent: 50\n  min_existing: 2\nwebsites:\n  - domain: s1.example.com\n  - domain: s2.example.com', many(4));
    expect(p.safety).toMatchObject({ deletes: 2, managed: 4, percent: 50, exceeded: false });
  });

  it('a file that lists no websites never deletes without --force, whatever the counts', () => {
    const p = plan('prune: true\nsafety:\n  max_delete_percent: 100\nwebsites: []', many(2));
    expect(p.safety).toMatchObject({ empty_file: true, exceeded: false, deletes: 2 });
    expect(p.warnings.join('\n')).toContain('the file lists no websites but this plan deletes 2');
  });

  it("the account's website limit is checked against the creates", () => {
    const account: Account = { id: 1, name: 'A', email: 'a@example.com', plan: 'Small', websiteLimit: 3 };
    const p = plan('websites:\n  - domain: s1.example.com\n  - domain: n1.example.com\n  - domain: n2.example.com', many(2), {}, account);
    expect(p.limit).toEqual({ limit: 3, live: 2, after: 4, exceeded: true });
    expect(p.warnings.join('\n')).toContain("the account's plan allows 3 websites; after this plan it would hold 4");
  });

  it('an unlimited plan (-1) is never exceeded', () => {
    const account: Account = { id: 1, name: 'A', email: 'a@example.com', plan: 'Big', websiteLimit: null };
    expect(plan('websites:\n  - domain: n1.example.com', [], {}, account).limit.exceeded).toBe(false);
  });
});

describe('the planner: warnings and refusals', () => {
  it('www. in the file is matched to the live bare domain, with a warning', () => {
    const p = plan('websites:\n  - domain: www.a.example.com', [full(1, 'a.example.com')]);
    expect(p.changes).toEqual([]);
    expect(p.warnings).toContain('"www.a.example.com" (line 3) is matched to the live a.example.com: write the bare form');
  });

  it('says once which fields could not be verified', () => {
    const p = plan('websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW}\n  - domain: b.example.com\n    exclude_params: [ref]', [
      live(1, 'a.example.com', { privacy: 2, password: true }),
      live(2, 'b.example.com'),
    ]);
    expect(p.unverified).toEqual(['exclude_params', 'password']);
    expect(p.warnings).toEqual([]);
  });

  it('privacy password without any password is refused before anything is planned', () => {
    expect(() => plan('websites:\n  - domain: a.example.com\n    privacy: password', [])).toThrow(PlanningError);
    expect(() => plan('websites:\n  - domain: a.example.com\n    privacy: password', [full(1, 'a.example.com')])).toThrow(
      'a.example.com (line 3): privacy is password, but the service has no password for it and the file sets none',
    );
  });

  it('a domain the service holds twice is managed once, with a warning', () => {
    const p = plan('websites:\n  - domain: a.example.com', [full(1, 'a.example.com'), full(9, 'a.example.com')]);
    expect(p.changes).toEqual([]);
    expect(p.warnings[0]).toContain('the service holds a.example.com twice (ids 1 and 9)');
  });
});

describe('the planner: domains as the service stores them', () => {
  const clean = (p: Plan) => expect([p.changes, p.summary.create, p.summary.delete]).toEqual([[], 0, 0]);

  it.each(['trailing.example.org.', 'trailing.example.org'])('the file\'s %s matches the live trailing.example.org.: no second website', (written) => {
    const p = plan(`prune: true\nwebsites:\n  - domain: ${written}`, [full(1, 'trailing.example.org', { stored: 'trailing.example.org.' })]);
    clean(p);
    expect(p.summary.unchanged).toBe(1);
  });

  it.each(['bücher.example', 'xn--bcher-kva.example'])('the file\'s %s matches the live unicode bücher.example', (written) => {
    const p = plan(`prune: true\nwebsites:\n  - domain: ${written}`, [full(1, 'xn--bcher-kva.example', { stored: 'bücher.example' })]);
    clean(p);
    expect(p.summary.unchanged).toBe(1);
  });

  it('a new website is created under its key: punycode, no trailing dot', () => {
    const p = plan('websites:\n  - domain: bücher.example.\n  - domain: my_site.example.com\n  - domain: 192.0.2.1', []);
    expect(p.changes.map((c) => c.domain)).toEqual(['192.0.2.1', 'my_site.example.com', 'xn--bcher-kva.example']);
  });

  it('x.org and x.org. both live: the one the file spells is managed, the other left alone and never pruned', () => {
    const sites = [full(1, 'x.org'), full(2, 'x.org', { stored: 'x.org.', privacy: 1 })];
    const p = plan('prune: true\nwebsites:\n  - domain: x.org.\n    privacy: private', sites);
    clean(p);
    expect(p.warnings).toEqual(['the service holds x.org twice (ids 1 and 2 as "x.org."); sitesync manages id 2 and leaves id 1 alone']);
    const q = plan('prune: true\nwebsites:\n  - domain: x.org', sites);
    clean(q);
    expect(q.warnings[0]).toContain('sitesync manages id 1 and leaves id 2 alone');
  });

  it('an exclude_ips entry the service never matches compares like any other: no perpetual change', () => {
    const p = plan('websites:\n  - domain: a.example.com\n    exclude_ips: [office-router, 192.168.1.*]', [full(1, 'a.example.com', { exclude_ips: ['192.168.1.*', 'office-router'] })]);
    clean(p);
  });

  it('a live name that is no host name, under ignore, is left alone even with prune', () => {
    const p = plan('prune: true\nignore: ["a b.example.com"]\nwebsites: []', [full(1, 'a b.example.com'), full(2, 'b.example.com')], { prune: true });
    expect(brief(p)).toEqual(['delete b.example.com']);
  });
});

describe('the planner is deterministic', () => {
  it('the same inputs in another order give the same plan, byte for byte', () => {
    const yaml = 'prune: true\nsafety:\n  max_delete_percent: 100\nwebsites:\n  - domain: c.example.com\n  - domain: a.example.com\n    privacy: 1\n  - domain: b.example.com';
    const sites = [full(5, 'z.example.com'), full(1, 'a.example.com'), full(7, 'y.example.com'), full(3, 'b.example.com', { email: 1 })];
    const one = JSON.stringify(plan(yaml, sites));
    const two = JSON.stringify(plan(yaml, [...sites].reverse()));
    expect(one).toBe(two);
    expect(brief(plan(yaml, sites))).toEqual([
      'create c.example.com: privacy, email, exclude_bots, exclude_params, exclude_ips',
      'update a.example.com: privacy',
      'update b.example.com: email',
      'delete y.example.com',
      'delete z.example.com',
    ]);
  });

  it('holds no password and no reference to one: only that a password is sent', () => {
    const p = plan('websites:\n  - domain: a.example.com\n    privacy: 2\n    password: ${PW}', []);
    expect(JSON.stringify(p)).not.toContain('secret-pw');
    expect(JSON.stringify(p)).not.toContain('${PW}');
    expect(p.changes[0]!.fields).toContain('password');
    expect(p.changes[0]!.after!.password).toBe('(sensitive)');
  });
});
