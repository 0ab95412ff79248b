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
