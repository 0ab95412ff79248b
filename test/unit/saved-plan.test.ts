import { describe, expect, it } from 'vitest';
import { configProblems } from '../../src/apply/plan-config.js';
import { ruleProblems } from '../../src/apply/plan-rules.js';
import { schemaProblems } from '../../src/apply/plan-schema.js';
import { assertSameAccount, recheckPlan } from '../../src/apply/recheck.js';
import type { SavedPlan } from '../../src/apply/saved-plan.js';
import { parseConfig } from '../../src/config/parse.js';
import type { Account, DeleteChange, LiveWebsite, UpdateChange } from '../../src/model.js';
import { planChanges } from '../../src/planner/plan.js';

const yaml = `version: 1
prune: true
ignore: ["*.staging.example.com"]
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
const config = parseConfig(yaml, '/repo/sitesync.yaml', { env: { PW: 'pw-VALUE-1' } });
const account: Account = { id: 7, name: 'Jane', email: 'jane@example.com', plan: 'Pro', websiteLimit: 10 };
const live: LiveWebsite[] = [
  { id: 1, domain: 'example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], favorite: false, password: false },
  { id: 2, domain: 'same.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: ['utm_source'], exclude_ips: [], password: false },
  { id: 3, domain: 'old.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false },
  { id: 4, domain: 'a.staging.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false },
];

function saved(from = config, prune = false): SavedPlan {
  const plan = planChanges({ config: from, live, account, baseUrl: 'https://analytics.example.com', options: { prune } });
  const out = {
    ...plan,
    saved: { created_at: '2026-01-01T00:00:00.000Z', sitesync_version: '0.1.0', config_file: 'sitesync.yaml', config_sha256: 'a'.repeat(64), live_total: 4, targets: [], prune },
  };
  return JSON.parse(JSON.stringify(out)) as SavedPlan;
}

describe('a saved plan file is checked whole', () => {
  it('what plan --out writes passes the schema and the rules', async () => {
    const plan = saved();
    expect(plan.changes.map((c) => c.action)).toEqual(['create', 'update', 'delete']);
    expect(await schemaProblems(plan)).toEqual([]);
    expect(ruleProblems(plan.changes)).toEqual([]);
  });

  it('a change written twice, an edited "before", and a password sent without its marker are each named', () => {
    const plan = saved();
    plan.changes.push(JSON.parse(JSON.stringify(plan.changes[2])));
    plan.changes[1]!.before!.privacy = 2;
    delete plan.changes[1]!.after!.password;
    expect(ruleProblems(plan.changes)).toEqual([
      'changes[1].before: does not match the fingerprint in "seen" (the file was edited)',
      'changes[1].fields: sends password, but "after" holds no value for it',
      'changes[1].details[0].before: is not the value of before.privacy',
      'changes[1].details[1].after: is not the value of after.password',
      'changes[3].domain: "old.example.com" is changed twice (also changes[2])',
      'changes[3].id: id 3 is changed twice (also changes[2])',
    ]);
  });
});

describe('what a saved plan says of itself is computed again', () => {
  it('summary, safety and limit come from the changes, the config and the live account, not the file', () => {
    const plan = saved();
    plan.summary = { create: 0, update: 0, delete: 0, unchanged: 99, unmanaged: 99 };
    plan.safety.exceeded = true;
    plan.limit.exceeded = true;
    plan.warnings = ['nothing to see here'];
    const again = recheckPlan(plan, config, { account: { ...account, websiteLimit: 4 }, total: 4, websites: live });
    expect(again.summary).toEqual({ create: 1, update: 1, delete: 1, unchanged: 1, unmanaged: 1 });
    // The ignored staging website is not managed: 1 delete of 3 managed.
    expect(again.safety).toMatchObject({ managed: 3, deletes: 1, exceeded: true, empty_file: false });
    expect(again.limit).toEqual({ limit: 4, live: 4, after: 4, exceeded: false });
    expect(again.warnings).toEqual([
      'this plan deletes 1 of 3 managed websites, 33 % > 30 %: apply will refuse without --force',
    ]);
    // The same figures as the planner's own.
    const fresh = planChanges({ config, live, account: { ...account, websiteLimit: 4 }, baseUrl: 'https://analytics.example.com' });
    expect([again.summary, again.safety, again.limit]).toEqual([fresh.summary, fresh.safety, fresh.limit]);
  });

  it('targets recorded in the plan narrow the managed websites, as they did when it was made', () => {
    const plan = saved();
    plan.saved.targets = ['*.example.com'];
    const again = recheckPlan(plan, config, { account, total: 4, websites: live });
    expect(again.safety.managed).toBe(2);
  });

  it('another account is refused, by id, or by e-mail when the service gives no id', () => {
    const plan = saved();
    expect(() => assertSameAccount(plan, account, 'plan.json')).not.toThrow();
    expect(() => assertSameAccount(plan, { ...account, id: 8 }, 'plan.json')).toThrow(
      'plan.json was made for the account Jane <jane@example.com> (id 7), but the key belongs to Jane <jane@example.com> (id 8); nothing was written',
    );
    plan.account!.id = null;
    expect(() => assertSameAccount(plan, { ...account, id: null, email: 'other@example.com' }, 'plan.json')).toThrow(/the key belongs to Jane <other@example.com>;/);
  });
});

describe('a saved plan does only what the config file it was made from asks for', () => {
  const unpruned = parseConfig(yaml
      .replace('prune: true\n', '')
      .replace('  exclude_params: [utm_source]\n', '  email: false\n')
      .replace('  - domain: same.example.com\n', '  - domain: same.example.com\n    exclude_params: [utm_source]\n'), '/repo/sitesync.yaml', { env: { PW: 'pw-VALUE-1' } });

  it('what plan --out writes follows its file, --prune included', () => {
    expect(configProblems(saved(), config, 'sitesync.yaml')).toEqual([]);
    const pruned = saved(unpruned, true);
    expect(pruned.changes.map((c) => c.action)).toEqual(['create', 'update', 'delete']);
    expect(configProblems(pruned, unpruned, 'sitesync.yaml')).toEqual([]);
    pruned.saved.prune = false;
    expect(configProblems(pruned, unpruned, 'sitesync.yaml')).toEqual([
      'changes[2]: deletes old.example.com, but neither sitesync.yaml (prune: true) nor the plan (--prune) prunes',
    ]);
  });

  it('deletes of a listed, ignored or untargeted website, an update of one not listed, another value and an unread field the file does not set are each named', () => {
    const plan = saved(unpruned, true);
    const remove = plan.changes[2] as DeleteChange;
    plan.changes.push({ ...remove, domain: 'same.example.com', id: 2 }, { ...remove, domain: 'a.staging.example.com', id: 4 });
    const update = plan.changes[1] as UpdateChange;
    plan.changes.push({ ...update, domain: 'elsewhere.example.com', id: 9 });
    update.after = { ...update.after, privacy: 1, favorite: true };
    // live example.com does not show exclude_params, and this file does not set it
    update.fields.push('exclude_params');
    expect(configProblems(plan, unpruned, 'sitesync.yaml')).toEqual([
      'changes[1].after.privacy: sends private, but sitesync.yaml sets password for example.com',
      'changes[1].after.favorite: sends true, but sitesync.yaml does not set favorite for example.com',
      'changes[1].fields: sends exclude_params, which the service does not show and sitesync.yaml does not set for example.com',
      'changes[3]: deletes same.example.com, but sitesync.yaml lists it',
      'changes[4]: deletes a.staging.example.com, but sitesync.yaml ignores it ("*.staging.example.com")',
      'changes[5]: updates elsewhere.example.com, but sitesync.yaml does not list it',
    ]);
    plan.saved.targets = ['example.com'];
    expect(configProblems(plan, unpruned, 'sitesync.yaml')).toContain(
      'changes[0]: creates new.example.com, but no --target of the plan (example.com) matches it',
    );
  });
});
