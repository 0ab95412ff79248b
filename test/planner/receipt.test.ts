/** One comparison of receipts (planner/receipt.ts) serves a saved plan and an approved comment alike. */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/config/parse.js';
import type { Account, AccountPlan, LiveWebsite } from '../../src/model/types.js';
import { planChanges } from '../../src/planner/plan.js';
import { blockOf, compareReceipts, receiptOf, receiptOfBlock } from '../../src/planner/receipt.js';

const account: Account = { id: 7, name: 'Jane', email: 'jane@example.com', plan: 'Pro', websiteLimit: 10 };
const live: LiveWebsite[] = [
  { id: 1, domain: 'a.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false },
  { id: 2, domain: 'old.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: [], password: false },
];
const SHA = 'a'.repeat(64);
const plans = (yaml: string, now: LiveWebsite[] = live): AccountPlan[] => {
  const config = parseFile(yaml, '/repo/sitesync.yaml', { env: {} }).configs[0]!;
  return [{ name: '', baseUrl: 'https://a', plan: planChanges({ config, live: now, account, baseUrl: 'https://a', options: {} }) }];
};
const FILE = 'version: 1\nprune: true\nsafety: { max_delete_percent: 100 }\nwebsites:\n  - domain: a.example.com\n    email: true\n  - domain: b.example.com\n';

describe('the receipt of a plan', () => {
  it('compared with the plan made again unchanged: nothing departs; the approved block is the receipt without what each change saw', () => {
    const then = plans(FILE);
    expect(compareReceipts(receiptOf(then, SHA), then.map((a) => ({ ...a, live })), SHA)).toEqual([]);
    const block = blockOf(receiptOf(then, SHA));
    expect(block.accounts[0]!.changes!.map(([action, domain]) => `${action} ${domain}`)).toEqual(['create b.example.com', 'update a.example.com', 'delete old.example.com']);
    expect(compareReceipts(receiptOfBlock(block), then, SHA)).toEqual([]);
  });

  it('a website changed at the service since, in a field the plan does not send: a saved receipt says the service moved under that change; a block, which records only what is sent, finds nothing', () => {
    const then = plans(FILE);
    const moved = [{ ...live[0]!, favorite: true }, live[1]!];
    const now = plans(FILE, moved).map((a) => ({ ...a, live: moved }));
    const saved = compareReceipts(receiptOf(then, SHA), now, SHA);
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ kind: 'different', cause: 'service', change: { action: 'update', domain: 'a.example.com', id: 1 }, moved: { kind: 'changed' } });
    expect(compareReceipts(receiptOfBlock(blockOf(receiptOf(then, SHA))), now, SHA)).toEqual([]);
  });

  it('a plan the config does not make: the cause is the config, for a saved receipt always, for a block when the config files differ', () => {
    const then = plans(FILE);
    const other = FILE.replace('    email: true\n', '    email: false\n');
    const now = plans(other).map((a) => ({ ...a, live }));
    expect(compareReceipts(receiptOf(then, SHA), now, SHA).map((d) => [d.kind, d.change?.domain, d.cause])).toEqual([['missing', 'a.example.com', 'config']]);
    const block = receiptOfBlock(blockOf(receiptOf(then, SHA)));
    expect(compareReceipts(block, now, 'b'.repeat(64)).map((d) => d.cause)).toEqual(['config']);
    expect(compareReceipts(block, now, SHA).map((d) => d.cause)).toEqual(['service']);
  });
});
