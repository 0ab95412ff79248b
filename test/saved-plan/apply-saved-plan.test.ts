/** `plan --out FILE` then `apply FILE`: a saved plan is applied exactly, and re-checked, never trusted. */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/planner/values.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const ENV = { SITE_PW: 'pw-value-123' };
const OTHER_KEY = 'sk-test-ANOTHER-ACCOUNT-9876543210';

function sites(n: number, prefix = 's') {
  return Array.from({ length: n }, (_, i) => `  - domain: ${prefix}${i}.example.com`).join('\n');
}

async function readPlan(name = 'plan.json'): Promise<Record<string, any>> {
  return JSON.parse(await readFile(join(s.dir, name), 'utf8'));
}

async function writePlan(plan: unknown, name = 'plan.json'): Promise<void> {
  await writeFile(join(s.dir, name), JSON.stringify(plan, null, 2));
}

/** Another client of the same account creates a website. */
async function createElsewhere(domain: string, key = KEY): Promise<void> {
  const res = await fetch(`${s.emu.url}/api/v1/websites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: `domain=${domain}`,
  });
  expect(res.status).toBe(201);
}

async function expectConverged(): Promise<void> {
  const again = await s.cli(['plan', '--detailed-exitcode'], { env: ENV });
  expect(again.stdout).toMatch(/Plan: 0 to create, 0 to update, 0 to delete/);
  expect(again.code).toBe(0);
}

describe('apply PLANFILE', () => {
  const CONFIG = `version: 1\nprune: true\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: \${SITE_PW}\n  - domain: b.example.com\n    email: true\n  - domain: c.example.com\n`;

  async function saved(options: Parameters<typeof scenario>[0] = {}) {
    s = await scenario(options);
    s.emu.seed(KEY, [
      { domain: 'b.example.com', privacy: 0, email: 0, exclude_bots: 1 },
      { domain: 'old.example.com', privacy: 0, email: 0, exclude_bots: 1 },
    ]);
    await s.write(CONFIG);
    const r = await s.cli(['plan', '--out', 'plan.json'], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Saved the plan to plan.json; apply it with: sitesync apply plan.json');
    s.emu.resetStats();
  }

  it('a fresh saved plan with a password applies exactly, taking the password from the config file it was made from', async () => {
    await saved();
    const text = await readFile(join(s.dir, 'plan.json'), 'utf8');
    expect(text).not.toContain('pw-value-123');
    // The variable's name only, for the reviewer: apply reads the password from the config file.
    expect(JSON.parse(text).changes[0].password_from).toEqual({ variables: ['SITE_PW'], clear: false });
    const r = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Applied: 2 created, 1 updated, 1 deleted, 0 failed.');
    expect(s.emu.websites(KEY).find((w) => w.domain === 'a.example.com')!.password).toBe('pw-value-123');
    await expectConverged();
  });

  it('a missing secret is an error before any write', async () => {
    await saved();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('websites[0].password: environment variable SITE_PW is not set');
    expect(writes(s.emu)).toEqual([]);
  });

  it('a stale saved plan is refused, shows what changed, and nothing is written', async () => {
    await saved();
    // Someone changes a website the plan touches, and creates one it would create.
    const res = await fetch(`${s.emu.url}/api/v1/websites/1`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${KEY}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'privacy=1',
    });
    expect(res.status).toBe(200);
    s.emu.seed(KEY, [{ domain: 'c.example.com' }]);
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('plan.json is stale: 2 of its 4 changes no longer match the service; nothing was written');
    expect(r.stderr).toContain('b.example.com (id 1): changed since the plan: privacy public → private');
    expect(r.stderr).toMatch(/c\.example\.com: now exists at the service \(id \d+\); the plan would create it/);
    expect(writes(s.emu)).toEqual([]);
  });

  it('a saved plan is applied exactly: flags that would change it are refused', async () => {
    await saved();
    const r = await s.cli(['apply', 'plan.json', '--target', 'a.*'], { env: { SITE_PW: 'x' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('a saved plan is applied exactly as it was made: --target cannot change it');
  });

  it('a damaged plan file is refused', async () => {
    await saved();
    await writeFile(join(s.dir, 'bad.json'), '{"format_version": 2, "saved": {}, "accounts": [], "changes": [{"action": "update", "domain": "x"}]}');
    const r = await s.cli(['apply', 'bad.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.json: changes\[0\]: "id" is missing/);
    expect(r.stderr).toMatch(/bad\.json: saved: "config_file" is missing/);
    expect(s.emu.stats.requests).toBe(0);

    // A plan saved by an older sitesync is refused with what to do.
    await writeFile(join(s.dir, 'old.json'), '{"format_version": 1, "saved": {}, "changes": []}');
    const old = await s.cli(['apply', 'old.json']);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('old.json: format_version is 1: the plan was saved by an older sitesync, whose plans this one does not apply; make the plan again');
    expect(writes(s.emu)).toEqual([]);
  });

  it('a password written in clear cannot be saved in a plan', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: 2\n    password: literal-pw-123\n');
    const r = await s.cli(['plan', '--out', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot save the plan: the password of a.example.com is written in the file');
    expect(r.stderr).not.toContain('literal-pw-123');
  });

  it('a plan made with one account\'s key is refused with another account\'s key, and nothing is written there', async () => {
    await saved({ keys: [KEY, OTHER_KEY] });
    expect((await readPlan()).accounts[0].account).toEqual({ id: 1, name: 'Emulator account 1', email: 'account1@emulator.local' });
    const r = await s.cli(['apply', 'plan.json'], { env: { ...ENV, SITESYNC_API_KEY: OTHER_KEY } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'plan.json was made for the account Emulator account 1 <account1@emulator.local> (id 1), but the key belongs to Emulator account 2 <account2@emulator.local> (id 2); nothing was written',
    );
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.websites(OTHER_KEY)).toEqual([]);
  });

  it('a secret reference edited into a saved plan is refused: the API key never becomes a website\'s password', async () => {
    await saved();
    const plan = await readPlan();
    const change = plan.changes.find((c: { domain: string }) => c.domain === 'a.example.com');
    change.secrets = { password: '${SITESYNC_API_KEY}' };
    await writePlan(plan);
    const r = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('plan.json: changes[0]: unknown key "secrets"');
    expect(writes(s.emu)).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('a saved plan whose config file changed since is refused, naming the file; the password never comes from elsewhere', async () => {
    await saved();
    // The reference in the config file is pointed at another secret after the plan was made.
    await s.write(CONFIG.replace('${SITE_PW}', '${OTHER_SECRET}'));
    const changed = await s.cli(['apply', 'plan.json'], { env: { ...ENV, OTHER_SECRET: 'not-this-one' } });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain(
      'sitesync.yaml changed since plan.json was made from it (its SHA-256 differs); nothing was written',
    );
    expect(changed.stderr).toContain('Make the plan again: sitesync plan --out plan.json');
    await rm(join(s.dir, 'sitesync.yaml'));
    const missing = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('sitesync.yaml, the config file to apply plan.json with, cannot be read: no such file');
    expect(missing.stderr).toContain('plan.json was made from sitesync.yaml (from the top of its repository): give it with -c.');
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.websites(KEY).map((w) => w.password)).not.toContain('not-this-one');
  });

  it('a create edited to "evil..com/x" is refused before any write, with every problem of the file at once', async () => {
    await saved();
    const plan = await readPlan();
    // The shape first, every problem at once, before anything is read from the service.
    const shape = structuredClone(plan);
    shape.changes[2].id = 'one';
    shape.changes[1].after.exclude_ips = ['10.0.0.0/8', 'two\nlines'];
    await writePlan(shape);
    const malformed = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('2 problems found; nothing was changed on the service.');
    expect(malformed.stderr).toContain('plan.json: changes[2].id: must be a whole number, not "one"');
    expect(malformed.stderr).toMatch(/plan\.json: changes\[1\]\.after\.exclude_ips\[1\]: must match pattern/);
    expect(s.emu.stats.requests).toBe(0);

    // Then what it asks, against a plan of the config file made again now.
    plan.changes[0].domain = 'evil..com/x';
    plan.changes[0].after.domain = 'evil..com/x';
    plan.changes[1].after.exclude_ips = ['10.0.0.0/8', ' office-router'];
    await writePlan(plan);
    const r = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('2 problems found; nothing was changed on the service.');
    expect(r.stderr).toContain('plan.json: changes[0]: creates evil..com/x, but sitesync.yaml does not list it');
    expect(r.stderr).toContain('plan.json: changes[1].after.exclude_ips: sends 10.0.0.0/8,  office-router, but sitesync.yaml sets (none) for c.example.com');
    expect(writes(s.emu)).toEqual([]);
  });

  it('"format_version": "2" is refused, saying it is a string where the number 2 is read', async () => {
    await saved();
    const plan = await readPlan();
    plan.format_version = '2';
    await writePlan(plan);
    const r = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('plan.json: format_version is the string "2"; this sitesync reads format_version 2 (a number)');
  });

  it('a saved plan without its informational parts (summary, warnings, unverified) applies, instead of an internal error', async () => {
    await saved();
    const plan = await readPlan();
    delete plan.summary;
    delete plan.accounts[0].unverified;
    delete plan.accounts[0].warnings;
    await writePlan(plan);
    const r = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(r.stderr).not.toContain('Internal error');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Applied:');
    await expectConverged();
  });

  it('"changes": [] edited into a saved plan says "No changes" and "Plan: 0 to create", and writes nothing', async () => {
    await saved();
    const plan = await readPlan();
    plan.changes = [];
    await writePlan(plan);
    const r = await s.cli(['apply', 'plan.json'], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No changes');
    expect(r.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete');
    expect(r.stdout).toContain('Nothing to apply.');
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('apply PLANFILE computes safety and the website limit again', () => {
  it('a saved plan edited to "exceeded": false still cannot delete 11 of 12 websites past a 10 % threshold', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 12 }, (_, i) => ({ domain: `s${i}.example.com` })));
    await s.write(`version: 1\nprune: true\nsafety:\n  max_delete_percent: 10\n  min_existing: 10\nwebsites:\n${sites(1)}\n`);
    const made = await s.cli(['plan', '--out', 'plan.json']);
    expect(made.stdout).toContain('this plan deletes 11 of 12 managed websites, 92 % > 10 %: apply will refuse without --force');
    const plan = await readPlan();
    plan.accounts[0].safety.exceeded = false;
    plan.accounts[0].safety.max_delete_percent = 100;
    plan.accounts[0].safety.managed = 1000;
    plan.accounts[0].warnings = [];
    await writePlan(plan);
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refusing to delete 11 of 12 managed websites, 92 % > 10 %; nothing was written');
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.websites(KEY)).toHaveLength(12);
  });

  it('a saved plan edited to delete every website of an emptied file is refused without --force', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 3 }, (_, i) => ({ domain: `s${i}.example.com` })));
    await s.write(`version: 1\nprune: true\nwebsites: []\n`);
    await s.cli(['plan', '--out', 'plan.json']);
    const plan = await readPlan();
    plan.accounts[0].safety.empty_file = false;
    await writePlan(plan);
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the file lists no websites, and the plan would delete 3; nothing was written');
    expect(writes(s.emu)).toEqual([]);
  });

  it('at 9 of 10 websites, one created by another client makes apply PLANFILE refuse with the limit message before any write', async () => {
    s = await scenario({ keys: [{ key: KEY, websiteLimit: 10 }] });
    s.emu.seed(KEY, Array.from({ length: 9 }, (_, i) => ({ domain: `s${i}.example.com` })));
    await s.write(`version: 1\nwebsites:\n${sites(10)}\n`);
    const made = await s.cli(['plan', '--out', 'plan.json']);
    expect(made.stdout).toContain('Plan: 1 to create');
    expect(made.stdout).not.toContain('apply will refuse');
    await createElsewhere('elsewhere.example.com');
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the account's plan allows 10 websites, and after this plan it would hold 11; nothing was written");
    expect(writes(s.emu)).toEqual([]);
  });

  it('apply PLANFILE of a --target plan shows the summary line the plan showed', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.org' }, { domain: 'b.org' }, { domain: 'c.org' }]);
    await s.write('version: 1\nwebsites:\n  - domain: a.org\n  - domain: new.org\n');
    const made = await s.cli(['plan', '--target', 'new.org', '--out', 'plan.json']);
    const applied = await s.cli(['apply', 'plan.json']);
    const line = (t: string) => t.match(/^Plan: .*$/m)?.[0];
    expect(line(applied.stdout)).toBe(line(made.stdout));
    expect(line(made.stdout)).toBe('Plan: 1 to create, 0 to update, 0 to delete (0 unchanged, 0 unmanaged).');
  });

  it('a summary edited in a saved plan is not what apply shows: it counts the changes', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'gone.example.com' }]);
    await s.write(`version: 1\nprune: true\nwebsites:\n${sites(2)}\n`);
    await s.cli(['plan', '--out', 'plan.json']);
    const plan = await readPlan();
    plan.summary = { create: 0, update: 0, delete: 0, unchanged: 0, unmanaged: 0 };
    await writePlan(plan);
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.stdout).toContain('Plan: 2 to create, 0 to update, 1 to delete');
    expect(r.code).toBe(0);
  });
});

describe('apply PLANFILE does only what the config file it was made from asks for', () => {
  it('a saved plan edited to delete a protected website is refused before any write, and the website stays', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.example.com' }, { domain: 'keep.example.com' }, { domain: 'old.example.com' }]);
    await s.write('version: 1\nprune: true\nprotect: ["keep.*.com"]\nwebsites:\n  - domain: a.example.com\n');
    const made = await s.cli(['plan', '--out', 'plan.json']);
    expect(made.stdout).toContain('Plan: 0 to create, 0 to update, 1 to delete');
    const plan = await readPlan();
    const keep = s.emu.websites(KEY).find((w) => w.domain === 'keep.example.com')!;
    const before = { ...plan.changes[0].before, domain: 'keep.example.com' };
    plan.changes.push({ ...plan.changes[0], domain: 'keep.example.com', id: keep.id, before, seen: fingerprint(before) });
    await writePlan(plan);
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('plan.json: changes[1]: deletes keep.example.com, but sitesync.yaml protects it ("keep.*.com")');
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toContain('keep.example.com');
  });

  it('a saved plan edited to create a website the file does not list and to exclude every visitor is refused before any write, each change named', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'b.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    await s.write('version: 1\nwebsites:\n  - domain: b.example.com\n    email: true\n  - domain: c.example.com\n');
    await s.cli(['plan', '--out', 'plan.json']);
    const plan = await readPlan();
    expect(plan.changes.map((c: { action: string; domain: string }) => `${c.action} ${c.domain}`)).toEqual(['create c.example.com', 'update b.example.com']);
    plan.changes[0].domain = 'unlisted.example.com';
    plan.changes[0].after.domain = 'unlisted.example.com';
    const update = plan.changes[1];
    update.after.exclude_ips = ['0.0.0.0/0'];
    update.fields.push('exclude_ips');
    update.details.push({ field: 'exclude_ips', before: update.before.exclude_ips ?? null, after: ['0.0.0.0/0'] });
    await writePlan(plan);
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('2 problems found; nothing was changed on the service.');
    expect(r.stderr).toContain('plan.json: changes[0]: creates unlisted.example.com, but sitesync.yaml does not list it');
    expect(r.stderr).toContain('plan.json: changes[1].after.exclude_ips: sends 0.0.0.0/0, but sitesync.yaml sets (none) for b.example.com');
    expect(writes(s.emu)).toEqual([]);
  });

  it('a plan saved with --prune deletes, where the file itself does not prune, only when apply says --prune too', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.example.com' }, { domain: 'old.example.com' }]);
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n');
    await s.cli(['plan', '--prune', '--out', 'plan.json']);
    expect((await readPlan()).saved.prune).toBe(true);
    s.emu.resetStats();
    const refused = await s.cli(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('plan.json was made with --prune, which the config file does not ask for; nothing was written');
    expect(refused.stderr).toContain('sitesync apply --prune plan.json');
    expect(writes(s.emu)).toEqual([]);
    const r = await s.cli(['apply', '--prune', 'plan.json']);
    expect(r.stdout).toContain('Applied: 0 created, 0 updated, 1 deleted, 0 failed.');
    expect(r.code).toBe(0);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['a.example.com']);
    // And --prune cannot be added to a plan made without it.
    await s.cli(['plan', '--out', 'plan.json']);
    const added = await s.cli(['apply', '--prune', 'plan.json']);
    expect(added.code, added.stderr).toBe(1);
    expect(added.stderr).toContain('plan.json was made without --prune');
  });

  it('a plan saved with --resend-write-only sends the passwords again only when apply says --resend-write-only too; a plan file edited to ask for it is refused', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.example.com', privacy: 2, password: 'old-pw' }]);
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: ${SITE_PW}\n');
    const env = { SITE_PW: 'pw-value-123' };
    await s.cli(['plan', '--resend-write-only', '--out', 'plan.json'], { env });
    expect((await readPlan()).changes).toHaveLength(1);
    s.emu.resetStats();
    const refused = await s.cli(['apply', 'plan.json'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('plan.json sends write-only values (passwords, lists the service does not show) that the config file does not change, to a.example.com; nothing was written');
    expect(refused.stderr).toContain('sitesync apply --resend-write-only plan.json');
    expect(writes(s.emu)).toEqual([]);
    // Relabelled "changed since the baseline", a claim apply cannot check: the same consent.
    const plan = await readPlan();
    const text = JSON.stringify(plan).replaceAll('"write_only":"resend"', '"write_only":"baseline"').replace('"resend_write_only":true', '"resend_write_only":false');
    await writeFile(join(s.dir, 'edited.json'), text);
    const relabelled = await s.cli(['apply', 'edited.json'], { env });
    expect(relabelled.code).toBe(1);
    expect(relabelled.stderr).toContain('edited.json sends write-only values');
    expect(writes(s.emu)).toEqual([]);
    const r = await s.cli(['apply', '--resend-write-only', 'plan.json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(s.emu.websites(KEY)[0]!.password).toBe('pw-value-123');
    expect(r.stdout + r.stderr).not.toContain('pw-value-123');
  });
});

describe('a saved plan travels between jobs of one workflow', () => {
  it('made in one checkout of the repository (from its top or a subfolder) and saved outside it, it applies in another checkout at another path', async () => {
    s = await scenario();
    const { mkdir, cp } = await import('node:fs/promises');
    const first = join(s.dir, 'job-1/ws');
    const second = join(s.dir, 'job-2/elsewhere/ws');
    for (const ws of [first, second]) {
      await mkdir(join(ws, '.git'), { recursive: true });
      await mkdir(join(ws, 'stats'), { recursive: true });
      await writeFile(join(ws, 'stats/sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    }
    // The plan job: run in the subfolder, the plan saved outside the checkout (as the action does, in RUNNER_TEMP).
    const made = await s.cli(['plan', '-c', 'sitesync.yaml', '--out', join(s.dir, 'job-1/plan.json')], { cwd: join(first, 'stats') });
    expect(made.code, made.stderr).toBe(0);
    const saved = JSON.parse(await readFile(join(s.dir, 'job-1/plan.json'), 'utf8'));
    expect(saved.saved.config_file).toBe('stats/sitesync.yaml');
    // The apply job: the artifact downloaded into its own checkout.
    await cp(join(s.dir, 'job-1/plan.json'), join(second, 'plan.json'));
    // The config file is the command's (-c), never one the plan file names; it must be the one the plan was made from.
    s.emu.resetStats();
    const elsewhere = await s.cli(['apply', 'plan.json'], { cwd: second });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('sitesync.yaml, the config file to apply plan.json with, cannot be read: no such file');
    await writeFile(join(second, 'sitesync.yaml'), 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const other = await s.cli(['apply', 'plan.json'], { cwd: second });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('plan.json was made from stats/sitesync.yaml, not sitesync.yaml (sitesync.yaml in its repository)');
    expect(s.emu.stats.requests).toBe(0);
    const applied = await s.cli(['apply', '-c', 'stats/sitesync.yaml', 'plan.json'], { cwd: second });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Applied: 1 created, 0 updated, 0 deleted, 0 failed.');
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['a.example.com']);
  });

  it('a config_file that climbs out of the repository is refused before anything is read', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n');
    await s.cli(['plan', '--out', 'plan.json']);
    const plan = await readPlan();
    plan.saved.config_file = '../../etc/sitesync.yaml';
    await writePlan(plan);
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('saved.config_file: "../../etc/sitesync.yaml" is not a path inside the repository');
    expect(s.emu.stats.requests).toBe(0);
  });
});
