/**
 * Warnings an agency reads every run (issue 39, items 6 and 11): a warned account without changes
 * keeps its one line, the warning said once beneath it; a file's warnings name the file as the
 * user gave it (relative to the folder), with the account it belongs to, once, and only for the
 * accounts asked for; `validate -c` on an included file says which file includes it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliOptions } from '../helpers/cli.js';
import { scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const KEYS = { ACME_KEY: 'sk-test-ACME-0123456789abcdef', BETA_KEY: 'sk-test-BETA-0123456789abcdef' };

/** Two accounts on one emulator, each with its websites in `clients/<name>/websites.yaml`. */
async function agency(files: { acme: string; beta: string }, acmeExtra = '') {
  s = await scenario({ keys: Object.values(KEYS) });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(s.dir, 'clients', name), { recursive: true });
    await writeFile(join(s.dir, 'clients', name, 'websites.yaml'), text);
  }
  const account = (name: string, extra = '') => `  ${name}:\n    base_url: ${s!.emu.url}\n    api_key_env: ${name.toUpperCase()}_KEY\n    include: [clients/${name}/*.yaml]\n${extra}`;
  await s.write(`version: 1\naccounts:\n${account('acme', acmeExtra)}${account('beta')}`);
  const sc = s;
  return (args: string[], options: CliOptions = {}) => sc.cli(args, { ...options, env: { ...KEYS, SITESYNC_API_KEY: undefined, SITESYNC_BASE_URL: undefined, ...options.env } });
}

describe('a warning does not expand an account (item 6)', () => {
  it('an account with no changes and a retire: warning keeps its one line, the warning once beneath it', async () => {
    const cli = await agency({ acme: 'websites:\n  - domain: acme.example.com\n', beta: 'websites:\n  - domain: beta.example.com\n' }, '    retire: [typo.example.com]\n');
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    const r = await cli(['plan']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('━━ account');
    const warning = 'retire: "typo.example.com" (line 7) matches no live website: a typo? If its website is deleted, the line has done its work: remove it';
    expect(r.stdout).toContain(`acme: no changes (1 website)\n  ! ${warning}\nbeta: no changes (1 website)\n`);
    expect(r.stdout.split(warning)).toHaveLength(2);
  });
});

describe("a file's warnings: named as the user gave the file, with their account, once, only for the accounts asked for (item 11)", () => {
  const files = { acme: 'websites:\n  - domain: WWW.Acme.example.com\n', beta: 'websites:\n  - domain: www.beta.example.com\n' };
  const acmeWarning = 'clients/acme/websites.yaml:2:13: warning (account acme): "WWW.Acme.example.com": the service stores this website as "acme.example.com"; write the bare form\n';
  const betaWarning = 'clients/beta/websites.yaml:2:13: warning (account beta): "www.beta.example.com": the service stores this website as "beta.example.com"; write the bare form\n';

  it('plan: each included file relative to the folder, with its account, once; no absolute path', async () => {
    const cli = await agency(files);
    const r = await cli(['plan']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(acmeWarning);
    expect(r.stderr).toContain(betaWarning);
    expect(r.stderr.split(acmeWarning)).toHaveLength(2);
    expect(r.stderr).not.toContain(s!.dir);
    const v = await cli(['validate']);
    expect(v.stderr).toBe(`${acmeWarning}${betaWarning}`);
  });

  it('plan --account acme says nothing of beta', async () => {
    const cli = await agency(files);
    const r = await cli(['plan', '--account', 'acme']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(acmeWarning);
    expect(r.stderr).not.toContain('beta');
  });

  it("a warning in the main file's account block names its account too, and is left out for another --account", async () => {
    const cli = await agency({ acme: 'websites: []\n', beta: 'websites: []\n' }, '    websites:\n      - domain: WWW.Shop.Acme.example.com\n');
    const r = await cli(['validate']);
    expect(r.stderr).toBe('sitesync.yaml:8:17: warning (account acme): "WWW.Shop.Acme.example.com": the service stores this website as "shop.acme.example.com"; write the bare form\n');
    const p = await cli(['plan', '--account', 'beta']);
    expect(p.code).toBe(0);
    expect(p.stderr).not.toContain('warning');
  });
});

describe('validate -c on an included file (item 11)', () => {
  const files = { acme: 'websites:\n  - domain: acme.example.com\n  - domain: shop.acme.example.com\n', beta: 'websites: []\n' };

  it('says it is an included file, names the file including it and its account, and checks it as that file does', async () => {
    const cli = await agency(files);
    const r = await cli(['validate', '-c', 'clients/acme/websites.yaml']);
    expect(r.stderr).not.toContain('version');
    expect(r.stdout).toBe('✓ clients/acme/websites.yaml is a valid included file: 2 websites. sitesync.yaml includes it for account acme (check the whole config: sitesync validate -c sitesync.yaml).\n');
    expect(r.code).toBe(0);
  });

  it('from its own folder, the including file named as a path from there', async () => {
    const cli = await agency(files);
    const r = await cli(['validate', '-c', 'websites.yaml'], { cwd: join(s!.dir, 'clients/acme') });
    expect(r.stdout).toContain('✓ websites.yaml is a valid included file: 2 websites. ../../sitesync.yaml includes it for account acme (check the whole config: sitesync validate -c ../../sitesync.yaml).');
    expect(r.code).toBe(0);
  });

  it("an included file's own problems, with the note of what includes it, exit 1", async () => {
    const cli = await agency({ ...files, acme: 'websites:\n  - domain: acme.example.com\n    email: maybe\n' });
    const r = await cli(['validate', '-c', 'clients/acme/websites.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('clients/acme/websites.yaml is an included file (no "version" of its own): sitesync.yaml includes it for account acme (check the whole config: sitesync validate -c sitesync.yaml)\n');
    expect(r.stderr).toContain('websites.yaml:3:12: websites[0].email must be');
    expect(r.stderr).not.toContain('"version", which is required');
  });

  it('a file no sitesync.yaml above includes is still asked for its version', async () => {
    const cli = await agency(files);
    await writeFile(join(s!.dir, 'clients/stray.yaml'), 'websites: []\n');
    const r = await cli(['validate', '-c', 'clients/stray.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('stray.yaml:1:1: the file has no "version", which is required');
  });
});
