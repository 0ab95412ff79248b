/**
 * YAML text → `yaml`'s document, read by the `yaml` package alone (YAML 1.2, core schema): the
 * reader editors' YAML language server uses too, so a file means to sitesync what it shows.
 *
 * This is `parseDocument` in its two steps (yaml's Parser, then its Composer) with a look at
 * the syntax tree in between: yaml's Parser keeps its own stack, but the Composer, `toJS` and
 * the schema check recurse once per level, and a few thousand nested lists overflow the call
 * stack (a RangeError at a place that depends on the stack size). A file nested deeper than any
 * config needs is refused at the first node past the limit, the same on every machine.
 */
import { Composer, LineCounter, Parser, YAMLParseError, type CST, type Document } from 'yaml';

/** A config is 4 levels deep (file → websites → website → list); anything near this is not one. */
export const MAX_DEPTH = 64;

export type ReadDocument =
  | { doc: Document.Parsed; lines: LineCounter; tooDeepAt?: undefined }
  /** The file nests deeper than MAX_DEPTH: the offset of the first node too deep. */
  | { doc?: undefined; lines: LineCounter; tooDeepAt: number };

export function readDocument(text: string): ReadDocument {
  const lines = new LineCounter();
  const tokens = Array.from(new Parser(lines.addNewLine).parse(text));
  const tooDeepAt = firstTooDeep(tokens);
  if (tooDeepAt !== undefined) return { lines, tooDeepAt };
  const composer = new Composer({ prettyErrors: false, uniqueKeys: true });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(tokens, true, text.length)) {
    if (!doc) doc = next;
    else {
      // As parseDocument does: a second document is an error of the first.
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'));
      break;
    }
  }
  return { doc: doc!, lines };
}

/** The offset of the first collection nested deeper than MAX_DEPTH, walking with a stack of our own. */
function firstTooDeep(tokens: CST.Token[]): number | undefined {
  const stack: [CST.Token, number][] = tokens.map((t) => [t, 0]);
  while (stack.length) {
    const [token, depth] = stack.pop()!;
    switch (token.type) {
      case 'document':
        if (token.value) stack.push([token.value, depth]);
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection':
        if (depth >= MAX_DEPTH) return token.offset;
        for (const item of token.items) {
          if (item.key) stack.push([item.key, depth + 1]);
          if (item.value) stack.push([item.value, depth + 1]);
        }
        break;
      default:
        break;
    }
  }
  return undefined;
}
