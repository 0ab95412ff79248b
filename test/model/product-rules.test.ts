/**
 * The product's own rules, as its code applies them (service-behaviour.md, "More of the
 * product's own code"), held by sitesync where it reads the service and checks the file: what
 * the product stores is what sitesync plans, exports and archives, and what it refuses is
 * refused at validate, with the place in the file.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

/** A store sent as a form, as a browser or another tool would: what the product then holds. */
function store(form: string): Promise<Response> {
  return fetch(`${s.emu.url}/api/v1/websites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
}

describe('exclude_bots stored as null is off', () => {
  it('the product saves `exclude_bots=` as null and its tracker then counts bots: plan, export and archive read it as false', async () => {
    s = await scenario();
    const created = await store('domain=bots.example.com&privacy=0&email=0&exclude_bots=');
    expect(created.status).toBe(201);
    expect(s.emu.websites(KEY)[0]!.exclude_bots).toBeNull();

    await s.write('version: 1\nwebsites:\n  - domain: bots.example.com\n    exclude_bots: true\n');
    const plan = await s.cli(['plan']);
    expect(plan.stdout).toMatch(/exclude_bots\s+false → true/);
    expect(plan.stdout).not.toContain('No changes');

    const exported = await s.cli(['export']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/domain: bots\.example\.com\n(\s+\w+: .*\n)*\s+exclude_bots: false/);

    const archived = await s.cli(['archive', 'bots.example.com']);
    expect(archived.code).toBe(0);
    const folder = join(s.dir, 'sitesync-archive');
    const json = (await readdir(folder)).find((f) => f.endsWith('.json'))!;
    expect(JSON.parse(await readFile(join(folder, json), 'utf8')).website.settings.exclude_bots).toBe(0);

    const applied = await s.cli(['apply', '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(writes(s.emu)).toContain('PATCH /api/v1/websites/1 200');
    expect(s.emu.websites(KEY)[0]!.exclude_bots).toBe(1);
  });
});

describe('a password the product cannot show it holds is refused where it is written', () => {
  it('the product stores "0" and answers password: false, so the file would never converge: the emulator shows it so', async () => {
    s = await scenario();
    const created = await store('domain=zero.example.com&privacy=2&password=0');
    expect(created.status).toBe(201);
    expect(s.emu.websites(KEY)[0]!.password).toBe('0');
    const shown = await fetch(`${s.emu.url}/api/v1/websites/1`, { headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' } });
    expect(((await shown.json()) as { data: { password: unknown } }).data.password).toBe(false);
  });

  it('"0" written in clear is refused at validate with FILE:LINE:COL, and apply writes nothing', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: zero.example.com\n    privacy: private\n    password: "0"\n');
    const r = await s.cli(['validate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml:5:15: websites[0].password: the password is "0", which the service stores but then reports as no password');
    const applied = await s.cli(['apply', '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(writes(s.emu)).toEqual([]);
  });

  it('"0" read from ${NAME} is refused naming the variable', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: zero.example.com\n    privacy: private\n    password: ${ZERO_PW}\n');
    const r = await s.cli(['apply', '--auto-approve'], { env: { ZERO_PW: '0' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml:5:15: websites[0].password: the value read from ${ZERO_PW} is "0", which the service stores but then reports as no password');
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('a password read from ${NAME} is held to the product’s rules before any write', () => {
  const LONG = 'L0ng-secret-'.repeat(17); // 204 characters
  it.each([
    ['200 characters', LONG, 'is longer than 128 characters, the most the service takes'],
    ['an empty variable', '', 'is empty; the service takes a password of 1 to 128 characters'],
  ])('%s: refused at validate and apply, naming the variable and never the value', async (_name, value, words) => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: ok.example.com\n  - domain: locked.example.com\n    privacy: private\n    password: ${SITE_PW}\n');
    for (const command of [['validate'], ['apply', '--auto-approve']]) {
      const r = await s.cli(command, { env: { SITE_PW: value } });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`sitesync.yaml:6:15: websites[1].password: the value read from \${SITE_PW} ${words}`);
      if (value) expect(r.stdout + r.stderr).not.toContain(value.slice(0, 12));
    }
    expect(writes(s.emu)).toEqual([]);
  });

  it('128 characters from a variable, and a password of several variables, are taken', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: max.example.com\n    privacy: private\n    password: ${A_PW}\n  - domain: two.example.com\n    privacy: private\n    password: ${B_PW}-${C_PW}\n');
    const r = await s.cli(['apply', '--auto-approve'], { env: { A_PW: 'p'.repeat(128), B_PW: '0', C_PW: '0' } });
    expect(r.code).toBe(0);
    expect(s.emu.websites(KEY).map((w) => w.password)).toEqual(['p'.repeat(128), '0-0']);
  });
});

describe('domains are checked by the product’s own rule, saying which part fails', () => {
  const LONG = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`; // 254 characters

  it('the deployed emulator refuses what the product refuses, and stores a 254-character name', async () => {
    s = await scenario();
    for (const domain of ['example.123', 'a.b_c', '256.1.1.1']) {
      const r = await store(`domain=${domain}`);
      expect(r.status, domain).toBe(422);
      expect(await r.json(), domain).toEqual({ message: { domain: ['Invalid domain name.'] }, status: 422 });
    }
    for (const domain of [LONG, 'a b.example.com', 'my_site.example.com', 'x.org.', '192.0.2.1']) {
      expect((await store(`domain=${encodeURIComponent(domain)}`)).status, domain).toBe(201);
    }
  });

  it('example.123, a.b_c and 256.1.1.1 are refused at validate with FILE:LINE:COL, and apply writes nothing', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: example.123\n  - domain: a.b_c\n  - domain: 256.1.1.1\n');
    const r = await s.cli(['validate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml:3:13: websites[0].domain: "example.123" is not a valid domain name: its last label "123" is all digits');
    expect(r.stderr).toContain('sitesync.yaml:4:13: websites[1].domain: "a.b_c" is not a valid domain name: its last label "b_c" holds "_": the last label takes letters, digits and "-" only');
    expect(r.stderr).toContain('sitesync.yaml:5:13: websites[2].domain: "256.1.1.1" is not a valid domain name: it is no IPv4 address (four parts of 0 to 255)');
    expect((await s.cli(['apply', '--auto-approve'])).code).toBe(1);
    expect(writes(s.emu)).toEqual([]);
  });

  it('a 254-character name is accepted and created; 256 characters are refused for their length', async () => {
    s = await scenario();
    await s.write(`version: 1\nwebsites:\n  - domain: ${LONG}\n`);
    expect((await s.cli(['validate'])).code).toBe(0);
    expect((await s.cli(['apply', '--auto-approve'])).code).toBe(0);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual([LONG]);
    await s.write(`version: 1\nwebsites:\n  - domain: ${LONG}dd\n`);
    const r = await s.cli(['validate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not a valid domain name: it is 256 characters long, and the service takes at most 255');
  });
});

describe('www. inside a name: once a name starts with www., every www. goes', () => {
  it('www.www.twice.example is warned about, created as twice.example, and the next plan is clean', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: www.www.twice.example\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('"www.www.twice.example": the service stores this website as "twice.example"; write the bare form');
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['twice.example']);
    const again = await s.cli(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });

  it('www.shop.www.example.com is the live shop.example.com: matched, not created again', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    await s.write('version: 1\nwebsites:\n  - domain: www.shop.www.example.com\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['shop.example.com']);
  });
});
