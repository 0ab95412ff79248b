/**
 * Nothing the service holds is lost: fields sitesync cannot read, typos in --target, export
 * files, and deletes that race another run.
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

describe('a --target that matches nothing is an error, not "No changes"', () => {
  it.each([
    ['nomatch.org', 'Error: --target "nomatch.org" matches no website in the file or the account\n'],
    ['shop*', 'Error: --target "shop*" matches no website in the file or the account\n'],
    [
      'https://shop.example.com',
      'Error: --target "https://shop.example.com" matches no website in the file or the account; "https://shop.example.com" is not a bare domain name (no scheme, port or path): write "shop.example.com"\n',
    ],
  ])('plan --detailed-exitcode --target %s exits 1 and names the pattern', async (target, message) => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'shop.example.com', privacy: 1, email: 0, exclude_bots: 1 }]);
    await s.write('version: 1\nwebsites:\n  - domain: shop.example.com\n');
    const r = await s.cli(['plan', '--detailed-exitcode', '--target', target]);
    expect(r.stdout).not.toContain('No changes');
    expect(r.stderr).toBe(message);
    expect(r.code).toBe(1);
    const right = await s.cli(['plan', '--detailed-exitcode', '--target', 'shop.example.com']);
    expect(right.code).toBe(2);
  });
});

describe('export never loses a file', () => {
  it('export -o into a folder that does not exist is a clear error, not an internal one, before any request', async () => {
    s = await scenario();
    s.emu.resetStats();
    const r = await s.cli(['export', '-o', 'missing-dir/x.yaml']);
    expect(r.stderr).toBe('Error: --output missing-dir/x.yaml: the folder missing-dir does not exist; create it first\n');
    expect(r.code).toBe(1);
    expect(s.emu.stats.log).toEqual([]);
  });

  it('an existing output file is not overwritten without --force', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.example.com' }]);
    const file = await s.write('# my hand-written config\nversion: 1\nwebsites: []\n');
    const refused = await s.cli(['export', '-o', 'sitesync.yaml']);
    expect(refused.stderr).toBe('Error: --output sitesync.yaml: the file exists; pass --force to overwrite it\n');
    expect(refused.code).toBe(1);
    expect(await readFile(file, 'utf8')).toBe('# my hand-written config\nversion: 1\nwebsites: []\n');

    const forced = await s.cli(['export', '-o', 'sitesync.yaml', '--force']);
    expect(forced.code).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('  - domain: a.example.com\n');
  });

  it('export --help names --force', async () => {
    s = await scenario();
    const r = await s.cli(['export', '--help'], { process: true });
    expect(r.stdout).toMatch(/--force\s+Overwrite the --output file if it exists/);
  });
});

describe('two prune runs at once', () => {
  it('a delete that finds the website gone says "already gone" and is not counted as deleted', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'keep.example.com' }, { domain: 'old1.example.com' }, { domain: 'old2.example.com' }, { domain: 'old3.example.com' }]);
    await s.write('version: 1\nprune: true\nwebsites:\n  - domain: keep.example.com\n');
    // Hold every delete until both runs have read the list, so that both plan the same deletes.
    let listed = 0;
    let release!: () => void;
    const bothListed = new Promise<void>((r) => (release = r));
    s.emu.faults.before = async (req) => {
      if (req.method === 'GET' && req.path.endsWith('/websites') && ++listed === 2) release();
      if (req.method === 'DELETE') await bothListed;
      return undefined;
    };
    const runs = await Promise.all([s.cli(['apply', '--auto-approve']), s.cli(['apply', '--auto-approve'])]);
    expect(s.emu.websites(KEY).map((w) => w.domain)).toEqual(['keep.example.com']);
    const counts = runs.map((r) => {
      expect(r.code).toBe(0);
      const m = /Applied: 0 created, 0 updated, (\d+) deleted(?:, (\d+) already gone)?, 0 failed\./.exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      return { deleted: Number(m![1]), gone: Number(m![2] ?? 0) };
    });
    // Each website was deleted by exactly one run; the other says it found it gone.
    expect(counts[0]!.deleted + counts[1]!.deleted).toBe(3);
    expect(counts[0]!.gone + counts[1]!.gone).toBe(3);
    const goneLines = runs.flatMap((r) => r.stdout.split('\n').filter((l) => l.startsWith('· ')));
    expect(goneLines).toHaveLength(3);
    // Gone when its delete was sent, or already when its statistics were read (then no delete is sent).
    for (const line of goneLines) expect(line).toMatch(/^· delete old\d\.example\.com \(id \d\): already gone(: deleted elsewhere since the plan was made| when planned \(the service answered 404 for it\): not deleted again) \d+ms$/);
  });
});
