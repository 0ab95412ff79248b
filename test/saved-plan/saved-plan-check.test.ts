/**
 * A saved plan is checked by planning again: its shape against the schema, then each change
 * against the change planned now from the same config and the websites as they are now.
 */
import { describe, expect, it } from 'vitest';
import { schemaProblems } from '../../src/saved-plan/schema.js';
import type { SavedChange, SavedPlan } from '../../src/saved-plan/file.js';
import { compareSaved, type Numbered } from '../../src/saved-plan/departures.js';
import { savedReasons } from '../../src/saved-plan/consents.js';
import { Scope } from '../../src/planner/scope.js';
import { parseFile } from '../../src/config/parse.js';
import type { Account, Config, LiveWebsite } from '../../src/model/types.js';
import { planChanges, type PlanOptions } from '../../src/planner/plan.js';
import { fingerprint, liveView } from '../../src/planner/values.js';
import { runJson } from '../../src/render/run.js';

const yaml = `version: 1
prune: true
ignore: ["*.staging.example.com"]
protect: ["keep.example.com"]
safety: {max_delete_percent: 30, min_existing: 2}
defaults:
  exclude_params: [utm_source]
websites:
  - domain: example.com
    privacy: password
    password: \${PW}
    exclude_ips: [203.0.113.7, "2001:db8::/32"]
  - domain: new.example.com
    favorite: true
  - domain: same.example.com
`;
const config = parseFile(yaml, '/repo/sitesync.yaml', { env: { PW: 'pw-VALUE-1' } }).configs[0]!;
const account: Account = { id: 7, name: 'Jane', email: 'jane@example.com', plan: 'Pro', websiteLimit: 10 };
const live: LiveWebsite[] = [
  { id: 1, domain: 'example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], favorite: false, password: false },
  { id: 2, domain: 'same.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: ['utm_source'], exclude_ips: [], password: false },
  { id: 3, domain: 'old.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false },
  { id: 4, domain: 'a.staging.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false },
  { id: 5, domain: 'keep.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false },
];
const BASE = 'https://analytics.example.com';

function saved(from: Config = config, options: PlanOptions = {}): SavedPlan {
  const plan = planChanges({ config: from, live, account, baseUrl: BASE, options });
  const json = runJson([{ name: '', baseUrl: BASE, plan }], { keepSeen: true });
  const meta = { created_at: '2026-01-01T00:00:00.000Z', sitesync_version: '0.1.0', config_file: 'sitesync.yaml', config_sha256: 'a'.repeat(64), targets: [], excludes: [], prune: options.prune === true, resend_write_only: false };
  return JSON.parse(JSON.stringify({ ...json, saved: meta })) as SavedPlan;
}

/** A change edited to touch the live website `w`, with the fingerprint of it as it is: not stale, so only what it asks is judged. */
function aimedAt(change: SavedChange, w: LiveWebsite): SavedChange {
  const before = liveView(w);
  return { ...change, domain: w.domain, id: w.id, before, seen: fingerprint(before) } as SavedChange;
}

/** What apply does: plan the saved plan's websites again, as they are now, and compare. */
function check(plan: SavedPlan, from: Config = config, now: LiveWebsite[] = live) {
  const numbered: Numbered[] = plan.changes.map((change, index) => ({ index, change }));
  const only = new Set(plan.changes.map((c) => c.domain));
  const read = now.filter((w) => only.has(w.domain) || plan.changes.some((c) => c.id === w.id));
  const fresh = planChanges({
    config: from,
    live: read,
    account,
    baseUrl: BASE,
    options: { prune: plan.saved.prune, targets: plan.saved.targets, excludes: plan.saved.excludes, checkPatterns: false, only, sendAgain: savedReasons(plan.changes) },
    census: { total: now.length, managed: now.length },
  });
  return compareSaved(numbered, fresh, now, { config: from, shownConfig: 'sitesync.yaml', scope: new Scope(from, plan.saved), prune: plan.saved.prune });
}

describe('a saved plan file is checked whole', () => {
  it('what plan --out writes passes the schema, and planning it again finds it unchanged', async () => {
    const plan = saved();
    expect(plan.changes.map((c) => c.action)).toEqual(['create', 'update', 'delete']);
    expect(await schemaProblems(plan)).toEqual([]);
    expect(check(plan)).toEqual({ stale: [], problems: [] });
  });

  it('a change written twice, an edited fingerprint, and a password sent without the marker are each named', () => {
    const plan = saved();
    plan.changes.push(JSON.parse(JSON.stringify(plan.changes[2])) as SavedChange);
    (plan.changes[1] as { seen: string }).seen = '0000000000000000';
    delete plan.changes[0]!.after!.favorite;
    expect(check(plan)).toEqual({
      stale: ['example.com (id 1): changed since the plan'],
      problems: [
        'changes[0].after.favorite: sends (unknown), but sitesync.yaml sets true for new.example.com',
        'changes[3].domain: "old.example.com" is changed twice (also changes[2])',
      ],
    });
  });

  it('where a password comes from is what the file says: an edited variable name is named (a plan that says nothing, from an older sitesync, is not refused)', async () => {
    const plan = saved();
    const update = plan.changes[1] as SavedChange & { action: 'update' };
    expect(update.password_from).toEqual({ variables: ['PW'], clear: false });
    update.password_from = { variables: ['GLOBEX_PW'], clear: false };
    expect(await schemaProblems(plan)).toEqual([]);
    expect(check(plan).problems).toEqual(['changes[1].password_from: says (sensitive, from ${GLOBEX_PW}), but sitesync.yaml gives (sensitive, from ${PW}) for example.com']);
    delete update.password_from;
    expect(check(plan)).toEqual({ stale: [], problems: [] });
    (update as { password_from?: unknown }).password_from = { variables: ['a b'], clear: 'no' };
    expect(await schemaProblems(plan)).toEqual(['changes[1].password_from.variables[0]: must match pattern "^[A-Za-z_][A-Za-z0-9_]*$"', 'changes[1].password_from.clear: must be true or false, not "no"']);
  });

  it('a website changed at the service since, one created in the meantime, and one deleted are stale, with what changed', () => {
    const plan = saved();
    const now = live.map((w) => (w.id === 1 ? { ...w, privacy: 1 as const } : w)).filter((w) => w.id !== 3);
    now.push({ id: 9, domain: 'new.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false });
    expect(check(plan, config, now).stale).toEqual([
      'new.example.com: now exists at the service (id 9); the plan would create it',
      'example.com (id 1): changed since the plan: privacy public → private',
      'old.example.com (id 3): no longer exists at the service',
    ]);
  });
});

describe('a saved plan does only what the config file it was made from asks for', () => {
  const unpruned = parseFile(
    yaml
      .replace('prune: true\n', '')
      .replace('  exclude_params: [utm_source]\n', '  email: false\n')
      .replace('  - domain: same.example.com\n', '  - domain: same.example.com\n    exclude_params: [utm_source]\n'),
    '/repo/sitesync.yaml',
    { env: { PW: 'pw-VALUE-1' } },
  ).configs[0]!;

  it('what plan --out writes follows its file, --prune included; without --prune recorded, the delete is refused', () => {
    const pruned = saved(unpruned, { prune: true });
    expect(pruned.changes.map((c) => c.action)).toEqual(['create', 'update', 'delete']);
    expect(check(pruned, unpruned).problems).toEqual([]);
    pruned.saved.prune = false;
    expect(check(pruned, unpruned).problems).toEqual([
      'changes[2]: deletes old.example.com, but neither sitesync.yaml (prune: true) nor the plan (--prune) prunes',
    ]);
  });

  it('deletes of a listed, ignored or protected website, an update of one not listed, another value and an unread field are each named', () => {
    const plan = saved(unpruned, { prune: true });
    const remove = plan.changes[2]!;
    const byId = (id: number) => live.find((x) => x.id === id)!;
    plan.changes.push(aimedAt(remove, byId(2)), aimedAt(remove, byId(4)), aimedAt(remove, byId(5)));
    const update = plan.changes[1] as SavedChange & { action: 'update' };
    const elsewhere: LiveWebsite = { id: 9, domain: 'elsewhere.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false };
    plan.changes.push(aimedAt(update, elsewhere));
    update.after = { ...update.after, privacy: 1, favorite: true };
    // The live example.com does not show exclude_params, and this file does not set it.
    update.fields.push('exclude_params');
    const now = [...live, elsewhere];
    expect(check(plan, unpruned, now).problems).toEqual([
      'changes[1].after.privacy: sends private, but sitesync.yaml sets password for example.com',
      'changes[1].after.favorite: sends true, but sitesync.yaml does not set favorite for example.com',
      'changes[1].fields: sends exclude_params, which a plan of sitesync.yaml made now does not send to example.com',
      'changes[3]: deletes same.example.com, but sitesync.yaml lists it',
      'changes[4]: deletes a.staging.example.com, but sitesync.yaml ignores it ("*.staging.example.com")',
      'changes[5]: deletes keep.example.com, but sitesync.yaml protects it ("keep.example.com")',
      'changes[6]: updates elsewhere.example.com, but sitesync.yaml does not list it',
    ]);
    plan.saved.targets = ['example.com'];
    expect(check(plan, unpruned, now).problems).toContain('changes[0]: creates new.example.com, but no --target of the plan (example.com) matches it');
  });

  it('a write-only field sent because of the baseline is sent again for that reason, and only where the file sets it', () => {
    const baseline = parseFile(yaml.replace('${PW}', '${OLD_PW}'), '/repo/old.yaml', { env: { OLD_PW: 'old' } }).configs[0]!;
    const plan = saved(config, { baseline });
    const update = plan.changes.find((c) => c.domain === 'example.com')!;
    expect(update.details.find((d) => d.field === 'password')?.write_only).toBe('missing');
    const same = saved(config, { baseline });
    // A saved reason for a field the file does not set is not taken up: the change differs.
    const unchanged = same.changes.find((c) => c.domain === 'same.example.com');
    expect(unchanged).toBeUndefined();
    const edited = aimedAt(update, live.find((w) => w.id === 2)!) as SavedChange & { action: 'update' };
    same.changes.push({ ...edited, fields: ['password'], after: { domain: 'same.example.com', password: '(sensitive)' }, details: [{ field: 'password', before: false, after: '(sensitive)', write_only: 'baseline' }] });
    expect(check(same).problems).toContain('changes[3].after.password: sends (sensitive), but sitesync.yaml does not set password for same.example.com');
  });
});

describe('a plan made again from part of the account counts the whole account', () => {
  it('the thresholds and the website limit use the census, not the websites read', () => {
    const only = new Set(['old.example.com', 'new.example.com']);
    const part = planChanges({ config, live: live.filter((w) => only.has(w.domain)), account, baseUrl: BASE, options: { only }, census: { total: 5, managed: 4 } });
    const whole = planChanges({ config, live, account, baseUrl: BASE });
    expect(part.changes.map((c) => `${c.action} ${c.domain}`)).toEqual(['create new.example.com', 'delete old.example.com']);
    expect([part.safety, part.limit]).toEqual([whole.safety, whole.limit]);
  });
});

describe('a saved plan of a great many changes, each with a mistake', () => {
  it('names each: which errors lie below another is found once for all of them, not by reading all the others for each', { timeout: 30_000 }, async () => {
    const changes = Array.from({ length: 40_000 }, (_, i) => ({ account: 'a', action: 'create', domain: `w${i}.example.com`, id: 5, before: null, after: { domain: `w${i}.example.com` }, fields: [], details: [] }));
    const saved = { created_at: 'x', sitesync_version: '1', config_file: 'sitesync.yaml', config_sha256: '0'.repeat(64), targets: [], excludes: [], prune: false, resend_write_only: false };
    const problems = await schemaProblems({ format_version: 2, changes, accounts: [{ name: 'a', base_url: 'https://x.example', account: null }], saved });
    expect(problems).toHaveLength(40_000);
    expect(problems[0]).toBe('changes[0].id: must be null, not 5');
    expect(problems[39_999]).toBe('changes[39999].id: must be null, not 5');
  });
});
