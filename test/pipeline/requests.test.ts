/**
 * Requests in proportion to the change, not to the account: a targeted plan reads the targeted
 * websites through the service's search, and a saved plan reads the websites it touches one by
 * one, each with the same result as a full listing would give.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFile } from '../../src/config/parse.js';
import { planChanges } from '../../src/planner/plan.js';
import { runJson } from '../../src/render/run.js';
import { ServiceClient } from '../../src/service/client.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const N = 5000;
const domain = (i: number) => `w${i}.example`;
const FILE = `version: 1\nwebsites:\n${Array.from({ length: N }, (_, i) => `  - domain: ${domain(i)}`).join('\n')}\n  - domain: bücher.example\n    email: true\n  - domain: new.w43.example\n`;

async function bigAccount() {
  s = await scenario();
  s.emu.seed(KEY, [
    ...Array.from({ length: N }, (_, i) => ({ domain: domain(i), privacy: 0, email: i === 5 ? 1 : 0, exclude_bots: 1 })),
    { domain: 'bücher.example', privacy: 0, email: 0, exclude_bots: 1 },
  ]);
  await s.write(FILE);
  s.emu.resetStats();
}

/** What a full listing gives: the planner, in-process, over every website of the account. */
async function fullListingPlan(targets: string[]) {
  const client = new ServiceClient({ baseUrl: s.emu.url, apiKey: KEY });
  try {
    const [account, live] = await Promise.all([client.getAccount(), client.listWebsites()]);
    const config = parseFile(FILE, join(s.dir, 'sitesync.yaml'), { env: {} }).configs[0]!;
    const plan = planChanges({ config, live, account, baseUrl: s.emu.url, options: { targets } });
    return runJson([{ name: '', baseUrl: s.emu.url, plan }]);
  } finally {
    await client.close();
  }
}

/** The listing and search requests (not the count: one small page, per_page=10). */
const listed = () => s.emu.stats.log.filter((r) => r.path.startsWith('/api/v1/websites?') && !r.path.includes('per_page=10&'));

describe('a targeted plan reads what its targets match', () => {
  it.each([
    ['one website', ['w5.example'], 'w5.example'],
    ['a glob', ['w43*.example'], 'w43'],
    ['upper case, as a person may type it', ['W5.Example'], 'w5.example'],
    ["a leading www., which the service drops", ['www.w5.example'], 'w5.example'],
    ['two targets', ['w5.example', 'w4999.example'], 'w4999.example'],
  ])('%s: a search, the count, the account, and the same plan as a full listing', async (_name, targets, searched) => {
    await bigAccount();
    const r = await s.cli(['plan', '--format', 'json', ...targets.flatMap((t) => ['--target', t])]);
    expect(r.code, r.stderr).toBe(0);
    const requests = s.emu.stats.requests;
    expect(requests).toBeLessThanOrEqual(2 + targets.length * 2);
    expect(listed().every((l) => /[?&]search=/.test(l.path))).toBe(true);
    expect(listed().some((l) => l.path.includes(`search=${encodeURIComponent(searched)}`))).toBe(true);
    expect(JSON.parse(r.stdout)).toEqual(await fullListingPlan(targets));
  });

  it.each(['bücher.example', '*bcher*.example'])('a target %s, whose stored form the search cannot be trusted to find, reads the whole list, with the same result', async (target) => {
    await bigAccount();
    const r = await s.cli(['plan', '--format', 'json', '--target', target]);
    expect(r.code, r.stderr).toBe(0);
    expect(listed().length).toBe(Math.ceil((N + 1) / 100));
    expect(listed().some((l) => l.path.includes('search='))).toBe(false);
    const plan = JSON.parse(r.stdout);
    expect(plan.changes.map((c: { domain: string }) => c.domain)).toEqual(['xn--bcher-kva.example']);
    expect(plan).toEqual(await fullListingPlan([target]));
  });

  it('--verbose says how many requests the plan made and what for', async () => {
    await bigAccount();
    const r = await s.cli(['--verbose', 'plan', '--target', 'w5.example']);
    expect(r.stderr).toMatch(/^3 requests: 1 account, 1 count, 1 search page$/m);
    const full = await s.cli(['--verbose', 'plan']);
    expect(full.stderr).toMatch(/^52 requests: 1 account, 51 listing pages$/m);
  });
});

describe('a saved plan is applied with the requests it needs', () => {
  it('a one-change plan of a large account: the account, the count, the website shown, the write', async () => {
    await bigAccount();
    const made = await s.cli(['plan', '--target', 'w5.example', '--out', 'plan.json']);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(s.dir, 'plan.json'), 'utf8')).changes).toHaveLength(1);
    s.emu.resetStats();
    const r = await s.cli(['--verbose', 'apply', 'plan.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Applied: 0 created, 1 updated, 0 deleted, 0 failed.');
    expect(r.stderr).toMatch(/^4 requests: 1 account, 1 count, 1 website shown, 1 write$/m);
    expect(listed()).toEqual([]);
  });
});

describe('searches a service answers with everything', () => {
  it('the searches of a plan with --target read no more websites in all than one listing may: three searches of 400,000 each are refused in words', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: alpha-1.example\n');
    const PER_PAGE = 100_000;
    // Each search, whatever it asks, answers 400,000 websites of its own, a hundred thousand a page.
    s.emu.faults.before = (req) => {
      const search = req.query.get('search');
      if (req.path !== '/api/v1/websites' || !search) return undefined;
      const n = Number(req.query.get('page'));
      const base = (['alpha-', 'beta-', 'gamma-'].indexOf(search) + 1) * 10_000_000 + (n - 1) * PER_PAGE;
      const data = Array.from({ length: PER_PAGE }, (_, i) => ({ id: base + i, domain: `${search}${base + i}.example` }));
      return { status: 200, body: { data, meta: { current_page: n, last_page: 4, per_page: String(PER_PAGE), total: 4 * PER_PAGE } } };
    };
    const r = await s.cli(['plan', '--target', 'alpha-*.example', '--target', 'beta-*.example', '--target', 'gamma-*.example']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/search websites for "(alpha|beta|gamma)-": the service's pagination cannot be right \(the listing went past 1000000 websites, more than any account holds\); stopped listing/);
  }, 60_000);
});
