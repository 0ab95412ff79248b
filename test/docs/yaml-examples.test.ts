/**
 * The docs' own YAML examples (README.md and every page of docs/) are what they teach: every
 * config block validates and is already in the layout `sitesync fmt` writes; every other block
 * (a workflow step) is YAML.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { docPages } from '../helpers/docs.js';

const readme = docPages()
  .map((p) => p.text)
  .join('\n');
const blocks = [...readme.matchAll(/^( *)```yaml\n([\s\S]*?)^\1```/gm)].map((m) => m[2]!.replace(new RegExp(`^${m[1]}`, 'gm'), ''));
/** init's input: the accounts alone, which init completes (each lists no websites yet). */
const BEFORE_INIT = '# sitesync.yaml, before sitesync init';
const configs = blocks.filter((b) => /^version: 1\b/m.test(b) && !b.startsWith(BEFORE_INIT));
const beforeInit = blocks.filter((b) => b.startsWith(BEFORE_INIT));
let dir = '';
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the docs' YAML", () => {
  it('has config examples and other blocks, and every block is YAML', () => {
    expect(configs.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) expect(() => parse(block), block).not.toThrow();
  });

  it("init's input example lacks only what init writes: each account's websites", async () => {
    expect(beforeInit.length).toBeGreaterThanOrEqual(1);
    dir ||= await mkdtemp(join(tmpdir(), 'sitesync-readme-'));
    for (const [i, text] of beforeInit.entries()) {
      const folder = join(dir, `before-init-${i}`);
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, 'sitesync.yaml'), text);
      const valid = await runCli(['validate'], { cwd: folder });
      const problems = valid.stderr.split('\n').filter((l) => /sitesync\.yaml:\d+:\d+:/.test(l));
      expect(problems.length, valid.stderr).toBeGreaterThan(0);
      for (const line of problems) expect(line).toMatch(/account \S+ lists no websites/);
    }
  });

  it.each(configs.map((c, i) => [i, c] as const))('config example %i validates and is formatted as fmt writes it', async (i, text) => {
    dir ||= await mkdtemp(join(tmpdir(), 'sitesync-readme-'));
    const folder = join(dir, String(i));
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'sitesync.yaml'), text);
    // The files an example includes, with websites of their own.
    for (const glob of [...text.matchAll(/^\s+- (clients\/[^\s]*\.yaml)$/gm)].map((m) => m[1]!)) {
      const file = join(folder, glob.replace('*', 'websites'));
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, 'websites:\n  - domain: shop.globex.example\n');
    }
    const valid = await runCli(['validate'], { cwd: folder });
    expect(valid.stderr).not.toMatch(/error/i);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    const formatted = await runCli(['fmt', '--check', 'sitesync.yaml'], { cwd: folder });
    expect(formatted.code, formatted.stdout + formatted.stderr).toBe(0);
  });
});
