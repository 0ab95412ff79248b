/**
 * "As approved": the pull request's plan comment (plan --format markdown) ends with a hidden
 * digest of its changes; apply --approved FILE compares its own plan with it and says "as
 * approved", or which changes differ and why; --require-approved writes nothing when they differ.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let sc: Scenario | undefined;
afterEach(async () => {
  await sc?.close();
  sc = undefined;
});

const ENV = { SHOP_PW: 'shop-SECRET-value-1' };
const FILE = `version: 1
websites:
  - domain: shop.example.com
    privacy: password
    password: \${SHOP_PW}
  - domain: new.example.com
    email: true
`;

/** The emulator with shop.example.com public, and the pull request's plan comment in plan.md. */
async function approvedPlan(): Promise<Scenario> {
  const s = await scenario();
  s.emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 0 }]);
  await s.write(FILE);
  const r = await s.cli(['plan', '--format', 'markdown'], { env: ENV });
  expect(r.code, r.stderr).toBe(0);
  await writeFile(join(s.dir, 'plan.md'), r.stdout);
  s.emu.resetStats();
  return s;
}

describe('apply --approved', () => {
  it('the plan the pull request showed is applied "as approved", on the terminal and in the report; the comment names no password', async () => {
    sc = await approvedPlan();
    const comment = await readFile(join(sc.dir, 'plan.md'), 'utf8');
    expect(comment).toMatch(/\*\*Plan: 1 to create, 1 to update.*\*\*\n\n<!-- sitesync-approved: \{"version":1,"config_sha256":"[0-9a-f]{64}","accounts":\[\{"name":null,"count":2,.*\} -->\n$/);
    expect(comment).not.toContain(ENV.SHOP_PW);
    const r = await sc.cli(['apply', '--auto-approve', '--approved', 'plan.md', '--require-approved', '--report', 'report.md'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('As approved: the plan is the one approved in plan.md (2 changes).');
    expect(r.stdout).toContain('Applied: 1 created, 1 updated, 0 deleted, 0 failed.');
    const report = await readFile(join(sc.dir, 'report.md'), 'utf8');
    expect(report).toContain('**As approved**: the plan applied is the one approved in `plan.md` (2 changes).');
    for (const text of [r.stdout, r.stderr, report]) expect(text).not.toContain(ENV.SHOP_PW);
  });

  it('after drift at the service it names each change that differs and why; --require-approved then writes nothing, and the report says so', async () => {
    sc = await approvedPlan();
    // Someone turned on the website's e-mail reports by hand since the plan, and created new.example.com.
    sc.emu.seed(KEY, [{ domain: 'new.example.com', email: 1 }]);
    const shop = sc.emu.websites(KEY).find((w) => w.domain === 'shop.example.com')!;
    await fetch(`${sc.emu.url}/api/v1/websites/${shop.id}`, { method: 'PATCH', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=1' });
    sc.emu.resetStats();
    const r = await sc.cli(['apply', '--auto-approve', '--approved', 'plan.md', '--require-approved', '--report', 'report.md'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      ['Not as approved: 2 differences from the plan approved in plan.md, changed at the service since the plan:', '  different  update shop.example.com (id 1)', '  missing    create new.example.com'].join('\n'),
    );
    expect(r.stderr).toContain('Error: --require-approved: the plan differs from the one approved in plan.md (2 differences, changed at the service since the plan); nothing was written');
    expect(writes(sc.emu)).toEqual([]);
    const report = await readFile(join(sc.dir, 'report.md'), 'utf8');
    expect(report).toContain('### sitesync apply: failed');
    expect(report).toContain('not applied: --require-approved: the plan differs');
    expect(report).toContain('> - different: update `shop.example.com` (id 1)');

    // Without --require-approved it says so, and applies the plan of now.
    const loose = await sc.cli(['apply', '--auto-approve', '--approved', 'plan.md'], { env: ENV });
    expect(loose.code, loose.stderr).toBe(0);
    expect(loose.stdout).toContain('  different  update shop.example.com (id 1)');
    expect(writes(sc.emu)).toEqual(['PATCH /api/v1/websites/1 200']);
  });

  it('a config changed after the plan (merged without a new plan) says so', async () => {
    sc = await approvedPlan();
    await sc.write(FILE.replace('email: true', 'email: false'));
    const r = await sc.cli(['apply', '--auto-approve', '--approved', 'plan.md', '--require-approved'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Not as approved: 1 difference from the plan approved in plan.md, merged without a new plan:\n  different  create new.example.com');
    expect(writes(sc.emu)).toEqual([]);
  });

  it('a delete the plan archived first, merged without its archive: (a commit after the last plan), is not as approved; one archived more than approved is', async () => {
    const s = (sc = await scenario());
    s.emu.seed(KEY, [{ domain: 'shop.example.com' }, { domain: 'old.example.com', traffic: { [new Date(Date.now() - 400 * 86_400_000).toISOString().slice(0, 10)]: 500 } }]);
    const file = 'version: 1\nprune: true\nsafety: { max_delete_percent: 100 }\narchive: archives\nwebsites:\n  - domain: shop.example.com\n';
    await s.write(file);
    const planned = await s.cli(['plan', '--format', 'markdown']);
    expect(planned.stdout).toContain('archived first to archives/');
    await writeFile(join(s.dir, 'plan.md'), planned.stdout);
    // The same delete, its history no longer kept: not what the reviewers approved.
    await s.write(file.replace('archive: archives\n', ''));
    s.emu.resetStats();
    const r = await s.cli(['apply', '--auto-approve', '--approved', 'plan.md', '--require-approved']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Not as approved: 1 difference from the plan approved in plan.md, merged without a new plan:\n  different  delete old.example.com (id 2)');
    expect(writes(s.emu)).toEqual([]);

    // A plan without archive:, applied with --archive DIR: the history is kept all the same.
    await writeFile(join(s.dir, 'plan.md'), (await s.cli(['plan', '--format', 'markdown'])).stdout);
    const safer = await s.cli(['apply', '--auto-approve', '--approved', 'plan.md', '--require-approved', '--archive', 'kept']);
    expect(safer.code, safer.stderr).toBe(0);
    expect(safer.stdout).toContain('As approved: the plan is the one approved in plan.md (1 change).');
    expect(safer.stdout).toContain('(archived first: kept/old.example.com-2-');
  });

  it('a file without an approved plan is not compared (and refused with --require-approved); --require-approved alone is a usage error', async () => {
    sc = await approvedPlan();
    await writeFile(join(sc.dir, 'text.md'), (await sc.cli(['plan', '--format', 'text'], { env: ENV })).stdout);
    const refused = await sc.cli(['apply', '--auto-approve', '--approved', 'text.md', '--require-approved'], { env: ENV });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Error: --require-approved: text.md holds no approved plan (the <!-- sitesync-approved: … --> block that sitesync plan --format markdown ends its plan with); nothing was written');
    const missing = await sc.cli(['apply', '--auto-approve', '--approved', 'gone.md', '--require-approved'], { env: ENV });
    expect(missing.stderr).toContain('Error: --require-approved: gone.md: no such file');
    expect(writes(sc.emu)).toEqual([]);
    const alone = await sc.cli(['apply', '--auto-approve', '--require-approved'], { env: ENV });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--require-approved needs --approved FILE');
    expect(sc.emu.stats.log.filter((r) => r.method !== 'GET')).toEqual([]);
    const loose = await sc.cli(['apply', '--auto-approve', '--approved', 'text.md'], { env: ENV });
    expect(loose.code, loose.stderr).toBe(0);
    expect(loose.stdout).toContain('Not compared with an approved plan: text.md holds no approved plan');
  });

  it('apply PLANFILE --approved compares the saved plan, made again, with the approved comment', async () => {
    sc = await approvedPlan();
    expect((await sc.cli(['plan', '--out', 'plan.json'], { env: ENV })).code).toBe(0);
    const r = await sc.cli(['apply', 'plan.json', '--approved', 'plan.md', '--require-approved'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('As approved: the plan is the one approved in plan.md (2 changes).');
  });

  it('a file with accounts: one comment, one block; an account the apply leaves out is named as missing', async () => {
    sc = await scenario({ keys: [KEY, 'sk-test-BETA-KEY-0123456789'] });
    const accounts = `version: 1
accounts:
  acme:
    base_url: ${sc.emu.url}
    api_key_env: ACME_KEY
    websites:
      - domain: a.example.com
  beta:
    base_url: ${sc.emu.url}
    api_key_env: BETA_KEY
    websites:
      - domain: b.example.com
`;
    await sc.write(accounts);
    const env = { ACME_KEY: KEY, BETA_KEY: 'sk-test-BETA-KEY-0123456789' };
    const plan = await sc.cli(['plan', '--format', 'markdown'], { env });
    expect(plan.stdout.match(/<!-- sitesync-approved: /g)).toHaveLength(1);
    expect(plan.stdout).toContain('"accounts":[{"name":"acme","count":1,');
    await writeFile(join(sc.dir, 'plan.md'), plan.stdout);
    const r = await sc.cli(['apply', '--auto-approve', '--approved', 'plan.md', '--account', 'acme'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('  missing    [beta] create b.example.com (the account is not in this run)');
  });
});
