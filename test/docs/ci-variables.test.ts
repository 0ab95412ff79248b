/**
 * docs/ci.md lists every environment variable the `ci` commands read (GITHUB_REPOSITORY,
 * CI_API_V4_URL, …): found in their sources (src/ci/, src/commands/ci*.ts) as `env.NAME`, so a
 * variable added to the code and not to the docs fails here rather than being found by trial.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { page, section, walk } from '../helpers/docs.js';

const sources = [
  ...readdirSync(join(root, 'src/ci')).map((f) => `src/ci/${f}`),
  ...readdirSync(join(root, 'src/commands'))
    .filter((f) => /^ci[.-]/.test(f))
    .map((f) => `src/commands/${f}`),
].filter((f) => f.endsWith('.ts'));

/** Every `env.NAME` / `env['NAME']` of the CI sources. */
function variablesRead(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sources) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/\benv(?:\?)?(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)) {
      const name = (m[1] ?? m[2])!;
      found.set(name, [...(found.get(name) ?? []), file]);
    }
  }
  return found;
}

/** The variables the table of docs/ci.md names: its first column's code spans. */
function variablesListed(): string[] {
  const table = section(page('docs/ci.md'), 'Environment variables the ci commands read').find((t): t is Tokens.Table => t.type === 'table');
  if (!table) throw new Error('docs/ci.md: no table of the variables');
  return table.rows.flatMap((row) => [...walk(row[0]!.tokens)].filter((t): t is Tokens.Codespan => t.type === 'codespan').map((t) => t.text));
}

describe("docs/ci.md's environment variables", () => {
  it('lists every variable the ci commands read', () => {
    const read = variablesRead();
    expect([...read.keys()]).toEqual(expect.arrayContaining(['GITHUB_REPOSITORY', 'GITHUB_EVENT_PATH', 'GITHUB_API_URL', 'GITHUB_TOKEN', 'CI_API_V4_URL', 'CI_PROJECT_ID']));
    const listed = new Set(variablesListed());
    const missing = [...read].filter(([name]) => !listed.has(name)).map(([name, files]) => `${name} (read in ${[...new Set(files)].join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('lists no variable the ci commands do not read', () => {
    const read = variablesRead();
    expect(variablesListed().filter((name) => !read.has(name))).toEqual([]);
  });
});
