/**
 * YAML text → `yaml`'s document (YAML 1.2, core schema, as editors' language server reads it), and
 * where things are in it: `parseDocument` in its steps (Lexer, Parser, Composer), bounded for what a
 * file may make it build. A built token takes 0.3 to 1 KB (`x: [1,1,1,…]` under the byte cap would
 * take gigabytes): the lexer's tokens are counted first. The Composer, `toJS` and the schema check
 * recurse per level: the Parser's stack is watched, so a file nested too deep is refused at the same
 * node on every machine.
 */
import { Composer, CST, isAlias, isMap, isPair, isScalar, isSeq, Lexer, LineCounter, Parser, YAMLParseError, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { ConfigError, refuseFile } from '../messages/errors.js';
import type { Position } from '../model/types.js';
import type { Path } from '../schema/errors.js';
import { MAX_YAML_DEPTH, MAX_YAML_ERRORS_SHOWN, MAX_YAML_TOKENS } from '../caps.js';

/** The YAML tokens a config and the files it includes may still hold together (MAX_YAML_TOKENS at first); readDocument spends it. */
export type TokenBudget = { left: number };

export type YamlDocument = { doc: Document.Parsed; lines: LineCounter };

/** The document of `text`, or a ConfigError at FILE:LINE:COL: refused for its size or depth, or not YAML. */
export function readDocument(text: string, file: string, budget: TokenBudget = { left: MAX_YAML_TOKENS }): YamlDocument {
  const lines = new LineCounter();
  lines.addNewLine(0);
  const lexemes: string[] = [];
  let offset = 0;
  const max = budget.left;
  for (const lexeme of new Lexer().lex(text)) {
    if (lexemes.length >= max) {
      budget.left = 0;
      for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) lines.addNewLine(at + 1);
      const n = (count: number) => count.toLocaleString('en-US');
      const what =
        max < MAX_YAML_TOKENS
          ? `the files read before this one hold ${n(MAX_YAML_TOKENS - max)} YAML tokens, and this one more than ${n(max)} by here: more than ${n(MAX_YAML_TOKENS)} together`
          : `the file holds more than ${n(MAX_YAML_TOKENS)} YAML tokens by here`;
      const message = `${what} (each value, indicator, blank, line break and comment is one), more than any config${max < MAX_YAML_TOKENS ? ' and the files it includes' : ' file'}: 100,000 websites take at most about 3,500,000`;
      refuseFile(file, message, lines.linePos(offset));
    }
    lexemes.push(lexeme);
    // The lexer's markers are no text of the file.
    if (lexeme !== CST.SCALAR && lexeme !== CST.DOCUMENT && lexeme !== CST.FLOW_END) offset += lexeme.length;
  }
  budget.left -= lexemes.length;
  const parser = new Parser(lines.addNewLine);
  const tokens: CST.Token[] = [];
  for (const lexeme of lexemes) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack holds the document, then each open collection (then maybe a scalar being read).
    const deepest = parser.stack[MAX_YAML_DEPTH + 1];
    if (deepest && (deepest.type === 'block-map' || deepest.type === 'block-seq' || deepest.type === 'flow-collection')) {
      refuseFile(file, `the file nests more than ${MAX_YAML_DEPTH} levels deep here; a config file needs 4`, lines.linePos(deepest.offset));
    }
  }
  for (const token of parser.end()) tokens.push(token);
  // yaml checks each key of a mapping against every one before it (300,000 keys: ten minutes), so a
  // lookup does; a key written twice is said by yaml's own check (its errors, its order) while cheap.
  let doc = compose(tokens, text.length, false);
  const keys = duplicateKeys(doc);
  const cheap = keys.comparisons <= MAX_KEY_COMPARISONS;
  if (keys.twice.length && cheap) doc = compose(tokens, text.length, true);
  const errors = keys.twice.length && !cheap ? withDuplicateKeys(doc.errors, keys.twice) : doc.errors;
  // The first MAX_YAML_ERRORS_SHOWN, then one line that counts the rest.
  const shown = errors.slice(0, MAX_YAML_ERRORS_SHOWN).map((e) => ({ file, ...lines.linePos(e.pos[0]), message: yamlMessage(e.code, e.message), severity: 'error' as const }));
  const more = errors.length - shown.length;
  if (more > 0) shown.push({ ...shown.at(-1)!, message: `and ${more.toLocaleString('en-US')} more YAML errors after this one; mend these first` });
  if (shown.length) throw new ConfigError(shown);
  return { doc, lines };
}

/** The document the tokens make, as parseDocument composes it; `uniqueKeys`: with yaml's check of keys written twice. */
function compose(tokens: CST.Token[], end: number, uniqueKeys: boolean): Document.Parsed {
  // yaml makes each of its errors an Error, whose stack trace costs more than the rest of its work.
  const traces = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // The first document, and whether there is a second (composed no further: a file may hold a million).
    const docs = new Composer({ prettyErrors: false, uniqueKeys }).compose(tokens, true, end);
    const doc = docs.next().value!;
    const next = docs.next().value;
    // As parseDocument does: a second document is an error of the first.
    if (next) doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'));
    return doc;
  } finally {
    Error.stackTraceLimit = traces;
  }
}

/** The key comparisons yaml's own check of duplicate keys may make (some 0.1 s): beyond, the keys found here are said. */
const MAX_KEY_COMPARISONS = 10_000_000;

/** Keys written again in their mapping (a scalar equal to one before, as yaml compares), in order; and what yaml's check costs. */
function duplicateKeys(doc: Document.Parsed): { twice: number[]; comparisons: number } {
  const twice: number[] = [];
  let comparisons = 0;
  const seen = new Set<unknown>();
  const stack: unknown[] = [doc.contents];
  while (stack.length) {
    const node = stack.pop();
    if (isMap(node)) {
      comparisons += (node.items.length * (node.items.length - 1)) / 2;
      seen.clear();
      for (const { key, value } of node.items) {
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) twice.push(key.range![0]);
          else seen.add(key.value);
        }
        stack.push(key, value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    } else if (isPair(node)) {
      stack.push(node.key, node.value);
    }
  }
  return { twice: twice.sort((a, b) => a - b), comparisons };
}

type YamlError = Pick<YAMLParseError, 'pos' | 'code' | 'message'>;

/** `errors` with yaml's error at each key of `twice` (offsets, in order), among them by where they are. */
function withDuplicateKeys(errors: YamlError[], twice: number[]): YamlError[] {
  const merged: YamlError[] = [];
  let i = 0;
  const duplicate = (): YamlError => ({ pos: [twice[i++]!, 0], code: 'DUPLICATE_KEY', message: 'Map keys must be unique' });
  for (const error of errors) {
    while (i < twice.length && twice[i]! < error.pos[0]) merged.push(duplicate());
    merged.push(error);
  }
  while (i < twice.length) merged.push(duplicate());
  return merged;
}

/** yaml's message for an error, in sitesync's words where it has them. */
export function yamlMessage(code: string, message: string): string {
  if (code === 'MULTIPLE_DOCS') return 'the file holds more than one YAML document (---): sitesync reads one';
  if (code === 'DUPLICATE_KEY') return 'this key is written twice in the same mapping';
  const first = message.split('\n', 1)[0] ?? message;
  return `YAML: ${first.replace(/ at line \d+, column \d+:?$/, '')}`;
}

/** Where a path of the data (`['websites', 3, 'privacy']`), under `base` (an account's block), is written: its key or value. */
export class Locator {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly base: Path = [],
    /** Each mapping's pairs by their keys' text, built when the mapping is first looked into. */
    private readonly pairs = new WeakMap<YAMLMap, Map<string, Pair>>(),
  ) {}

  /** The same document, its paths read under `base`: an account's keys, as a single-account file's. */
  under(base: Path): Locator {
    return new Locator(this.doc, this.lines, [...this.base, ...base], this.pairs);
  }

  /** Where the value at `path` starts (or the nearest enclosing node that exists). */
  value(path: Path): Position {
    const { node, keyNode } = this.walk(path);
    return this.lines.linePos(node?.range?.[0] ?? keyNode?.range?.[0] ?? 0);
  }

  /** Where the key of the last path segment is written (falls back to the value). */
  key(path: Path): Position {
    const { keyNode, node } = this.walk(path);
    return this.lines.linePos(keyNode?.range?.[0] ?? node?.range?.[0] ?? 0);
  }

  /** The first pair of `map` keyed `key`, by a lookup built once per mapping (from its start per key, 20,000 took half a minute). */
  private pairOf(map: YAMLMap, key: string): Pair | undefined {
    let pairs = this.pairs.get(map);
    if (!pairs) {
      this.pairs.set(map, (pairs = new Map()));
      for (const p of map.items) {
        const text = isScalar(p.key) ? String(p.key.value) : undefined;
        if (text !== undefined && !pairs.has(text)) pairs.set(text, p);
      }
    }
    return pairs.get(key);
  }

  private walk(path: Path): { node: Node | null; keyNode: Node | null } {
    let node: unknown = this.doc.contents;
    let keyNode: Node | null = null;
    for (const segment of [...this.base, ...path]) {
      if (isAlias(node)) node = node.resolve(this.doc);
      if (isMap(node)) {
        const pair = this.pairOf(node, String(segment));
        if (!pair) break;
        keyNode = (pair.key as Node | null) ?? keyNode;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
        node = node.items[segment];
        keyNode = node as Node;
      } else {
        break;
      }
    }
    return { node: (node as Node | null) ?? null, keyNode };
  }
}
