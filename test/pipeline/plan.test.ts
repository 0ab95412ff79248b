import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const CONFIG = `version: 1
prune: true
defaults:
  exclude_params: [utm_source]
websites:
  - domain: example.com
    privacy: password
    password: \${SITE_PW}
    email: true
  - domain: new.example.com
    favorite: true
  - domain: same.example.com
`;

async function seeded(profile: 'deployed' | 'full' = 'deployed') {
  s = await scenario({ profile });
  s.emu.seed(KEY, [
    { domain: 'example.com', privacy: 0, email: 0, exclude_bots: 1 },
    { domain: 'same.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: 'utm_source' },
    { domain: 'old.example.com', privacy: 1, email: 0, exclude_bots: 1 },
  ]);
  await s.write(CONFIG);
  s.emu.resetStats();
}

describe('sitesync plan against the emulator', () => {
  it('prints the plan and writes nothing (deployed profile)', async () => {
    await seeded();
    const r = await s.cli(['plan'], { env: { SITE_PW: 'pw-value-123' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`sitesync plan for ${s.emu.url} (account: Emulator account 1 <account1@emulator.local>)`);
    expect(r.stdout).toContain('+ create new.example.com');
    expect(r.stdout).toContain('~ update example.com (id 1)');
    expect(r.stdout).toContain('    privacy         public → password');
    expect(r.stdout).toContain('- delete old.example.com (id 3)');
    expect(r.stdout).toContain('! no pageviews recorded: its statistics are empty');
    expect(r.stdout).toContain('Plan: 1 to create, 1 to update, 1 to delete (1 unchanged, 0 unmanaged).');
    expect(writes(s.emu)).toEqual([]);
  });

  it('the full profile shows exclude_params as a normal field', async () => {
    await seeded('full');
    const r = await s.cli(['plan', '--format', 'json'], { env: { SITE_PW: 'pw-value-123' } });
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout);
    const update = plan.changes.find((c: { action: string }) => c.action === 'update');
    expect(update.details.find((d: { field: string }) => d.field === 'exclude_params')).toEqual({
      field: 'exclude_params',
      before: [],
      after: ['utm_source'],
    });
    expect(plan.accounts[0].unverified).toEqual(['password']);
  });

  it('--format json has the contract shape', async () => {
    await seeded();
    const r = await s.cli(['plan', '--format', 'json'], { env: { SITE_PW: 'pw-value-123' } });
    const plan = JSON.parse(r.stdout);
    // One shape for one account or many: the totals, every change naming its account, each account.
    expect(plan).toMatchObject({
      format_version: 2,
      summary: { create: 1, update: 1, delete: 1, unchanged: 1, unmanaged: 0 },
      accounts: [
        {
          name: null,
          base_url: s.emu.url,
          account: { id: 1, name: 'Emulator account 1', email: 'account1@emulator.local' },
          summary: { create: 1, update: 1, delete: 1, unchanged: 1, unmanaged: 0 },
          failure: null,
          warnings: [],
        },
      ],
    });
    for (const change of plan.changes) {
      expect(Object.keys(change)).toEqual(expect.arrayContaining(['account', 'action', 'domain', 'id', 'before', 'after', 'fields']));
      expect(change.account).toBeNull();
    }
    expect(plan.changes.find((c: { domain: string }) => c.domain === 'example.com').after.password).toBe('(sensitive)');
  });

  it('--format markdown starts with the marker', async () => {
    await seeded();
    const r = await s.cli(['plan', '--format', 'markdown'], { env: { SITE_PW: 'pw-value-123' } });
    expect(r.stdout.startsWith('<!-- sitesync-plan -->\n### sitesync plan: 1 to create, 1 to update, 1 to delete')).toBe(true);
  });

  it('--detailed-exitcode: 2 with changes, 0 without', async () => {
    await seeded();
    expect((await s.cli(['plan', '--detailed-exitcode'], { env: { SITE_PW: 'x' } })).code).toBe(2);
    await s.write('version: 1\nwebsites:\n  - domain: same.example.com\n    exclude_params: [utm_source]\n');
    const r = await s.cli(['plan', '--detailed-exitcode']);
    expect(r.stdout).toContain('No changes: the account matches the file.');
    expect(r.code).toBe(0);
  });

  it('--target narrows the plan', async () => {
    await seeded();
    const r = await s.cli(['plan', '--target', 'new.*.com', '--format', 'json'], { env: { SITE_PW: 'x' } });
    expect(JSON.parse(r.stdout).changes.map((c: { domain: string }) => c.domain)).toEqual(['new.example.com']);
  });

  it('an invalid file is refused before any write (the listing it overlapped is dropped)', async () => {
    await seeded();
    await s.write('version: 1\nwebsites:\n  - domain: https://x.example.com\n');
    const r = await s.cli(['plan']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sitesync.yaml:3:13: websites[0].domain: "https://x.example.com" is not a bare domain name');
    expect(r.stdout).toBe('');
    expect(s.emu.stats.log.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('with the base URL only in the file, an invalid file is refused before any request', async () => {
    await seeded();
    await s.write(`version: 1\napi:\n  base_url: ${s.emu.url}\nwebsites:\n  - domain: https://x.example.com\n`);
    const r = await s.cli(['plan'], { env: { SITESYNC_BASE_URL: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not a bare domain name');
    expect(s.emu.stats.requests).toBe(0);
  });

  it('a plan over many pages prints nothing on stderr (no warnings from the runtime)', async () => {
    s = await scenario({ latencyMs: 5 });
    s.emu.seed(KEY, Array.from({ length: 2500 }, (_, i) => ({ domain: `s${i}.example.com`, privacy: 0, email: 0, exclude_bots: 1 })));
    await s.write(`version: 1\nwebsites:\n${Array.from({ length: 2500 }, (_, i) => `  - domain: s${i}.example.com`).join('\n')}\n`);
    const r = await s.cli(['plan', '--detailed-exitcode']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('(2500 unchanged, 0 unmanaged)');
    expect(r.code).toBe(0);
  });

  it('a wrong key is a short error, exit 1', async () => {
    await seeded();
    const r = await s.cli(['plan'], { env: { SITE_PW: 'x', SITESYNC_API_KEY: 'wrong-key-value-0000' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error: the service did not accept the API key (401): check SITESYNC_API_KEY\n');
  });

  it('a server that is not there is a short error, exit 1', async () => {
    await seeded();
    await s.emu.close();
    const r = await s.cli(['plan'], { env: { SITE_PW: 'x' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: (read the account|list websites \(page 1\)): cannot connect to 127\.0\.0\.1:\d+ \(connection refused\)/);
    s.emu = { ...s.emu, close: async () => undefined };
  });
});

describe('sitesync export', () => {
  const SITES = [
    { domain: 'plain.example.com', privacy: 0, email: 0, exclude_bots: 1 },
    { domain: 'busy.example.com', privacy: 1, email: 1, exclude_bots: 0, exclude_params: 'utm_source\nref', exclude_ips: '10.0.0.1\n2001:db8::/32' },
    { domain: 'locked.example.com', privacy: 2, password: 'pw-in-emulator', email: null, exclude_bots: null },
    { domain: 'fav.example.com', favorite: true },
  ];

  it.each(['deployed', 'full'] as const)('round trip on the %s profile: a plan of the export finds nothing to change', async (profile) => {
    s = await scenario({ profile });
    s.emu.seed(KEY, SITES);
    const exported = await s.cli(['export', '-o', 'exported.yaml', '--include-favorite']);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('Wrote 4 websites to exported.yaml');
    const text = await readFile(join(s.dir, 'exported.yaml'), 'utf8');
    expect(text).toMatch(/^# yaml-language-server: \$schema=\S+\/schemas\/sitesync\.schema\.json\n/);
    expect(text).not.toContain('pw-in-emulator');
    expect(text).toContain('#   - locked.example.com');
    expect((await s.cli(['validate', '-c', 'exported.yaml'])).code).toBe(0);
    const plan = await s.cli(['plan', '-c', 'exported.yaml', '--detailed-exitcode', '--prune']);
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete (4 unchanged, 0 unmanaged).');
    expect(plan.code).toBe(0);
    if (profile === 'full') expect(text).toContain('exclude_params:\n      - utm_source\n      - ref');
    else expect(text).toContain('This service does not return exclude_params');
  });

  it('leaves service defaults out and sorts websites; stdout by default', async () => {
    s = await scenario();
    s.emu.seed(KEY, SITES);
    const r = await s.cli(['export']);
    const domains = [...r.stdout.matchAll(/- domain: (\S+)/g)].map((m) => m[1]);
    expect(domains).toEqual(['busy.example.com', 'fav.example.com', 'locked.example.com', 'plain.example.com']);
    expect(r.stdout).toContain('  - domain: plain.example.com\n');
    expect(r.stdout).not.toMatch(/plain\.example\.com\n {4}/);
    expect(r.stdout).not.toContain('favorite');
  });
});

describe('secrets never leave', () => {
  it('no output, log, saved plan or export holds the key or a password, --verbose included', async () => {
    await seeded();
    const PW = 'pw-SECRET-value-987';
    const env = { SITE_PW: PW };
    const runs = [
      await s.cli(['--verbose', 'plan', '--out', 'plan.json'], { env }),
      await s.cli(['--verbose', 'plan', '--format', 'json'], { env }),
      await s.cli(['--verbose', 'plan', '--format', 'markdown'], { env }),
      await s.cli(['--verbose', 'account', '--format', 'json'], { env }),
      await s.cli(['--verbose', 'apply', 'plan.json'], { env }),
      await s.cli(['--verbose', 'export', '-o', 'export.yaml'], { env }),
      await s.cli(['--verbose', 'plan'], { env: { ...env, SITESYNC_API_KEY: `${KEY}-wrong` } }),
    ];
    expect(runs[0]!.stderr).toMatch(/GET \/api\/v1\/account 200/);
    const files = [await readFile(join(s.dir, 'plan.json'), 'utf8'), await readFile(join(s.dir, 'export.yaml'), 'utf8')];
    for (const text of [...runs.flatMap((r) => [r.stdout, r.stderr]), ...files]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(PW);
    }
    // The saved plan names where the password comes from, never its value: apply takes it from the config file.
    expect(files[0]).toContain('"password": "(sensitive)"');
    expect(files[0]).toMatch(/"password_from": \{\s+"variables": \[\s+"SITE_PW"\s+\],\s+"clear": false\s+\}/);
    // The apply did send it.
    expect(s.emu.websites(KEY).find((w) => w.domain === 'example.com')!.password).toBe(PW);
  });
});
