/**
 * Every command the docs show is real and runs. Each shell block of README.md and docs/*.md is
 * run by a test, named here by its page and heading (the quick start and the install by their own
 * tests; the commands page's examples by this file, against the emulator); a new block that no
 * test runs fails here. Every `sitesync` command line the docs show, in a block or inline, uses
 * commands and flags the CLI has (checked against its own --help, as the CI recipes are).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Token, Tokens } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { CliSurface, sitesyncCalls } from '../ci/recipe-lint.js';
import { cleanEnv, root } from '../helpers/cli.js';
import { startCliServer, type CliServer } from '../helpers/cli-server.js';
import { docPages, plainText, sectionBlock, walk, type Page } from '../helpers/docs.js';

/** The shell blocks of the docs, by page and heading, and the test that runs each. */
const RUNNERS: Array<{ page: string; heading: string; by: string }> = [
  { page: 'README.md', heading: 'Set-up', by: 'test/journeys/demo.test.ts' }, // npm run demo; npm test is the suite itself
  { page: 'README.md', heading: 'Install in your config repository', by: 'test/journeys/package.test.ts' },
  { page: 'README.md', heading: 'Quick start (5 minutes, against the bundled emulator)', by: 'test/journeys/quick-start.test.ts' },
  { page: 'docs/commands.md', heading: 'Examples', by: 'test/docs/commands.test.ts' },
  { page: 'docs/adopting.md', heading: 'With sitesync init', by: 'test/edit/init.test.ts' },
];

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

interface Block {
  page: string;
  heading: string;
  text: string;
}

/** Shell blocks: fenced as sh/bash/shell/console, or unlabelled (indented too) holding a command. */
function shellBlocks(p: Page): Block[] {
  const blocks: Block[] = [];
  let heading = '';
  const visit = (tokens: readonly Token[]) => {
    for (const t of tokens) {
      if (t.type === 'heading') heading = plainText((t as Tokens.Heading).tokens);
      if (t.type === 'code') {
        const code = t as Tokens.Code;
        const lang = code.lang ?? '';
        if (SHELL.has(lang) || (lang === '' && /^\s*(npx |npm |sitesync )/m.test(code.text))) blocks.push({ page: p.path, heading, text: code.text });
      } else if (t.type === 'list') {
        for (const item of (t as Tokens.List).items) visit(item.tokens);
      }
    }
  };
  visit(p.tokens);
  return blocks;
}

/** Inline code that names sitesync but is not a command line to run, and why. */
const NOT_RUN: Record<string, string> = {
  'sitesync --verbos plan': 'the misspelling that sitesync corrects',
  'sitesync plan --format': 'the flag, named',
};

/** Inline `sitesync …` command lines: a synopsis with […], alternatives, placeholders or titles (`sitesync drift: x`) left out. */
function inlineCommands(p: Page): string[] {
  return [...walk(p.tokens)]
    .filter((t): t is Tokens.Codespan => t.type === 'codespan')
    .map((t) => t.text)
    .filter((text) => /^(npx )?sitesync [a-z-]/.test(text) && !/[[\]…|<>]|^sitesync [a-z-]+:/.test(text) && !(text in NOT_RUN));
}

const pages = docPages();
const blocks = pages.flatMap(shellBlocks);
const surface = new CliSurface();

describe('the commands the docs show', () => {
  it('each shell block is run by a test', async () => {
    const unrun = blocks.filter((b) => !RUNNERS.some((r) => r.page === b.page && r.heading === b.heading));
    expect(unrun.map((b) => `${b.page} › ${b.heading}: ${b.text.split('\n')[0]}`)).toEqual([]);
    for (const r of RUNNERS) {
      expect(blocks.some((b) => b.page === r.page && b.heading === r.heading), `${r.page} › ${r.heading} has a shell block`).toBe(true);
      // The runner reads that section: its source names the heading.
      const source = await readFile(join(root, r.by), 'utf8');
      expect(source, `${r.by} reads ${r.page} › ${r.heading}`).toContain(r.heading.replace(/ \(.*$/, ''));
    }
  });

  it('every sitesync command line, in a block or inline, uses commands and flags that exist', async () => {
    const problems: string[] = [];
    let count = 0;
    for (const b of blocks) {
      const found = sitesyncCalls(b.text);
      for (const args of found.calls) {
        count++;
        for (const p of await surface.lint({ file: b.page, where: b.heading, args })) problems.push(`${p.where}: ${p.message}`);
      }
    }
    for (const p of pages) {
      for (const line of inlineCommands(p)) {
        for (const args of sitesyncCalls(line).calls) {
          count++;
          for (const problem of await surface.lint({ file: p.path, where: 'inline', args })) problems.push(`${problem.where}: ${problem.message}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(40);
  });

  it('the lint finds a command or a flag that does not exist', async () => {
    const [typo] = sitesyncCalls("sitesync plan --detailed-exit-code --target '*.x'").calls;
    const [none] = sitesyncCalls('npx sitesync aply').calls;
    expect((await surface.lint({ file: 'x', where: 'y', args: typo! })).map((p) => p.message)).toEqual(['no flag --detailed-exit-code for "sitesync plan"']);
    expect((await surface.lint({ file: 'x', where: 'y', args: none! }))[0]!.message).toMatch(/^no command "sitesync aply"/);
  });
});

describe("docs/commands.md's examples, run as written against the emulator", () => {
  const KEY = 'docs-examples-key-0123456789';
  let emu: Emulator;
  let dir = '';
  // The examples' `sitesync` runs the CLI in this process (cli-server.ts): a Node start-up less each.
  let cli: CliServer;
  beforeAll(async () => {
    emu = await startEmulator({ keys: [KEY] });
    dir = await mkdtemp(join(tmpdir(), 'sitesync-docs-examples-'));
    cli = await startCliServer();
  });
  afterAll(async () => {
    await cli?.close();
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a markdown plan, a targeted plan, a saved plan applied, an apply in CI, a drift check that finds none', async () => {
    const examples = sectionBlock('docs/commands.md', 'Examples', 'sh');
    await writeFile(
      join(dir, 'sitesync.yaml'),
      'version: 1\nwebsites:\n  - domain: example.com\n\n  - domain: a.shop.example.com\n\n  - domain: b.shop.example.com\n    privacy: private\n',
    );
    const script = ['set -euo pipefail', `sitesync() { "${process.execPath}" "${cli.bin}" "$@"; }`, examples, 'echo "examples: done"'].join('\n');
    const shell = spawn('bash', ['-c', script], { cwd: dir, env: cleanEnv({ NO_COLOR: '1', SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY }) });
    let out = '';
    shell.stdout.on('data', (d: Buffer) => (out += d.toString()));
    shell.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => shell.on('close', resolve));

    expect(out, out).toContain('examples: done');
    expect(code).toBe(0);
    expect(await readFile(join(dir, 'plan.md'), 'utf8')).toMatch(/^<!-- sitesync-plan -->/);
    expect(out).toContain('Plan: 2 to create, 0 to update, 0 to delete (0 unchanged, 0 unmanaged).'); // --target: the two shop websites
    expect(out).toMatch(/Applied: 3 created, 0 updated, 0 deleted, 0 failed\./); // the saved plan
    expect(out).not.toContain(KEY);
  }, 180_000);
});
