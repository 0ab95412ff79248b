/** One load says which variables a file needs and are not set: diagnostics that name them (run/open.ts reads them, and loads once). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/config/load.js';

describe('a variable that is not set', () => {
  it('is a diagnostic that names it, at the password that reads it, in a workspace loaded with its errors kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sitesync-missing-'));
    try {
      const file = join(dir, 'sitesync.yaml');
      await writeFile(file, 'version: 1\nwebsites:\n  - domain: a.example\n    password: ${A_PW}\n  - domain: b.example\n    password: x${B_PW}y\n');
      const workspace = await loadWorkspace(file, {}, { keepErrors: true });
      const missing = workspace.warnings.filter((d) => d.missing !== undefined).map((d) => [d.missing, d.line, d.col, d.message]);
      expect(missing).toEqual([
        ['A_PW', 4, 15, 'websites[0].password: environment variable A_PW is not set'],
        ['B_PW', 6, 15, 'websites[1].password: environment variable B_PW is not set'],
      ]);
      expect(workspace.warnings.filter((d) => d.severity === 'error' && d.missing === undefined)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
