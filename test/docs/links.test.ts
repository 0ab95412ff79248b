/**
 * The docs hold together: README.md is a front door (at most 20,000 bytes) that leads into
 * docs/, and every relative link of README.md and docs/*.md reaches a file that exists, and
 * every #anchor a heading of its page, as GitHub makes anchors. A moved section whose links
 * were not moved with it fails here, not in a reader's browser.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { Lexer, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { docPages, headings, page, walk, type Page } from '../helpers/docs.js';

/** Every link of a page: markdown links and images (`[text](target)`, reference links resolved). */
function links(p: Page): string[] {
  return [...walk(p.tokens)].filter((t): t is Tokens.Link | Tokens.Image => t.type === 'link' || t.type === 'image').map((t) => t.href);
}

/** What is wrong with each relative link of a page, as `page: target: why`. */
function brokenLinks(p: Page, pageOf: (path: string) => Page): string[] {
  const problems: string[] = [];
  for (const href of links(p)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:: not ours to check offline
    const [path = '', anchor] = href.split('#', 2) as [string, string | undefined];
    if (path === '') {
      if (anchor !== undefined && !headings(p).some((h) => h.slug === anchor)) problems.push(`${p.path}: ${href}: ${p.path} has no heading #${anchor}`);
      continue;
    }
    const target = normalize(join(dirname(p.path), decodeURIComponent(path)));
    if (target.startsWith('..')) {
      problems.push(`${p.path}: ${href}: leaves the repository`);
      continue;
    }
    if (!existsSync(join(root, target))) {
      problems.push(`${p.path}: ${href}: no file ${target}`);
      continue;
    }
    if (path.endsWith('/') && !statSync(join(root, target)).isDirectory()) problems.push(`${p.path}: ${href}: ${target} is not a folder`);
    if (anchor === undefined) continue;
    if (!target.endsWith('.md')) {
      problems.push(`${p.path}: ${href}: an anchor into a file that is not markdown`);
      continue;
    }
    const slugs = headings(pageOf(target)).map((h) => h.slug);
    if (!slugs.includes(anchor)) problems.push(`${p.path}: ${href}: ${target} has no heading #${anchor}`);
  }
  return problems;
}

const pages = docPages();
const byPath = new Map(pages.map((p) => [p.path, p]));
const pageOf = (path: string) => byPath.get(path) ?? page(path);

describe('the docs', () => {
  it('README.md is a front door: at most 20,000 bytes, with the set-up, install, quick start, adopting and links into docs/', () => {
    const readme = byPath.get('README.md')!;
    expect(Buffer.byteLength(readme.text)).toBeLessThanOrEqual(20_000);
    const sections = headings(readme).filter((h) => h.depth === 2).map((h) => h.text);
    expect(sections).toEqual(
      expect.arrayContaining(['Set-up', 'Install in your config repository', 'Quick start (5 minutes, against the bundled emulator)', "Adopting an agency's estate", 'Documentation']),
    );
    expect(readme.text).toContain('npm ci && npm run demo');
    expect(readme.text).toContain('npm test');
    // The library comes after the quick start.
    expect(sections.indexOf('Scripting sitesync from Node')).toBeGreaterThan(sections.indexOf('Quick start (5 minutes, against the bundled emulator)'));
    const linked = new Set(links(readme).filter((l) => l.startsWith('docs/')).map((l) => l.split('#')[0]));
    for (const p of pages.filter((q) => q.path.startsWith('docs/'))) expect(linked, `README.md links to ${p.path}`).toContain(p.path);
  });

  it('docs/ holds a page per topic, and its index links to each', () => {
    const required = ['README', 'file', 'commands', 'ci', 'safety', 'security', 'service', 'contributing', 'library'].map((n) => `docs/${n}.md`);
    for (const path of required) expect(byPath.has(path), path).toBe(true);
    const index = byPath.get('docs/README.md')!;
    const linked = new Set(links(index).map((l) => l.split('#')[0]));
    for (const p of pages.filter((q) => q.path.startsWith('docs/') && q.path !== 'docs/README.md')) {
      expect(linked, `docs/README.md links to ${p.path}`).toContain(relative('docs', p.path));
    }
  });

  it.each(pages.map((p) => [p.path, p] as const))('%s: every relative link and #anchor resolves', (_path, p) => {
    expect(links(p).length).toBeGreaterThan(0);
    expect(brokenLinks(p, pageOf)).toEqual([]);
  });

  it("anchors are GitHub's: lower case, punctuation dropped, spaces as hyphens, repeats numbered", () => {
    const p: Page = { path: 'docs/x.md', text: '', tokens: Lexer.lex('# A `${NAME}` and --baseline\n## Many accounts\n## Many accounts\n## An agency\'s repository\n') };
    expect(headings(p).map((h) => h.slug)).toEqual(['a-name-and---baseline', 'many-accounts', 'many-accounts-1', 'an-agencys-repository']);
  });

  it('finds what is broken: a missing file, a missing anchor, a link out of the repository', () => {
    const text = '# Here\n[ok](#here) [gone](nowhere.md) [no anchor](#there) [out](../../etc/passwd) [ok too](../README.md#set-up) [bad anchor](../README.md#nope)\n';
    const p: Page = { path: 'docs/x.md', text, tokens: Lexer.lex(text) };
    const problems = brokenLinks(p, pageOf);
    expect(problems).toEqual([
      'docs/x.md: nowhere.md: no file docs/nowhere.md',
      'docs/x.md: #there: docs/x.md has no heading #there',
      'docs/x.md: ../../etc/passwd: leaves the repository',
      'docs/x.md: ../README.md#nope: README.md has no heading #nope',
    ]);
  });
});
