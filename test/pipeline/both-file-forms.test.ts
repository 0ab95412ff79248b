/**
 * A single-account file and a file with accounts go through one pipeline: every behaviour here
 * is run for both forms, as a table, and must come out the same (the output differs only in
 * the named account's header and total).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

interface Form {
  name: string;
  /** The config file for these website entries (YAML lines under `websites:`) and top-level keys of the account. */
  file(url: string, websites: string[], account?: string[]): string;
  /** The environment that gives the key (and base URL) for this form. */
  env(url: string, key: string): Record<string, string | undefined>;
  /** Where the form says the key comes from, in a 401's advice. */
  keyFrom: string;
}

const FORMS: Form[] = [
  {
    name: 'a single-account file',
    file: (_url, websites, account = []) => ['version: 1', ...account, 'websites:', ...websites, ''].join('\n'),
    env: (url, key) => ({ SITESYNC_BASE_URL: url, SITESYNC_API_KEY: key }),
    keyFrom: 'check SITESYNC_API_KEY',
  },
  {
    name: 'a file with accounts',
    file: (url, websites, account = []) =>
      ['version: 1', 'accounts:', '  acme:', `    base_url: ${url}`, '    api_key_env: ACME_KEY', ...account.map((l) => `    ${l}`), '    websites:', ...websites.map((l) => `  ${l}`), ''].join('\n'),
    env: (_url, key) => ({ SITESYNC_BASE_URL: undefined, SITESYNC_API_KEY: undefined, ACME_KEY: key }),
    keyFrom: 'check ACME_KEY (the api_key_env of account acme)',
  },
];

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const LISTED = ['  - domain: keep.example.com', '    email: true', '  - domain: new.example.com'];

describe.each(FORMS)('$name', (form) => {
  async function setUp(account: string[] = ['prune: true'], websites = LISTED) {
    s = await scenario();
    s.emu.seed(KEY, [
      { domain: 'keep.example.com', privacy: 0, email: 0, exclude_bots: 1 },
      { domain: 'old.example.com', privacy: 0, email: 0, exclude_bots: 1 },
    ]);
    await s.write(form.file(s.emu.url, websites, account));
    s.emu.resetStats();
  }
  const cli = (args: string[], key = KEY) => s.cli(args, { env: form.env(s.emu.url, key) });

  it('plans, applies and converges; the JSON plan has one shape with the totals on top', async () => {
    await setUp();
    const plan = await cli(['plan', '--format', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.format_version).toBe(2);
    expect(json.summary).toEqual({ create: 1, update: 1, delete: 1, unchanged: 0, unmanaged: 0 });
    expect(json.accounts).toHaveLength(1);
    expect(json.changes.map((c: { action: string; domain: string }) => `${c.action} ${c.domain}`)).toEqual([
      'create new.example.com',
      'update keep.example.com',
      'delete old.example.com',
    ]);
    expect(writes(s.emu)).toEqual([]);
    const apply = await cli(['apply', '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Applied: 1 created, 1 updated, 1 deleted, 0 failed.');
    const again = await cli(['plan', '--detailed-exitcode']);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete (2 unchanged, 0 unmanaged).');
    expect(again.code).toBe(0);
  });

  it('a saved plan applies exactly; one made stale since is refused whole and nothing is written', async () => {
    await setUp();
    expect((await cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    const fresh = await cli(['apply', 'plan.json']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain('Applied: 1 created, 1 updated, 1 deleted, 0 failed.');

    await s.write(form.file(s.emu.url, [...LISTED, '  - domain: more.example.com'], ['prune: true']));
    expect((await cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    s.emu.seed(KEY, [{ domain: 'more.example.com' }]);
    s.emu.resetStats();
    const stale = await cli(['apply', 'plan.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/plan\.json is stale: 1 of its 1 changes no longer match the service; nothing was written/);
    expect(stale.stderr).toMatch(/more\.example\.com: now exists at the service \(id \d+\); the plan would create it/);
    expect(writes(s.emu)).toEqual([]);
  });

  it('a saved plan edited to delete a website the file lists is refused before any write', async () => {
    await setUp();
    await cli(['plan', '--out', 'plan.json']);
    const plan = JSON.parse(await readFile(join(s.dir, 'plan.json'), 'utf8'));
    const remove = plan.changes.find((c: { action: string }) => c.action === 'delete');
    const keep = s.emu.websites(KEY).find((w) => w.domain === 'keep.example.com')!;
    plan.changes.push({ ...remove, domain: 'keep.example.com', id: keep.id });
    await writeFile(join(s.dir, 'plan.json'), JSON.stringify(plan));
    s.emu.resetStats();
    const r = await cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/plan\.json: (account acme: )?changes\[3\]/);
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toContain('keep.example.com');
  });

  it('a plan over the delete threshold: plan --fail-unsafe and apply refuse it, nothing is written', async () => {
    await setUp(['prune: true', 'safety: { max_delete_percent: 10, min_existing: 1 }']);
    const plan = await cli(['plan', '--fail-unsafe']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('this plan deletes 1 of 2 managed websites, 50 % > 10 %: apply will refuse without --force');
    const apply = await cli(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('refusing to delete 1 of 2 managed websites, 50 % > 10 %; nothing was written');
    expect(writes(s.emu)).toEqual([]);
  });

  it('a key the service refuses: exit 1, and the message says where that key came from', async () => {
    await setUp();
    const r = await cli(['plan'], 'sk-test-WRONG-0000000000000');
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain(`the service did not accept the API key (401): ${form.keyFrom}`);
  });

  it('account, export and import read the same file and the same account', async () => {
    await setUp();
    const account = await cli(['account']);
    expect(account.code, account.stderr).toBe(0);
    expect(account.stdout).toContain('Emulator account 1');
    expect(account.stdout).toContain('Websites  2 (unlimited)');

    const imported = await cli(['import', 'old.example.com']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported 1 website into sitesync.yaml');
    expect(await readFile(join(s.dir, 'sitesync.yaml'), 'utf8')).toContain('domain: old.example.com');

    const exported = await cli(['export', '-o', 'exported.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const again = await cli(['plan', '-c', 'exported.yaml', '--detailed-exitcode', '--prune']);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete');
    expect(again.code).toBe(0);
  });

  it('a password whose variable is not set stops the run before anything is read', async () => {
    await setUp([], ['  - domain: vault.example.com', '    privacy: password', '    password: ${VAULT_PW}']);
    const r = await cli(['plan']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/password: environment variable VAULT_PW is not set/);
    expect(s.emu.stats.requests).toBe(0);
  });
});
