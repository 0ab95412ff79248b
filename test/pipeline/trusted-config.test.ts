/**
 * The trusted copy (`--trusted-config`, the base branch's file) pins more than connections: the
 * file under review may make `safety` only stricter, and each password may read only a variable
 * its account's `password_env` lists there, or one the account reads there already. Each refusal
 * is at its FILE:LINE:COL, names the key or the variable and the account (never a value), and
 * comes before any request. `password_env` also binds the file itself, offline (validate).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

const PW = { ACME_SHOP_PW: 'acme-SECRET-1', GLOBEX_SHOP_PW: 'globex-SECRET-2', ACEM_SHOP_PW: 'typo-SECRET-3' };

async function setUp(): Promise<Scenario> {
  const s = await scenario();
  s.emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 0 }]);
  s.emu.resetStats();
  return s;
}

const shop = (pw: string) => `websites:\n  - domain: shop.example.com\n    privacy: password\n    password: \${${pw}}\n`;

describe('--trusted-config pins safety', () => {
  it('a looser value is refused at its line, naming the key and the trusted value, before any request; a stricter one plans', async () => {
    sc = await setUp();
    await sc.write('version: 1\nsafety:\n  max_delete_percent: 10\n  min_existing: 5\n  active_days: 60\nwebsites: []\n', 'base.yaml');
    await sc.write('version: 1\nsafety:\n  max_delete_percent: 50\n  active_days: 1\nwebsites: []\n');
    const r = await sc.cli(['plan', '--trusted-config', 'base.yaml']);
    expect(r.code).toBe(1);
    const file = join(sc.dir, 'sitesync.yaml');
    expect(r.stderr).toContain(`${file}:2:1: safety.min_existing is 10 (the default: the file does not set it), looser than the trusted config's 5 (base.yaml): it may be at most 5 here; a looser safety must be on the base branch first`);
    expect(r.stderr).toContain(`${file}:3:23: safety.max_delete_percent is 50, looser than the trusted config's 10 (base.yaml): it may be at most 10 here`);
    expect(r.stderr).toContain(`${file}:4:16: safety.active_days is 1, looser than the trusted config's 60 (base.yaml): it may be at least 60 here`);
    expect(r.stderr).toContain('3 problems found; nothing was changed on the service.');
    expect(sc.emu.stats.log).toEqual([]);

    await sc.write('version: 1\nsafety: {max_delete_percent: 5, min_existing: 0, active_days: 90}\nwebsites: []\n');
    expect((await sc.cli(['plan', '--trusted-config', 'base.yaml'])).code).toBe(0);
  });

  it("each account against its own trusted safety; the file's top level of accounts has no safety (the schema says so)", async () => {
    sc = await setUp();
    const accounts = (acme: string, beta: string) => `version: 1
accounts:
  acme:
    base_url: ${sc!.emu.url}
    api_key_env: ACME_KEY${acme}
    websites: []
  beta:
    base_url: ${sc!.emu.url}
    api_key_env: BETA_KEY${beta}
    websites: []
`;
    await sc.write(accounts('\n    safety: {active_days: 45}', '\n    safety: {max_delete_percent: 20}'), 'base.yaml');
    await sc.write(accounts('', '\n    safety: {max_delete_percent: 20}'));
    const r = await sc.cli(['plan', '--trusted-config', 'base.yaml'], { env: { ACME_KEY: KEY, BETA_KEY: KEY } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(sc.dir, 'sitesync.yaml')}:3:3: accounts.acme.safety.active_days is 30 (the default: the file does not set it), looser than the trusted config's 45 (base.yaml)`);
    expect(r.stderr).not.toContain('beta');
    expect(sc.emu.stats.log).toEqual([]);
    await sc.write(`${accounts('', '')}safety: {active_days: 1}\n`);
    expect((await sc.cli(['validate'])).stderr).toContain('"safety" belongs in an account');
  });
});

describe('--trusted-config pins the variables a password may read', () => {
  it("another account's variable is refused at the password, naming the variable and the account, never a value; an allowed one is shown by name", async () => {
    sc = await setUp();
    const accounts = (acmeSite: string) => `version: 1
accounts:
  acme:
    base_url: ${sc!.emu.url}
    api_key_env: ACME_KEY
    password_env: ["ACME_*"]
    websites:
${acmeSite}
  globex:
    base_url: ${sc!.emu.url}
    api_key_env: GLOBEX_KEY
    websites:
      - domain: globex.example.com
        password: \${GLOBEX_SHOP_PW}
`;
    const site = (pw: string) => `      - domain: shop.example.com\n        privacy: password\n        password: \${${pw}}`;
    await sc.write(accounts('      []').replace('    websites:\n      []', '    websites: []'), 'base.yaml');
    // The pull request drops acme's password_env and gives its website globex's password.
    await sc.write(accounts(site('GLOBEX_SHOP_PW')).replace('    password_env: ["ACME_*"]\n', ''));
    const env = { ...PW, ACME_KEY: KEY, GLOBEX_KEY: 'sk-test-GLOBEX-0123456789' };
    const r = await sc.cli(['plan', '--trusted-config', 'base.yaml'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${join(sc.dir, 'sitesync.yaml')}:9:19: the password of shop.example.com reads \${GLOBEX_SHOP_PW}, which account acme may not read: the trusted config (base.yaml) neither lists it in the password_env of account acme nor reads it in a password of account acme; add it to that password_env on the base branch first`,
    );
    for (const value of Object.values(PW)) expect(r.stdout + r.stderr).not.toContain(value);
    expect(sc.emu.stats.log).toEqual([]);

    // Its own variable, as the trusted password_env allows: planned, and the plan says which.
    await sc.write(accounts(site('ACME_SHOP_PW')));
    const ok = await sc.cli(['plan', '--trusted-config', 'base.yaml', '--account', 'acme'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('password  (not set) → (sensitive, from ${ACME_SHOP_PW})');
    const md = await sc.cli(['plan', '--trusted-config', 'base.yaml', '--account', 'acme', '--format', 'markdown'], { env });
    expect(md.stdout).toContain('(sensitive, from \\${ACME_SHOP_PW})');
  });

  it('without password_env there, a variable the account reads in the trusted copy (also in an included file) is allowed, any other refused', async () => {
    sc = await setUp();
    await mkdir(join(sc.dir, 'base/sites'), { recursive: true });
    await writeFile(join(sc.dir, 'base/sitesync.yaml'), 'version: 1\ninclude: [sites/*.yaml]\nwebsites: []\n');
    await writeFile(join(sc.dir, 'base/sites/shop.yaml'), shop('ACME_SHOP_PW'));
    await mkdir(join(sc.dir, 'sites'));
    await sc.write('version: 1\ninclude: [sites/*.yaml]\nwebsites: []\n');
    await writeFile(join(sc.dir, 'sites/shop.yaml'), shop('ACME_SHOP_PW'));
    expect((await sc.cli(['plan', '--trusted-config', 'base/sitesync.yaml'], { env: PW })).code).toBe(0);
    sc.emu.resetStats();
    await writeFile(join(sc.dir, 'sites/shop.yaml'), shop('GLOBEX_SHOP_PW'));
    const r = await sc.cli(['plan', '--trusted-config', 'base/sitesync.yaml'], { env: PW });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(sc.dir, 'sites/shop.yaml')}:4:15: the password of shop.example.com reads \${GLOBEX_SHOP_PW}, which the file may not read`);
    expect(sc.emu.stats.log).toEqual([]);
  });

  it("a trusted copy beside the file under review does not trust the pull request's own included files", async () => {
    sc = await setUp();
    await mkdir(join(sc.dir, 'sites'));
    // A copy of the base branch's file written into the checkout: its include finds the pull request's files.
    await sc.write('version: 1\ninclude: [sites/*.yaml]\nwebsites: []\n', 'base.yaml');
    await sc.write('version: 1\ninclude: [sites/*.yaml]\nwebsites: []\n');
    await writeFile(join(sc.dir, 'sites/shop.yaml'), shop('GLOBEX_SHOP_PW'));
    const r = await sc.cli(['plan', '--trusted-config', 'base.yaml'], { env: PW });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('reads ${GLOBEX_SHOP_PW}, which the file may not read');
  });
});

describe("a file's own password_env binds it, offline", () => {
  it('validate refuses a variable the list does not hold (a typo, or another account), at the password; fmt puts the key after api_key_env', async () => {
    sc = await setUp();
    await sc.write(`version: 1
accounts:
  acme:
    websites:
      - domain: shop.example.com
        password: \${ACEM_SHOP_PW}
    password_env: [ACME_*, SHARED_PW]
    api_key_env: ACME_KEY
    base_url: https://stats.acme.example
`);
    const r = await sc.cli(['validate'], { env: PW });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${join(sc.dir, 'sitesync.yaml')}:6:19: the password of shop.example.com reads \${ACEM_SHOP_PW}, which the password_env of account acme does not list (ACME_*, SHARED_PW): a password reads only the variables of its own account`,
    );
    expect(r.stderr).not.toContain(PW.ACEM_SHOP_PW);
    const fmt = await sc.cli(['fmt', '--check']);
    expect(fmt.stdout).toContain(['+    base_url: https://stats.acme.example', '+    api_key_env: ACME_KEY', '+    password_env:', '+      - ACME_*', '+      - SHARED_PW', '     websites:'].join('\n'));

    await sc.write('version: 1\npassword_env: ["ACME-*", 7]\nwebsites: []\n');
    const bad = await sc.cli(['validate']);
    expect(bad.stderr).toContain('password_env[0] must be the NAME of an environment variable (letters, digits and _, not starting with a digit), or a glob of names with * (ACME_*)');
    expect(bad.stderr).toContain('password_env[1] must be a string');
  });
});

describe("the trusted copy's problems come all at once (issue 39, item 5)", () => {
  it('a pull request breaking three pins, with a mistake of its own too, learns of all four in one run, before any request', async () => {
    sc = await setUp();
    const accounts = (acme: { url: string; safety: string; pwEnv: string; site: string }) => `version: 1
accounts:
  acme:
    base_url: ${acme.url}
    api_key_env: ACME_KEY
${acme.pwEnv}${acme.safety}    websites:
${acme.site}
  globex:
    base_url: ${sc!.emu.url}
    api_key_env: GLOBEX_KEY
    websites:
      - domain: globex.example.com
        password: \${GLOBEX_SHOP_PW}
`;
    await sc.write(
      accounts({ url: sc.emu.url, safety: '    safety: {max_delete_percent: 10}\n', pwEnv: '    password_env: ["ACME_*"]\n', site: '      - domain: shop.example.com' }),
      'base.yaml',
    );
    // Another account's variable, a looser max_delete_percent, another base_url, and a typo of a key.
    await sc.write(
      accounts({
        url: 'http://127.0.0.1:9/',
        safety: '    safety: {max_delete_percent: 50}\n',
        pwEnv: '',
        site: '      - domain: shop.example.com\n        privacy: password\n        password: ${GLOBEX_SHOP_PW}\n        titel: Shop',
      }),
    );
    const env = { ...PW, ACME_KEY: KEY, GLOBEX_KEY: 'sk-test-GLOBEX-0123456789' };
    const r = await sc.cli(['plan', '--trusted-config', 'base.yaml'], { env });
    expect(r.code).toBe(1);
    const file = join(sc.dir, 'sitesync.yaml');
    expect(r.stderr).toContain('titel');
    expect(r.stderr).toContain("account acme: base_url differs from the trusted config's (base.yaml)");
    expect(r.stderr).toContain(`${file}:6:34: accounts.acme.safety.max_delete_percent is 50, looser than the trusted config's 10 (base.yaml)`);
    expect(r.stderr).toContain('reads ${GLOBEX_SHOP_PW}, which account acme may not read: the trusted config (base.yaml)');
    expect(r.stderr).toContain('4 problems found; nothing was changed on the service.');
    for (const value of Object.values(PW)) expect(r.stdout + r.stderr).not.toContain(value);
    expect(sc.emu.stats.log).toEqual([]);

    // Without the typo, the three pins still come together.
    await sc.write(
      accounts({
        url: 'http://127.0.0.1:9/',
        safety: '    safety: {max_delete_percent: 50}\n',
        pwEnv: '',
        site: '      - domain: shop.example.com\n        privacy: password\n        password: ${GLOBEX_SHOP_PW}',
      }),
    );
    const again = await sc.cli(['plan', '--trusted-config', 'base.yaml'], { env });
    expect(again.stderr).toContain("account acme: base_url differs from the trusted config's (base.yaml)");
    expect(again.stderr).toContain('accounts.acme.safety.max_delete_percent is 50');
    expect(again.stderr).toContain('which account acme may not read');
    expect(again.stderr).toContain('3 problems found; nothing was changed on the service.');
    expect(sc.emu.stats.log).toEqual([]);
  });
});
