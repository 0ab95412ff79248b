/**
 * A run's renderers, for one account or many: the unnamed account of a single-account file as
 * its plan alone, named accounts as a section each with the total, one comment under the limit,
 * and one JSON shape for both.
 */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/config/parse.js';
import { planChanges } from '../../src/planner/plan.js';
import type { AccountPlan, LiveWebsite } from '../../src/model/types.js';
import { MARKER, renderMarkdown } from '../../src/render/markdown.js';
import { renderRunJson, renderRunMarkdown, renderRunText } from '../../src/render/run.js';
import { renderText } from '../../src/render/text.js';

function planOf(n: number, prefix: string) {
  const sites = Array.from({ length: n }, (_, i) => `  - domain: ${prefix}-${i}.example.com\n    privacy: private\n    exclude_ips: [10.0.0.${i % 250}]`);
  const config = parseFile(`version: 1\nwebsites:\n${sites.join('\n')}\n`, 'f.yaml', { env: {} }).configs[0]!;
  return planChanges({ config, live: [], account: null, baseUrl: `https://${prefix}.example.net` });
}

const failed: AccountPlan = { name: 'globex', baseUrl: 'https://g.example.net', failure: { message: 'the API key was refused (401)', details: ['check GLOBEX_KEY'] } };

describe('many accounts in one comment', () => {
  it('cuts each large account to its share, keeps small ones whole, and stays under 60,000 characters', () => {
    const sections: AccountPlan[] = [
      { name: 'big', baseUrl: 'https://big.example.net', plan: planOf(2000, 'big') },
      { name: 'small', baseUrl: 'https://small.example.net', plan: planOf(3, 'small') },
      { name: 'large', baseUrl: 'https://large.example.net', plan: planOf(1500, 'large') },
      failed,
    ];
    const md = renderRunMarkdown(sections);
    expect(md.startsWith(`${MARKER}\n`)).toBe(true);
    expect(md.match(/<!-- sitesync-plan -->/g)).toHaveLength(1);
    expect(md.length).toBeLessThan(60_000);
    expect(md.length).toBeGreaterThan(50_000); // the room is used, not wasted
    // The small account is whole; each large one says it was cut.
    for (let i = 0; i < 3; i++) expect(md).toContain(`small-${i}.example.com`);
    const cutNotes = md.match(/_…and \d+ more changes, cut to keep this comment under 60,000 characters/g) ?? [];
    expect(cutNotes).toHaveLength(2);
    expect(md).toContain('### Account `globex`: failed');
    expect(md).toContain('| `globex` | `https://g.example.net` | **failed** |');
    expect(md).toMatch(/\*\*Total for 4 accounts: 3503 to create, 0 to update, 0 to delete \(0 unchanged, 0 unmanaged\)\. 1 of 4 failed: globex\.\*\*/);
  });

  it('text: a section per account, the failed one with its reason, then the total', () => {
    const text = renderRunText([{ name: 'acme', baseUrl: 'https://a.example.net', plan: planOf(2, 'a') }, failed]);
    expect(text).toContain('━━ account acme ━━');
    expect(text).toContain('✗ globex (https://g.example.net) could not be planned: the API key was refused (401)');
    expect(text).toContain('    check GLOBEX_KEY');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Total for 2 accounts: 2 to create, 0 to update, 0 to delete (0 unchanged, 0 unmanaged). 1 of 2 failed: globex.');
  });

  it('json: format_version 2, the total, every change naming its account, and each account with its plan or its failure', () => {
    const json = JSON.parse(renderRunJson([{ name: 'acme', baseUrl: 'https://a.example.net', plan: planOf(2, 'a') }, failed]));
    expect(json.format_version).toBe(2);
    expect(json.summary).toEqual({ create: 2, update: 0, delete: 0, unchanged: 0, unmanaged: 0 });
    expect(json.changes.map((c: { account: string; domain: string }) => `${c.account} ${c.domain}`)).toEqual(['acme a-0.example.com', 'acme a-1.example.com']);
    expect(json.accounts[0]).toMatchObject({ name: 'acme', base_url: 'https://a.example.net', failure: null, summary: { create: 2 }, account: null });
    expect(json.accounts[1]).toMatchObject({ name: 'globex', base_url: 'https://g.example.net', failure: 'the API key was refused (401)\ncheck GLOBEX_KEY', summary: null });
  });
});

describe('many accounts: one line for an account without changes, one for those the plan holds no website of', () => {
  const live = (n: number, prefix: string): LiveWebsite[] => Array.from({ length: n }, (_, i) => ({ id: i + 1, domain: `${prefix}-${i}.example.com`, privacy: 1, email: 0, exclude_bots: 1, exclude_params: [], exclude_ips: [`10.0.0.${i % 250}`] }));
  function quiet(n: number, prefix: string) {
    const sites = Array.from({ length: n }, (_, i) => `  - domain: ${prefix}-${i}.example.com\n    privacy: private\n    exclude_ips: [10.0.0.${i % 250}]`);
    const config = parseFile(`version: 1\nwebsites:\n${sites.join('\n')}\n`, 'f.yaml', { env: {} }).configs[0]!;
    return planChanges({ config, live: live(n, prefix), account: null, baseUrl: `https://${prefix}.example.net` });
  }
  const accounts: AccountPlan[] = [
    { name: 'acme', baseUrl: 'https://acme.example.net', plan: quiet(120, 'acme') },
    { name: 'beta', baseUrl: 'https://beta.example.net', plan: planOf(1, 'beta') },
    { name: 'empty', baseUrl: 'https://e.example.net', plan: quiet(0, 'e') },
    failed,
  ];

  it('text: acme one line, beta and the failed globex in full, empty on the line of accounts without websites', () => {
    const text = renderRunText(accounts);
    expect(text).toMatch(/^acme: no changes \(120 websites\)\n\n━━ account beta ━━\n/);
    expect(text).toContain('✗ globex (https://g.example.net) could not be planned');
    expect(text).toContain('\n1 account with no website in this plan: empty.\n\nTotal for 4 accounts:');
    expect(text).not.toContain('━━ account acme');
    expect(text).not.toContain('━━ account empty');
  });

  it('markdown: a row for acme, none for empty, sections for beta and globex alone', () => {
    const md = renderRunMarkdown(accounts);
    expect(md).toContain('| `acme` | `https://acme.example.net` | 0 | 0 | 0 | 120 | 0 |');
    expect(md).not.toContain('| `empty` |');
    expect(md).toContain('1 account with no website in this plan: `empty`.');
    expect(md.match(/^### Account `[a-z]+`/gm)).toEqual(['### Account `beta`', '### Account `globex`']);
  });

  it('an account with warnings and no changes keeps its one line, its warnings said once beneath it; a run of one account is shown in full', () => {
    const warning = 'retire: "typo.example.com" (line 4) matches no live website: a typo?';
    const warned = { ...quiet(2, 'w'), warnings: [warning] };
    const text = renderRunText([{ name: 'w', baseUrl: 'https://w.example.net', plan: warned }, accounts[0]!]);
    expect(text).not.toContain('━━ account w ━━');
    expect(text).toMatch(/^w: no changes \(2 websites\)\n {2}! retire: "typo\.example\.com" \(line 4\) matches no live website: a typo\?\nacme: no changes \(120 websites\)\n/);
    expect(text.split(warning)).toHaveLength(2);
    // An account holding no website, with a warning: its line too, not the line of untouched accounts.
    const none = renderRunText([{ name: 'w', baseUrl: 'https://w.example.net', plan: { ...quiet(0, 'w'), warnings: [warning] } }, accounts[0]!]);
    expect(none).toMatch(/^w: no changes \(0 websites\)\n {2}! retire/);
    expect(none).not.toContain('with no website in this plan');
    const md = renderRunMarkdown([{ name: 'w', baseUrl: 'https://w.example.net', plan: warned }, accounts[0]!]);
    expect(md).toContain('| `w` | `https://w.example.net` | 0 | 0 | 0 | 2 | 0 |');
    expect(md).toContain('> [!WARNING]\n> - `w`: retire: "typo.example.com" (line 4) matches no live website: a typo?');
    expect(md).not.toContain('### Account `w`');
    expect(renderRunText([accounts[0]!])).toContain('━━ account acme ━━');
  });
});

describe('the one account of a single-account file', () => {
  const alone: AccountPlan = { name: '', baseUrl: 'https://a.example.net', plan: planOf(2, 'a') };

  it('text and markdown show its plan alone, with no account header or total', () => {
    expect(renderRunText([alone])).toBe(renderText(alone.plan!));
    expect(renderRunMarkdown([alone])).toBe(renderMarkdown(alone.plan!));
    expect(renderRunText([alone])).not.toContain('━━ account');
    expect(renderRunText([alone])).not.toContain('Total for');
  });

  it('json has the same shape as many accounts have, the account unnamed (null)', () => {
    const json = JSON.parse(renderRunJson([alone]));
    expect(Object.keys(json)).toEqual(['format_version', 'summary', 'changes', 'accounts']);
    expect(json.accounts).toHaveLength(1);
    expect(json.accounts[0].name).toBeNull();
    expect(json.changes.every((c: { account: unknown }) => c.account === null)).toBe(true);
  });

  it('a named account alone is still a section with its name, and "1 account" (not "1 accounts")', () => {
    const text = renderRunText([{ ...alone, name: 'acme' }]);
    expect(text).toContain('━━ account acme ━━');
    expect(text).toContain('Total for 1 account: 2 to create');
  });
});
