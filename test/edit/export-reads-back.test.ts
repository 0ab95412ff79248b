/**
 * An account holding every odd domain and exclude_ips entry that the real service stores
 * (service-behaviour.md, "Observed on the product's own code"): export writes a file that
 * validates and plans clean, with and without prune. The websites are written straight into
 * the emulator's store (`seed`), whatever its own validation would answer.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const ESC = '\u001b';
const ODD = [
  { domain: 'a b.example.com' },
  { domain: 'my_site.example.com', privacy: 1 },
  { domain: 'trailing.example.org.' },
  { domain: '192.0.2.1', email: 1 },
  { domain: 'bücher.example' },
  { domain: `a${ESC}[2J${ESC}[31mred.example.com` },
  { domain: 'a|b.example.com' },
  { domain: '*.example.com' },
  { domain: 'shop.example.com', exclude_ips: 'office-router\n192.168.1.*\n10.0.0.1' },
  { domain: 'x.org' },
  { domain: 'x.org.' },
];

describe('export → validate → plan is clean for an account holding odd domains', () => {
  it('every odd live website is listed or left alone, and plan (also --prune) finds nothing to do', async () => {
    s = await scenario();
    s.emu.seed(KEY, ODD);
    const exported = await s.cli(['export', '-o', 'exported.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(join(s.dir, 'exported.yaml'), 'utf8');
    expect(text).not.toContain(ESC);

    const validated = await s.cli(['validate', '-c', 'exported.yaml']);
    expect(validated.stderr).toContain('exported.yaml:');
    expect(validated.stdout).toContain('exported.yaml is valid: 6 websites, 2 warnings.');
    expect(validated.code).toBe(0);

    s.emu.resetStats();
    for (const args of [[], ['--prune']]) {
      const plan = await s.cli(['plan', '-c', 'exported.yaml', '--detailed-exitcode', ...args]);
      expect(plan.stdout, plan.stderr).toContain('Plan: 0 to create, 0 to update, 0 to delete');
      expect(plan.code).toBe(0);
    }
    expect(writes(s.emu)).toEqual([]);
  });

  it('the export says what each odd entry is: managed as is, or left alone under ignore', async () => {
    s = await scenario();
    s.emu.seed(KEY, ODD);
    const r = await s.cli(['export']);
    expect(r.code).toBe(0);
    const out = r.stdout;
    // Listed as the service stores them.
    for (const d of ['my_site.example.com', 'trailing.example.org.', '192.0.2.1', 'bücher.example', 'shop.example.com', 'x.org']) {
      expect(out).toContain(`  - domain: ${d}\n`);
    }
    expect(out).toContain('# stored with a trailing dot: sitesync matches "trailing.example.org." and "trailing.example.org" as this one website');
    expect(out).toContain('# stored in unicode: sitesync matches it and its punycode form xn--bcher-kva.example as this one website');
    expect(out).toContain('# an IP address, not a host name: managed as is');
    expect(out).toContain('# holds "_", which DNS host names do not: managed as is');
    expect(out).toContain('# exclude_ips "office-router" never matches a visitor (not an address or CIDR range); kept as the service holds it');
    expect(out).toContain('# exclude_ips "192.168.1.*" never matches a visitor');
    expect(out).not.toContain('exclude_ips "10.0.0.1"');
    // Left alone: names a file entry cannot hold, escaped in comments.
    expect(out).toMatch(/ignore:\n(?:.*\n)*? {2}- a b\.example\.com\n/);
    expect(out).toContain('# "a b.example.com" (id 1) is no host name a file entry can hold: left alone, never updated or deleted');
    // (The service lower-cases what it stores, escape sequences included.)
    expect(out).toContain('# "a\\x1b[2j\\x1b[31mred.example.com" (id 6) is no host name');
    expect(out).toContain('  - "a\\e[2j\\e[31mred.example.com"\n');
    // A "*" pattern would also match the listed shop.example.com: protected instead.
    expect(out).toMatch(/protect:\n(?:.*\n)*? {2}- "\*\.example\.com"\n/);
    // x.org. is the same website to sitesync as x.org.
    expect(out).toContain('# The service also holds "x.org." (id 11), the same website to sitesync as');
  });

  it('following the file rather than a hint: trailing.example.org or its dot, and unicode or punycode, never create a second website', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'trailing.example.org.' }, { domain: 'bücher.example' }]);
    await s.write('version: 1\nprune: true\nwebsites:\n  - domain: trailing.example.org\n  - domain: xn--bcher-kva.example\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('0 to create, 0 to update, 0 to delete');
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['trailing.example.org.', 'bücher.example']);
  });

  it('a new unicode website with a trailing dot is created once, as punycode, and the next plan is clean', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: Bücher.example.\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['xn--bcher-kva.example']);
    const again = await s.cli(['plan', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  });
});

describe('the export names a schema that exists', () => {
  it('the yaml-language-server comment points, relative to the written file, at the schema sitesync ships', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'example.com' }]);
    await mkdir(join(s.dir, 'sub/dir'), { recursive: true });
    const r = await s.cli(['export', '-o', 'sub/dir/sitesync.yaml']);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(join(s.dir, 'sub/dir/sitesync.yaml'), 'utf8');
    const schema = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text)?.[1];
    expect(schema).toMatch(/schemas\/sitesync\.schema\.json$/);
    expect(schema).not.toBe('./schemas/sitesync.schema.json');
    expect(existsSync(resolve(s.dir, 'sub/dir', schema!))).toBe(true);
  });
});

describe('the export header says when a field the service does not return is sent', () => {
  it('only where the file sets it: a field left out never overwrites what the service holds', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'example.com', exclude_params: 'utm_source' }]);
    const r = await s.cli(['export']);
    expect(r.code, r.stderr).toBe(0);
    const header = r.stdout.slice(0, r.stdout.indexOf('\nversion:'));
    expect(header).toContain('# This service does not return exclude_params: they could not be exported.');
    expect(header.replace(/\n# /g, ' ')).toContain(
      'sitesync sends such a field only where the file sets it: on create, with another change to the website, when it differs from --baseline, or with --resend-write-only. Left out, it never overwrites what the service holds.',
    );
    expect(header).not.toMatch(/empty if unset|with every update/);

    // As the header says: plan sends nothing for the field the export left out.
    await s.write(r.stdout);
    s.emu.resetStats();
    const plan = await s.cli(['plan', '--detailed-exitcode', '--resend-write-only']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});

describe('export writes live text that looks like a reference as text', () => {
  it('exclude_ips and exclude_params "${SITESYNC_API_KEY}", "$${X}" and a domain "${X}.example.com": export → validate → plan shows no change', async () => {
    s = await scenario({ profile: 'full' }); // a service that returns exclude_params
    s.emu.seed(KEY, [
      { domain: 'a.example.com', exclude_ips: '${SITESYNC_API_KEY}\n$${X}\n10.0.0.1', exclude_params: '${SITESYNC_API_KEY}\n$${X}\nutm_source' },
      { domain: '${x}.example.com' },
    ]);
    const exported = await s.cli(['export', '-o', 'exported.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(join(s.dir, 'exported.yaml'), 'utf8');
    expect(text).toContain('- $${SITESYNC_API_KEY}\n');
    expect(text).toContain('- $$${X}\n');
    expect(text).toContain('- $${x}.example.com\n');

    const validated = await s.cli(['validate', '-c', 'exported.yaml']);
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stdout).toContain('exported.yaml is valid: 1 website');

    s.emu.resetStats();
    const plan = await s.cli(['plan', '-c', 'exported.yaml', '--detailed-exitcode', '--prune']);
    expect(plan.stdout, plan.stderr).toContain('Plan: 0 to create, 0 to update, 0 to delete');
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain(KEY);
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('export and the first pull request that sets a password', () => {
  it('the header says the variable must be in password_env on the base branch first, in a pull request of its own', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'members.example.com', privacy: 2, password: 'pw-members-0001' }]);
    const r = await s.cli(['export']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('# Checked with --trusted-config (as CI plans a pull request), NAME must match password_env on the');
    expect(r.stdout).toContain('# base branch first: list it there (e.g. ACME_*) in a pull request of its own, merged before the one that adds the password.');
    expect(r.stdout).not.toContain('pw-members-0001');
  });
});
