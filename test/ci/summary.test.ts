import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKER } from '../../src/render/markdown.js';
import { runInProcess } from './context.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sitesync-ci-'));
  await writeFile(join(dir, 'plan.md'), `${MARKER}\n### sitesync plan: no changes\n`);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sitesync ci summary', () => {
  it('appends the file under its title to $GITHUB_STEP_SUMMARY', async () => {
    const summary = join(dir, 'step_summary.md');
    await writeFile(summary, 'An earlier step wrote this.\n\n');
    const r = await runInProcess(['ci', 'summary', '--file', 'plan.md', '--title', 'Drift'], { GITHUB_STEP_SUMMARY: summary }, dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Added plan.md to the job summary.\n');
    expect(await readFile(summary, 'utf8')).toBe(
      `An earlier step wrote this.\n\n## Drift\n\n${MARKER}\n### sitesync plan: no changes\n\n`,
    );
  });

  it('prints the file without $GITHUB_STEP_SUMMARY (GitLab, a terminal)', async () => {
    const r = await runInProcess(['ci', 'summary', '--file', 'plan.md'], {}, dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${MARKER}\n### sitesync plan: no changes\n\n`);
  });

  it('says when the summary file cannot be written', async () => {
    const r = await runInProcess(['ci', 'summary', '--file', 'plan.md'], { GITHUB_STEP_SUMMARY: join(dir, 'no/such/dir/x.md') }, dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot write the job summary to');
  });
});
