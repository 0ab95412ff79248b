/** The gate (planner/gate.ts) and the write order (planner/moves.ts): pure, a plan in, refusals or marks out. */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/config/parse.js';
import type { Account, LiveWebsite, Plan } from '../../src/model/types.js';
import { refusals } from '../../src/planner/gate.js';
import { atLimit, goesFirst, markMoves, moveNote } from '../../src/planner/moves.js';
import { planChanges } from '../../src/planner/plan.js';

const BASE = 'https://analytics.example.com';
const env = { PW: 'the-password-1', KEYVAR: 'sk-the-api-key' };
const config = (yaml: string) => parseFile(`version: 1\n${yaml}`, 'sitesync.yaml', { env }).configs[0]!;
const live = (id: number, domain: string): LiveWebsite => ({ id, domain, privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], favorite: false, password: false });
const account = (limit: number | null): Account => ({ id: 1, name: 'A', email: 'a@example.com', websiteLimit: limit }) as Account;
const plan = (yaml: string, sites: LiveWebsite[], limit: number | null = null): Plan =>
  planChanges({ config: config(yaml), live: sites, account: account(limit), baseUrl: BASE, options: {} });
const consents = { force: false, shownConfig: 'sitesync.yaml', isKey: (v: string) => v === 'sk-the-api-key' };

describe('the gate', () => {
  it('a plan within every rule: no refusal', () => {
    const yaml = 'websites:\n  - domain: a.example.com\n';
    expect(refusals(plan(yaml, []), config(yaml), consents)).toEqual([]);
  });

  it('every reason at once: over the website limit, and a password that is the API key', () => {
    const yaml = 'websites:\n  - domain: a.example.com\n    privacy: password\n    password: ${KEYVAR}\n  - domain: b.example.com\n';
    const messages = refusals(plan(yaml, [live(1, 'c.example.com')], 2), config(yaml), consents).map((e) => e.message);
    expect(messages).toEqual([
      "the account's plan allows 2 websites, and after this plan it would hold 3; nothing was written",
      'the password of a.example.com is the API key: the service would store the key as a website password; nothing was written',
    ]);
  });

  it('--require-approved: a plan that differs from the approved one is refused first', () => {
    const yaml = 'websites:\n  - domain: a.example.com\n';
    const approved = { file: 'plan.md', count: 1, differences: [{ account: '', kind: 'added' as const }], why: 'merged without a new plan' as const };
    const [first] = refusals(plan(yaml, []), config(yaml), { ...consents, approved });
    expect(first?.message).toBe('--require-approved: the plan differs from the one approved in plan.md (1 difference, merged without a new plan); nothing was written');
  });
});

describe('the write order', () => {
  const swap = 'prune: true\nwebsites:\n  - domain: s0.example.com\n  - domain: n0.example.com\n';
  it('at the limit the deletes go first; below it nothing is reordered', () => {
    const at = plan(swap, [live(1, 's0.example.com'), live(2, 's1.example.com')], 2);
    expect(atLimit(at)).toBe(true);
    expect(at.changes.filter((c) => goesFirst(at, c)).map((c) => `${c.action} ${c.domain}`)).toEqual(['delete s1.example.com']);
    const below = plan(swap, [live(1, 's0.example.com'), live(2, 's1.example.com')], 3);
    expect(below.changes.some((c) => goesFirst(below, c))).toBe(false);
  });

  it('a domain one account deletes and another of the same installation creates is a move; on two installations it is not', () => {
    const acme = plan('prune: true\nwebsites: []\n', [live(1, 'shop.example')]);
    const beta = plan('websites:\n  - domain: shop.example\n', []);
    const [a, b] = markMoves([
      { name: 'acme', installation: 'east', plan: acme },
      { name: 'beta', installation: 'east', plan: beta },
    ]);
    expect(a!.changes[0]).toMatchObject({ action: 'delete', move: { from: 'acme', to: 'beta' } });
    expect(b!.changes[0]).toMatchObject({ action: 'create', move: { from: 'acme', to: 'beta' } });
    expect(goesFirst(a!, a!.changes[0]!)).toBe(true);
    expect(moveNote({ from: 'acme', to: 'beta' })).toBe('moves from acme to beta; its history stays with acme and is destroyed there');
    const apart = markMoves([
      { name: 'acme', installation: 'east', plan: acme },
      { name: 'beta', installation: 'west', plan: beta },
    ]);
    expect(apart[0]!.changes[0]).not.toHaveProperty('move');
    expect(apart[1]!.changes[0]).not.toHaveProperty('move');
  });
});
