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

describe('exclude_bots stored as null is off', () => {
  it('the product saves `exclude_bots=` as null and its tracker then counts bots: plan, export and archive read it as false', async () => {
    s = await scenario();
    const created = await fetch(`${s.emu.url}/api/v1/websites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'domain=bots.example.com&privacy=0&email=0&exclude_bots=',
    });
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
