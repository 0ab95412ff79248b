/**
 * The user docs as tests read them: README.md (the front door) and the pages of docs/, parsed by
 * marked (GitHub-flavoured markdown), with each heading's anchor as GitHub makes it
 * (github-slugger). Tests that run or check what the docs show find it here by page and heading,
 * so moving a text from one page to another moves one argument, not a parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, type Token, type Tokens } from 'marked';
import { root } from './cli.js';

export interface Page {
  /** From the repository's top, e.g. `docs/ci.md`. */
  path: string;
  text: string;
  tokens: Token[];
}

/** README.md, then every page of docs/, by name. */
export function docPages(): Page[] {
  const paths = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
  return paths.map(page);
}

export function page(path: string): Page {
  const text = readFileSync(join(root, path), 'utf8');
  return { path, text, tokens: Lexer.lex(text) };
}

/** Every token, depth first, list items, table cells and inline tokens included. */
export function* walk(tokens: readonly Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    const t = token as Token & { tokens?: Token[]; items?: Token[]; header?: Tokens.TableCell[]; rows?: Tokens.TableCell[][] };
    if (t.tokens) yield* walk(t.tokens);
    if (t.items) yield* walk(t.items);
    if (t.header) for (const cell of t.header) yield* walk(cell.tokens);
    if (t.rows) for (const row of t.rows) for (const cell of row) yield* walk(cell.tokens);
  }
}

/** The text a reader sees of inline tokens: what GitHub makes a heading's anchor from. */
export function plainText(tokens: readonly Token[]): string {
  return tokens
    .map((t) => {
      const inline = t as Token & { tokens?: Token[]; text?: string };
      if (t.type === 'codespan' || t.type === 'escape') return inline.text ?? '';
      if (inline.tokens) return plainText(inline.tokens);
      return inline.text ?? t.raw;
    })
    .join('');
}

export interface Heading {
  depth: number;
  text: string;
  /** GitHub's anchor: `#${slug}` links to it. */
  slug: string;
}

export function headings(p: Page): Heading[] {
  const slugger = new GithubSlugger();
  return p.tokens
    .filter((t): t is Tokens.Heading => t.type === 'heading')
    .map((h) => {
      const text = plainText(h.tokens);
      return { depth: h.depth, text, slug: slugger.slug(text) };
    });
}

/** The top-level tokens under a heading (by its text), up to the next heading of its depth or higher. */
export function section(p: Page, heading: string): Token[] {
  const at = p.tokens.findIndex((t) => t.type === 'heading' && plainText((t as Tokens.Heading).tokens) === heading);
  if (at < 0) throw new Error(`${p.path} has no heading "${heading}"`);
  const depth = (p.tokens[at] as Tokens.Heading).depth;
  const end = p.tokens.findIndex((t, i) => i > at && t.type === 'heading' && (t as Tokens.Heading).depth <= depth);
  return p.tokens.slice(at + 1, end < 0 ? undefined : end);
}

/** The code blocks of `lang` in a list of tokens. */
export function codeBlocks(tokens: readonly Token[], lang: string): string[] {
  return [...walk(tokens)].filter((t): t is Tokens.Code => t.type === 'code' && t.lang === lang).map((t) => t.text);
}

/** The first code block of `lang` under a heading of a page. */
export function sectionBlock(path: string, heading: string, lang: string): string {
  const block = codeBlocks(section(page(path), heading), lang)[0];
  if (block === undefined) throw new Error(`${path}, section "${heading}", has no \`\`\`${lang} block`);
  return block;
}

/** The text of a section, as written (its raw markdown). */
export function sectionText(path: string, heading: string): string {
  return section(page(path), heading)
    .map((t) => t.raw)
    .join('');
}
