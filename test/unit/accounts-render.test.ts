/** The many-account renderers: a section per account, the total, one comment under the limit. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { planChanges } from '../../src/planner/plan.js';
import { renderAccountsJson, renderAccountsMarkdown, renderAccountsText, type AccountSection } from '../../src/render/accounts.js';
import { MARKER } from '../../src/render/markdown.js';

function planOf(n: number, prefix: string) {
  const sites = Array.from({ length: n }, (_, i) => `  - domain: ${prefix}-${i}.example.com\n    privacy: private\n    exclude_ips: [10.0.0.${i % 250}]`);
  const config = parseConfig(`version: 1\nwebsites:\n${sites.join('\n')}\n`, 'f.yaml', { env: {} });
  return planChanges({ config, live: [], account: null, baseUrl: `https://${prefix}.example.net` });
}

const failed: AccountSection = { name: 'globex', baseUrl: 'https://g.example.net', failure: ['the API key was refused (401)', 'check GLOBEX_KEY'] };

describe('many accounts in one comment', () => {
  it('cuts each large account to its share, keeps small ones whole, and stays under 60,000 characters', () => {
    const sections: AccountSection[] = [
      { name: 'big', baseUrl: 'https://big.example.net', plan: planOf(2000, 'big') },
      { name: 'small', baseUrl: 'https://small.example.net', plan: planOf(3, 'small') },
      { name: 'large', baseUrl: 'https://large.example.net', plan: planOf(1500, 'large') },
      failed,
    ];
    const md = renderAccountsMarkdown(sections);
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
    const text = renderAccountsText([{ name: 'acme', baseUrl: 'https://a.example.net', plan: planOf(2, 'a') }, failed]);
    expect(text).toContain('━━ account acme ━━');
    expect(text).toContain('✗ globex (https://g.example.net) could not be planned: the API key was refused (401)');
    expect(text).toContain('    check GLOBEX_KEY');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Total for 2 accounts: 2 to create, 0 to update, 0 to delete (0 unchanged, 0 unmanaged). 1 of 2 failed: globex.');
  });

  it('json: format_version 1, the total, and an accounts array with each plan or its failure', () => {
    const json = JSON.parse(renderAccountsJson([{ name: 'acme', baseUrl: 'https://a.example.net', plan: planOf(2, 'a') }, failed]));
    expect(json.format_version).toBe(1);
    expect(json.summary).toEqual({ create: 2, update: 0, delete: 0, unchanged: 0, unmanaged: 0 });
    expect(json.failed).toEqual(['globex']);
    expect(json.accounts[0]).toMatchObject({ name: 'acme', status: 'planned', base_url: 'https://a.example.net' });
    expect(json.accounts[0].changes).toHaveLength(2);
    expect(json.accounts[1]).toEqual({ name: 'globex', status: 'failed', base_url: 'https://g.example.net', error: 'the API key was refused (401)\ncheck GLOBEX_KEY' });
  });
});
