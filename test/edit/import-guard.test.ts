/**
 * import's guard against a bug in sitesync: the config with the edited files' texts in their
 * place must load with every check of the loader, the listing checks across files too (a
 * domain the edit would list a second time is refused, and nothing is written).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkEdited } from '../../src/commands/import.js';
import { SitesyncError } from '../../src/messages/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-import-guard-'));
  await mkdir(join(dir, 'sites'));
  await writeFile(join(dir, 'sitesync.yaml'), 'version: 1\ninclude: [sites/*.yaml]\nwebsites:\n  - domain: a.example\n');
  await writeFile(join(dir, 'sites/b.yaml'), 'websites:\n  - domain: b.example\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('checkEdited (import)', () => {
  const included = () => ({ path: join(dir, 'sites/b.yaml'), shown: 'sites/b.yaml' });

  it('passes an edit the loader reads', async () => {
    const text = 'websites:\n  - domain: b.example\n\n  - domain: c.example\n';
    await expect(checkEdited(join(dir, 'sitesync.yaml'), [{ edit: included(), text }], {})).resolves.toBeUndefined();
  });

  it('refuses an edit that lists in an included file a domain the config file lists: a bug in sitesync', async () => {
    const text = 'websites:\n  - domain: b.example\n\n  - domain: a.example\n';
    const error = await checkEdited(join(dir, 'sitesync.yaml'), [{ edit: included(), text }], {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SitesyncError);
    expect((error as SitesyncError).message).toBe('sites/b.yaml: the file with the websites added would not be a valid config (a bug in sitesync); nothing was written');
    expect((error as SitesyncError).details.join('\n')).toContain('"a.example" is listed twice');
  });
});
