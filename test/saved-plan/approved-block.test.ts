/**
 * "As approved": the hidden block a markdown plan ends with (a digest of its changes and of the
 * config files), and the comparison of the plan apply makes with it. Pure functions, no service.
 */
import { describe, expect, it } from 'vitest';
import { planCommentBody } from '../../src/ci/comment-body.js';
import { parseFile } from '../../src/config/parse.js';
import type { AccountPlan, LiveWebsite, Plan } from '../../src/model/types.js';
import { changeDigest } from '../../src/planner/digest.js';
import { planChanges } from '../../src/planner/plan.js';
import { renderApprovalMarkdown, renderApprovalText } from '../../src/render/approval.js';
import { APPROVED_BLOCK, splitApproved } from '../../src/render/markdown.js';
import { renderRunMarkdown } from '../../src/render/run.js';
import { compareApproved } from '../../src/planner/receipt.js';
import { readApproved } from '../../src/saved-plan/approved-comment.js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SHA = 'a'.repeat(64);
const OTHER_SHA = 'b'.repeat(64);

function planOf(yaml: string, live: LiveWebsite[], env: Record<string, string> = {}): Plan {
  const config = parseFile(yaml, '/repo/sitesync.yaml', { env }).configs[0]!;
  return planChanges({ config, live, account: null, baseUrl: 'https://analytics.example.com' });
}

const LIVE: LiveWebsite[] = [
  { id: 3, domain: 'shop.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: true },
  { id: 4, domain: 'old.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [] },
];
const FILE = `version: 1
prune: true
websites:
  - domain: shop.example.com
    privacy: password
    password: \${SHOP_PW}
  - domain: new.example.com
    exclude_ips: [203.0.113.7]
`;
const one = (plan: Plan): AccountPlan[] => [{ name: '', baseUrl: plan.base_url, plan }];
const approvedOf = (markdown: string) => JSON.parse([...markdown.matchAll(APPROVED_BLOCK)].at(-1)![1]!);

describe('the approved block of a markdown plan', () => {
  it('ends the comment, hidden, after the visible plan: each change by digest and the config files by SHA-256, never a password', () => {
    const plan = planOf(FILE, LIVE, { SHOP_PW: 'hunter2-VALUE' });
    const md = renderRunMarkdown(one(plan), { configSha256: SHA });
    expect(md).not.toContain('hunter2');
    const { visible, block } = splitApproved(md);
    expect(block).toMatch(/^<!-- sitesync-approved: \{.*\} -->$/);
    expect(visible).toBe(renderRunMarkdown(one(plan)).replace(/\n+$/, ''));
    expect(approvedOf(md)).toEqual({
      version: 1,
      config_sha256: SHA,
      accounts: [
        {
          name: null,
          count: 3,
          digest: expect.stringMatching(/^[0-9a-f]{16}$/),
          changes: [
            ['create', 'new.example.com', changeDigest(plan.changes[0]!)],
            ['update', 'shop.example.com', changeDigest(plan.changes[1]!)],
            ['delete', 'old.example.com', changeDigest(plan.changes[2]!)],
          ],
        },
      ],
    });
  });

  it("a change's digest follows what it sends: the password's variable (not its value), a field, the id", () => {
    const plan = planOf(FILE, LIVE, { SHOP_PW: 'one' });
    const again = planOf(FILE, LIVE, { SHOP_PW: 'two' });
    expect(again.changes.map(changeDigest)).toEqual(plan.changes.map(changeDigest));
    const renamed = planOf(FILE.replace('SHOP_PW', 'GLOBEX_PW'), LIVE, { GLOBEX_PW: 'one' });
    expect(changeDigest(renamed.changes[1]!)).not.toBe(changeDigest(plan.changes[1]!));
    const otherIp = planOf(FILE.replace('203.0.113.7', '203.0.113.8'), LIVE, { SHOP_PW: 'one' });
    expect(changeDigest(otherIp.changes[0]!)).not.toBe(changeDigest(plan.changes[0]!));
    const otherId = planOf(FILE, LIVE.map((w) => (w.id === 4 ? { ...w, id: 5 } : w)), { SHOP_PW: 'one' });
    expect(changeDigest(otherId.changes[2]!)).not.toBe(changeDigest(plan.changes[2]!));
    // A delete retired since the plan (which said apply would refuse it, had it recent history), or no longer archived first, is not the approved one.
    const deleted = plan.changes[2]!;
    expect(deleted.action).toBe('delete');
    expect(changeDigest({ ...deleted, retired: true } as typeof deleted)).not.toBe(changeDigest(deleted));
    expect(changeDigest({ ...deleted, archive: 'archives' } as typeof deleted)).not.toBe(changeDigest(deleted));
  });

  it('nothing a domain holds can end the hidden comment or be markup: <, >, & and - are escapes, and the data reads back', () => {
    const plan = planOf('version: 1\nprune: true\nwebsites: []\n', [{ id: 9, domain: 'x--> <img src=y>&.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [] }]);
    const md = renderRunMarkdown(one(plan), { configSha256: SHA });
    const { block } = splitApproved(md);
    expect(block.slice(4, -3)).not.toMatch(/[<>&]|--/);
    expect(approvedOf(md).accounts[0].changes[0][1]).toBe('x--> <img src=y>&.example.com');
  });

  it('stays inside the 60,000 characters: the visible plan is cut to make room, and a plan too large to list lists each account by digest', () => {
    const many = Array.from({ length: 3000 }, (_, i) => `  - domain: site-${i}.example.com\n`).join('');
    const plan = planOf(`version: 1\nwebsites:\n${many}`, []);
    const md = renderRunMarkdown(one(plan), { configSha256: SHA });
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md).toContain('more changes, cut to keep this comment under 60,000 characters');
    const approved = approvedOf(md);
    expect(approved.accounts[0]).toEqual({ name: null, count: 3000, digest: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // A plan a third of the size still lists every change.
    const some = planOf(`version: 1\nwebsites:\n${many.split('\n').slice(0, 200).join('\n')}\n`, []);
    expect(approvedOf(renderRunMarkdown(one(some), { configSha256: SHA })).accounts[0].changes).toHaveLength(200);
  });

  it('survives the comment upsert: a cut at the provider\'s limit keeps the block whole at the end', () => {
    const many = Array.from({ length: 400 }, (_, i) => `  - domain: site-${i}.example.com\n`).join('');
    const md = `${renderRunMarkdown(one(planOf(`version: 1\nwebsites:\n${many}`, [])), { configSha256: SHA })}\n`;
    const body = planCommentBody(md, { limit: 20_000, service: 'GitHub' });
    expect(body.length).toBeLessThanOrEqual(20_000);
    expect(body).toContain("_…cut: the plan is");
    expect(splitApproved(body).block).toBe(splitApproved(md).block);
    // Under the limit, the body is the text itself.
    expect(planCommentBody(md, { limit: 65_536, service: 'GitHub' })).toBe(md);
  });
});

describe('apply compares its plan with the approved one', () => {
  const approved = (plan: Plan, sha = SHA) => approvedOf(renderRunMarkdown(one(plan), { configSha256: sha }));

  it('the same plan is "as approved"; one changed at the service names each change that differs', () => {
    const plan = planOf(FILE, LIVE, { SHOP_PW: 'x' });
    const same = compareApproved(approved(plan), one(plan), SHA, 'plan.md');
    expect(same).toEqual({ file: 'plan.md', count: 3, differences: [] });
    expect(renderApprovalText(same)).toBe('As approved: the plan is the one approved in plan.md (3 changes).\n');
    expect(renderApprovalMarkdown(same)).toBe('**As approved**: the plan applied is the one approved in `plan.md` (3 changes).\n');

    // Since the plan: new.example.com was created by hand, shop.example.com's e-mail turned on, blog.example.com appeared (pruned).
    const now = planOf(FILE, [
      { ...LIVE[0]!, email: 1 },
      LIVE[1]!,
      { id: 7, domain: 'new.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: ['203.0.113.7'] },
      { id: 8, domain: 'blog.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [] },
    ], { SHOP_PW: 'x' });
    const check = compareApproved(approved(plan), one(now), SHA, 'plan.md');
    expect(check.why).toBe('changed at the service since the plan');
    expect(renderApprovalText(check)).toBe(
      [
        'Not as approved: 3 differences from the plan approved in plan.md, changed at the service since the plan:',
        '  different  update shop.example.com (id 3)',
        '  added      delete blog.example.com (id 8)',
        '  missing    create new.example.com',
        '',
      ].join('\n'),
    );
    expect(renderApprovalMarkdown(check)).toContain('> - added: delete `blog.example.com` (id 8)');
  });

  it('config files other than the approved plan\'s: "merged without a new plan"', () => {
    const plan = planOf(FILE, LIVE, { SHOP_PW: 'x' });
    const merged = planOf(FILE.replace('203.0.113.7', '203.0.113.9'), LIVE, { SHOP_PW: 'x' });
    const check = compareApproved(approved(plan), one(merged), OTHER_SHA, 'plan.md');
    expect(check).toMatchObject({ why: 'merged without a new plan', differences: [{ kind: 'different', change: { action: 'create', domain: 'new.example.com' } }] });
    // The same changes from other files are still as approved: what is sent is what was shown.
    expect(compareApproved(approved(plan), one(plan), OTHER_SHA, 'plan.md').differences).toEqual([]);
  });

  it('accounts: one not in this run, one not planned now, one new since; a block without lists compares each account whole', () => {
    const plan = planOf(FILE, LIVE, { SHOP_PW: 'x' });
    const then: AccountPlan[] = [
      { name: 'acme', baseUrl: 'https://a', plan },
      { name: 'globex', baseUrl: 'https://g', plan },
      { name: 'initech', baseUrl: 'https://i', plan },
    ];
    const now: AccountPlan[] = [
      { name: 'acme', baseUrl: 'https://a', failure: { message: 'the key was refused', details: [] } },
      { name: 'hooli', baseUrl: 'https://h', plan: { ...plan, changes: plan.changes.slice(0, 1) } },
      { name: 'initech', baseUrl: 'https://i', plan },
    ];
    const block = approvedOf(renderRunMarkdown(then, { configSha256: SHA }));
    const text = renderApprovalText(compareApproved(block, now, SHA, 'plan.md'));
    expect(text).toContain('  missing    [acme] create new.example.com (not planned now: the key was refused)');
    expect(text).toContain('  added      [hooli] create new.example.com');
    expect(text).toContain('  missing    [globex] delete old.example.com (the account is not in this run)');
    expect(text).not.toContain('initech');

    const unlisted = { ...block, accounts: block.accounts.map((a: { changes?: unknown }) => ({ ...a, changes: undefined })) };
    expect(compareApproved(unlisted, [{ name: 'initech', baseUrl: 'https://i', plan }], SHA, 'p').differences.filter((d) => d.account === 'initech')).toEqual([]);
    expect(compareApproved(unlisted, [{ name: 'initech', baseUrl: 'https://i', plan: { ...plan, changes: [] } }], SHA, 'p').differences).toContainEqual({
      account: 'initech',
      kind: 'different',
      note: '0 changes planned now, 3 approved (the approved plan was too large to list them one by one)',
    });
  });

  it('a file with no block, or one that is not what sitesync writes, is not compared, and says why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-approved-'));
    const plain = join(dir, 'plain.md');
    await writeFile(plain, '### sitesync plan: no changes\n');
    expect(await readApproved(plain, 'plain.md')).toBe('plain.md holds no approved plan (the <!-- sitesync-approved: … --> block that sitesync plan --format markdown ends its plan with)');
    const forged = join(dir, 'forged.md');
    await writeFile(forged, '<!-- sitesync-approved: {"version":1,"config_sha256":"x","accounts":[]} -->\n');
    expect(await readApproved(forged, 'forged.md')).toBe('forged.md: its approved block cannot be read (not one that this sitesync writes)');
    expect(await readApproved(join(dir, 'none.md'), 'none.md')).toMatch(/^none\.md: no such file/);
    const check = compareApproved('plain.md holds no approved plan', [], SHA, 'plain.md');
    expect(renderApprovalText(check)).toBe('Not compared with an approved plan: plain.md holds no approved plan.\n');
  });

  it("a stranger's file of 2 MB of block starts without their end is read in one pass: no approved plan in it", { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-approved-'));
    const opened = join(dir, 'opened.md');
    const text = '<!-- sitesync-approved: '.repeat(90_000);
    await writeFile(opened, text);
    expect(await readApproved(opened, 'opened.md')).toBe('opened.md holds no approved plan (the <!-- sitesync-approved: … --> block that sitesync plan --format markdown ends its plan with)');
    expect(splitApproved(`${text}\n<!-- sitesync-approved: {} -->\n`)).toEqual({ visible: text, block: '<!-- sitesync-approved: {} -->' });
  });
});
