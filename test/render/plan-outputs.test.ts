import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/config/parse.js';
import type { LiveWebsite, Plan } from '../../src/model/types.js';
import { planChanges } from '../../src/planner/plan.js';
import { renderApplySummary, resultLine } from '../../src/render/apply-result.js';
import { renderRunJson } from '../../src/render/run.js';
import { MARKER, renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';

const yaml = `version: 1
prune: true
protect: [keep.example.com]
defaults:
  exclude_params: [utm_source, fbclid]
websites:
  - domain: example.com
    privacy: password
    password: \${EXAMPLE_PW}
    email: true
    exclude_ips: [203.0.113.7, "2001:db8::/32"]
  - domain: new.example.com
    favorite: true
  - domain: shop.example.com
  - domain: keep.example.com
`;

const live: LiveWebsite[] = [
  { id: 12, domain: 'example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: ['10.0.0.1', '203.0.113.7'], favorite: false, password: false },
  { id: 13, domain: 'shop.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], favorite: true, password: false },
  { id: 14, domain: 'old.example.com', privacy: 1, email: 1, exclude_bots: 0, exclude_ips: [], favorite: false, password: false },
  { id: 15, domain: 'keep.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], favorite: false, password: false },
];

function samplePlan(): Plan {
  const config = parseFile(yaml, 'sitesync.yaml', { env: { EXAMPLE_PW: 'pa55-word-VALUE' } }).configs[0]!;
  return planChanges({
    config,
    live,
    account: { id: 1, name: 'Jane Doe', email: 'jane@example.com', plan: 'Pro', websiteLimit: 100 },
    baseUrl: 'https://analytics.example.com',
  });
}

describe('renderers are pure functions of the plan (golden files)', () => {
  it('text', async () => {
    await expect(renderText(samplePlan())).toMatchFileSnapshot('../golden/plan.txt');
  });

  it('text with colour', async () => {
    const out = renderText(samplePlan(), pc.createColors(true));
    expect(out).toContain('\u001b[32m+ create new.example.com\u001b[39m');
    await expect(out).toMatchFileSnapshot('../golden/plan.color.txt');
  });

  it('markdown', async () => {
    await expect(renderMarkdown(samplePlan())).toMatchFileSnapshot('../golden/plan.md');
  });

  it('json', async () => {
    await expect(renderRunJson([{ name: '', baseUrl: samplePlan().base_url, plan: samplePlan() }])).toMatchFileSnapshot('../golden/plan.json');
  });

  it('no output holds the password, only (sensitive) and the variable it comes from', () => {
    const p = samplePlan();
    const json = renderRunJson([{ name: '', baseUrl: p.base_url, plan: p }]);
    for (const out of [renderText(p), renderMarkdown(p), json]) expect(out).not.toContain('pa55-word-VALUE');
    expect(renderText(p)).toContain('(not set) → (sensitive, from ${EXAMPLE_PW})');
    // `$` escaped: two variables in one cell must not read as math.
    expect(renderMarkdown(p)).toContain('| (not set) | (sensitive, from \\${EXAMPLE_PW}) _(write-only');
    expect(json).toContain('"password": "(sensitive)"');
    const update = (JSON.parse(json) as { changes: { action: string; password_from?: unknown }[] }).changes.find((c) => c.action === 'update');
    expect(update?.password_from).toEqual({ variables: ['EXAMPLE_PW'], clear: false });
  });

  it('a password written in clear, or partly, says so instead of a variable', () => {
    const config = parseFile(
      'version: 1\nwebsites:\n  - domain: a.example.com\n    password: hunter2-in-clear\n  - domain: b.example.com\n    password: x-${B_PW}-${B_PW}-${C_PW}\n',
      'x.yaml',
      { env: { B_PW: 'b-value', C_PW: 'c-value' } },
    ).configs[0]!;
    const p = planChanges({ config, live: [], account: null, baseUrl: 'http://127.0.0.1:1' });
    expect(p.changes.map((c) => (c.action === 'delete' ? undefined : c.password_from))).toEqual([
      { variables: [], clear: true },
      { variables: ['B_PW', 'C_PW'], clear: true },
    ]);
    const text = renderText(p);
    expect(text).toContain('password        (sensitive, written in clear in the file)');
    expect(text).toContain('password        (sensitive, from ${B_PW} and ${C_PW} and text written in clear in the file)');
    for (const out of [text, renderMarkdown(p), renderRunJson([{ name: '', baseUrl: p.base_url, plan: p }])]) {
      for (const value of ['hunter2', 'b-value', 'c-value']) expect(out).not.toContain(value);
    }
  });

  it('an empty plan says so', () => {
    const config = parseFile('version: 1\nwebsites: []\n', 'x.yaml', { env: {} }).configs[0]!;
    const p = planChanges({ config, live: [], account: null, baseUrl: 'http://127.0.0.1:1' });
    expect(renderText(p)).toBe('sitesync plan for http://127.0.0.1:1\n\nNo changes: the account matches the file.\n\nPlan: 0 to create, 0 to update, 0 to delete (0 unchanged, 0 unmanaged).\n');
    expect(renderMarkdown(p)).toContain('### sitesync plan: no changes');
  });
});

describe('markdown for a pull request', () => {
  it('starts with the marker and stays under 60,000 characters, with a note when cut', () => {
    const sites = Array.from({ length: 3000 }, (_, i) => `  - domain: site-${i}.example.com\n    privacy: private\n    exclude_ips: [10.0.0.${i % 250}]`);
    const config = parseFile(`version: 1\nwebsites:\n${sites.join('\n')}\n`, 'big.yaml', { env: {} }).configs[0]!;
    const p = planChanges({ config, live: [], account: null, baseUrl: 'https://a.example.com' });
    const md = renderMarkdown(p);
    expect(md.startsWith(`${MARKER}\n`)).toBe(true);
    expect(md.length).toBeLessThan(60_000);
    expect(md).toMatch(/_…and \d+ more changes, cut to keep this comment under 60,000 characters/);
    expect(md).toContain('**Plan: 3000 to create, 0 to update, 0 to delete (0 unchanged, 0 unmanaged).**');
  });

  it('cut, it keeps the deletes and updates and drops creates first: 3,000 new websites cannot push a private website made public out of the comment', () => {
    const sites = Array.from({ length: 3000 }, (_, i) => `  - domain: site-${i}.example.com`);
    const config = parseFile(`version: 1\nprune: true\nwebsites:\n${sites.join('\n')}\n  - domain: zzz-private.example.com\n    privacy: public\n`, 'big.yaml', { env: {} }).configs[0]!;
    const live: LiveWebsite[] = [
      { id: 1, domain: 'zzz-private.example.com', privacy: 1, email: 0, exclude_bots: 1, exclude_ips: [] },
      { id: 2, domain: 'zzz-gone.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [] },
    ];
    const md = renderMarkdown(planChanges({ config, live, account: null, baseUrl: 'https://a.example.com' }));
    expect(md.length).toBeLessThan(60_000);
    expect(md).toContain('| 🟡 update | `zzz-private.example.com` | privacy |');
    expect(md).toContain('| 🔴 delete | `zzz-gone.example.com` |');
    expect(md).toMatch(/_…and (\d+) more changes, cut to keep this comment under 60,000 characters \(deletes are listed first, then updates, then creates: those cut are \1 creates\)/);
  });
});

describe('the pull-request comment (markdown)', () => {
  const md = renderMarkdown(samplePlan());

  it("shows the account's e-mail in code, so that GitHub does not turn it into a mailto link", () => {
    expect(md).toContain('account Jane Doe (`jane@example.com`)');
    expect(md.replace(/`[^`\n]*`/g, '')).not.toContain('jane@example.com');
  });

  it('says once, above the changes, that deleting destroys the statistics', () => {
    expect(md.split('destroys its collected statistics').length - 1).toBe(1);
    expect(md.indexOf('destroys its collected statistics')).toBeLessThan(md.indexOf('| 🔴 delete |'));
  });

  it('shows a changed list as the entries added and removed', () => {
    expect(md).toContain('| exclude_ips | removed: 10.0.0.1 | added: 2001:db8::/32 |');
  });
});

describe('what apply prints when it is done', () => {
  const colors = pc.createColors(false);
  const [create, update] = planChanges({
    config: parseFile('version: 1\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n    email: true\n', '/r/sitesync.yaml', { env: {} }).configs[0]!,
    live: [{ id: 7, domain: 'b.example.com', privacy: 0, email: 0, exclude_bots: 1 }],
    account: null,
    baseUrl: 'http://127.0.0.1:1',
  }).changes;

  it('a refused change is listed without the repeated "create a.example.com: ", and the user is told it fails the same way again', () => {
    const text = renderApplySummary(
      {
        interrupted: false,
        results: [
          { change: create!, status: 'failed', error: 'create a.example.com: The domain is invalid.', refused: true, ms: 3 },
          { change: update!, status: 'done', ms: 4 },
        ],
      },
      colors,
    );
    expect(text).toContain('Failed (1):\n  ✗ create a.example.com: The domain is invalid.\n');
    expect(text).toContain('Applied: 0 created, 1 updated, 0 deleted, 1 failed.');
    expect(text).toContain('The service refused the change marked above');
    expect(text).not.toContain('Run sitesync apply again');
  });

  it('a failure on the way asks for a re-run, and each line while running says done, gone or failed', () => {
    const text = renderApplySummary({ interrupted: false, results: [{ change: create!, status: 'failed', error: 'network', ms: 3 }] }, colors);
    expect(text).toContain('Run sitesync apply again to finish');
    expect(resultLine({ change: update!, status: 'done', ms: 4 }, colors)).toBe('✓ update b.example.com (id 7) 4ms');
    expect(resultLine({ change: create!, status: 'failed', error: 'create a.example.com: boom', ms: 4 }, colors)).toBe('✗ create a.example.com: boom');
  });
});
