/**
 * YAML text → `yaml`'s document, read by the `yaml` package alone (YAML 1.2, core schema): the
 * reader editors' YAML language server uses too, so a file means to sitesync what it shows.
 *
 * This is `parseDocument` in its steps (yaml's Lexer, Parser, then Composer), driven here for
 * depth: yaml's Parser keeps its own stack, but the Composer, `toJS` and the schema check
 * recurse once per level, and a few thousand nested lists overflow the call stack (a RangeError
 * at a place that depends on the stack size). The Parser's stack is watched as it grows, and a
 * file nested deeper than any config needs is refused at the first node past the limit, the
 * same on every machine.
 */
import { Composer, Lexer, LineCounter, Parser, YAMLParseError, type CST, type Document } from 'yaml';

/** A config is 4 levels deep (file → websites → website → list); anything near this is not one. */
export const MAX_DEPTH = 64;

export type ReadDocument =
  | { doc: Document.Parsed; lines: LineCounter; tooDeepAt?: undefined }
  /** The file nests deeper than MAX_DEPTH: the offset of the first node too deep. */
  | { doc?: undefined; lines: LineCounter; tooDeepAt: number };

export function readDocument(text: string): ReadDocument {
  const reading = new Reading(text);
  reading.parse();
  return reading.result();
}

class Reading {
  private readonly lines = new LineCounter();
  private readonly parser = new Parser(this.lines.addNewLine);
  private readonly lexemes: Iterable<string>;
  private readonly tokens: CST.Token[] = [];
  private tooDeepAt: number | undefined;

  constructor(private readonly text: string) {
    this.lexemes = new Lexer().lex(text);
    this.lines.addNewLine(0);
  }

  /** Feeds every lexer token to the parser, stopping at the first node nested too deep. */
  parse(): void {
    const { parser, tokens } = this;
    for (const lexeme of this.lexemes) {
      for (const token of parser.next(lexeme)) tokens.push(token);
      // The stack holds the document, then each open collection (then maybe a scalar being read).
      const deepest = parser.stack[MAX_DEPTH + 1];
      if (deepest && (deepest.type === 'block-map' || deepest.type === 'block-seq' || deepest.type === 'flow-collection')) {
        this.tooDeepAt = deepest.offset;
        return;
      }
    }
    for (const token of parser.end()) tokens.push(token);
  }

  result(): ReadDocument {
    if (this.tooDeepAt !== undefined) return { lines: this.lines, tooDeepAt: this.tooDeepAt };
    const composer = new Composer({ prettyErrors: false, uniqueKeys: true });
    let doc: Document.Parsed | undefined;
    for (const next of composer.compose(this.tokens, true, this.text.length)) {
      if (!doc) doc = next;
      else {
        // As parseDocument does: a second document is an error of the first.
        doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'));
        break;
      }
    }
    return { doc: doc!, lines: this.lines };
  }
}
