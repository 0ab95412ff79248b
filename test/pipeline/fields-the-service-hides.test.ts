/**
 * Fields the service does not show (exclude_params on the deployed product) are never overwritten
 * by a value the file does not set, and where the file sets one, every output says that it
 * overwrites a value sitesync cannot read.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

describe('fields the service does not show are never overwritten by a value the file does not set', () => {
  it('export, add email: true, apply: the exclude_params the service holds (ref, coupon) survive', async () => {
    s = await scenario({ profile: 'deployed' });
    s.emu.seed(KEY, [
      { domain: 'shop.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: 'ref\ncoupon' },
      { domain: 'blog.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: 'utm_source' },
    ]);
    expect((await s.cli(['export', '-o', 'sitesync.yaml'])).code).toBe(0);
    const file = join(s.dir, 'sitesync.yaml');
    const exported = await readFile(file, 'utf8');
    expect(exported).toContain('  - domain: shop.example.com\n');
    await writeFile(file, exported.replace('  - domain: shop.example.com\n', '  - domain: shop.example.com\n    email: true\n'));

    const plan = await s.cli(['plan']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('~ update shop.example.com (id 1)');
    expect(plan.stdout).toContain('    email     false → true');
    expect(plan.stdout).not.toContain('exclude_params  (not shown by the service)');
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete (1 unchanged, 0 unmanaged).');

    s.emu.resetStats();
    const applied = await s.cli(['apply', '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied: 0 created, 1 updated, 0 deleted, 0 failed.');
    expect(writes(s.emu)).toEqual(['PATCH /api/v1/websites/1 200']);
    const shop = s.emu.websites(KEY).find((w) => w.domain === 'shop.example.com')!;
    expect(shop.email).toBe(1);
    expect(shop.exclude_params).toBe('ref\ncoupon');
    expect(s.emu.websites(KEY).find((w) => w.domain === 'blog.example.com')!.exclude_params).toBe('utm_source');
  });

  it('where the file sets an unreadable field, every output says that it overwrites a value sitesync cannot read', async () => {
    s = await scenario({ profile: 'deployed' });
    s.emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_params: 'ref\ncoupon' }]);
    await s.write('version: 1\nwebsites:\n  - domain: shop.example.com\n    email: true\n    exclude_params: [gclid]\n');
    const text = await s.cli(['plan']);
    expect(text.stdout).toContain(
      '    exclude_params  (not shown by the service) → gclid  (write-only: sent with this update; overwrites a value sitesync cannot read)',
    );
    const markdown = await s.cli(['plan', '--format', 'markdown']);
    expect(markdown.stdout).toContain(
      '| exclude_params | (not shown by the service) | gclid _(write-only: sent with this update; overwrites a value sitesync cannot read)_ |',
    );
    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    expect(json.changes[0].details.find((d: { field: string }) => d.field === 'exclude_params')).toEqual({
      field: 'exclude_params',
      before: null,
      after: ['gclid'],
      write_only: 'with-update',
      overwrites_unread: true,
    });
  });
});
