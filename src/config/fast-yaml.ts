/**
 * A fast reader for the plain YAML that config files are written in: block mappings and
 * sequences, plain and simply quoted scalars, one-line flow lists of scalars, comments.
 *
 * Why: the `yaml` package reads a 10,000-website file in about half a second, most of a
 * `validate` or `plan` of such a file. This reads the same file in a tenth of that.
 *
 * It never guesses. On anything outside that subset (anchors, aliases, tags, block scalars,
 * escapes, multi-line scalars, flow mappings, tabs, duplicate keys, several documents…) it
 * returns `undefined`, and the caller reads the file with `yaml`, which also reports every
 * error. Where it does return a value, that value and the positions it records are the ones
 * `yaml` gives (test/unit/fast-yaml.test.ts holds the two side by side).
 */
import type { Position } from '../model.js';
import type { Path, Positions } from './locate.js';

export interface FastParse {
  value: Record<string, unknown>;
  positions: PositionIndex;
}

interface Line {
  /** 1-based. */
  line: number;
  indent: number;
  /** The content after the indentation, comment and trailing blanks removed. */
  text: string;
}

/** Thrown inside the reader to give up; never escapes `fastParse`. */
class Unsupported extends Error {}

const KEY = /^([A-Za-z_$][A-Za-z0-9_$-]*):(?: +|$)/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]{1,15}$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/** The core schema's other forms (hex, octal, exponents, .inf, .nan; ints past 15 digits): left to `yaml`. */
const OTHER_NUMBERS = [
  /^0o[0-7]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?[0-9]{16,}$/,
];
/** Characters that start something other than a plain scalar. */
const INDICATOR = /^[,[\]{}#&*!|>'"%@`]|^[-?:](?: |$)/;

export function fastParse(text: string): FastParse | undefined {
  try {
    return new Reader(text).read();
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

class Reader {
  private readonly lines: Line[] = [];
  private at = 0;
  readonly positions = new PositionIndex();

  constructor(text: string) {
    if (text.includes('\t') || text.includes('\r')) throw new Unsupported();
    const raw = text.split('\n');
    for (let i = 0; i < raw.length; i++) {
      const full = raw[i]!;
      const indent = full.length - full.trimStart().length;
      const content = stripComment(full.slice(indent));
      if (content === '') continue;
      if (indent === 0 && (content.startsWith('---') || content.startsWith('...') || content.startsWith('%'))) {
        throw new Unsupported();
      }
      this.lines.push({ line: i + 1, indent, text: content });
    }
  }

  read(): FastParse {
    const first = this.lines[0];
    if (!first || first.indent !== 0 || isSeqItem(first.text)) throw new Unsupported();
    const value = this.mapping(0, ROOT);
    if (this.at < this.lines.length) throw new Unsupported();
    return { value, positions: this.positions };
  }

  private get current(): Line | undefined {
    return this.lines[this.at];
  }

  private block(indent: number, path: string): unknown {
    return isSeqItem(this.current!.text) ? this.sequence(indent, path) : this.mapping(indent, path);
  }

  private mapping(indent: number, path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const first = this.current!;
    this.positions.set(path, { line: first.line, col: indent + 1 });
    for (let line = this.current; line && line.indent === indent && !isSeqItem(line.text); line = this.current) {
      const match = KEY.exec(line.text);
      if (!match) throw new Unsupported();
      const key = match[1]!;
      if (key === '__proto__' || Object.hasOwn(out, key)) throw new Unsupported();
      const keyPath = child(path, key);
      this.positions.setKey(keyPath, { line: line.line, col: indent + 1 });
      const rest = line.text.slice(match[0].length);
      this.at++;
      if (rest !== '') {
        out[key] = this.inline(rest, line.line, indent + 1 + match[0].length, keyPath);
        continue;
      }
      const next = this.current;
      if (next && next.indent > indent) out[key] = this.block(next.indent, keyPath);
      else if (next && next.indent === indent && isSeqItem(next.text)) out[key] = this.sequence(indent, keyPath);
      else throw new Unsupported(); // an empty value: its position is yaml's business
    }
    if (this.current && this.current.indent > indent) throw new Unsupported();
    return out;
  }

  private sequence(indent: number, path: string): unknown[] {
    const out: unknown[] = [];
    this.positions.set(path, { line: this.current!.line, col: indent + 1 });
    for (let line = this.current; line && line.indent === indent && isSeqItem(line.text); line = this.current) {
      const itemPath = child(path, out.length);
      const rest = line.text.slice(1).trimStart();
      const col = indent + (line.text.length - rest.length);
      if (rest === '' || isSeqItem(rest)) throw new Unsupported();
      if (KEY.test(rest)) {
        // `- key: value` opens a mapping whose keys line up with `key`.
        line.indent = col;
        line.text = rest;
        out.push(this.mapping(col, itemPath));
        continue;
      }
      this.at++;
      out.push(this.inline(rest, line.line, col + 1, itemPath));
    }
    if (this.current && this.current.indent > indent) throw new Unsupported();
    return out;
  }

  /** A value on the same line as its key or dash. */
  private inline(text: string, line: number, col: number, path: string): unknown {
    this.positions.set(path, { line, col });
    if (text.startsWith('[')) return this.flowList(text, line, col, path);
    if (text.startsWith('"') || text.startsWith("'")) return quoted(text);
    return plain(text);
  }

  /** `[a, "b", c]` on one line, scalars only. */
  private flowList(text: string, line: number, col: number, path: string): unknown[] {
    if (!text.endsWith(']')) throw new Unsupported();
    const inner = text.slice(1, -1);
    if (inner.trim() === '') return [];
    const out: unknown[] = [];
    let start = 0;
    let quote = '';
    for (let i = 0; i <= inner.length; i++) {
      const c = inner[i];
      if (quote) {
        if (c === quote) quote = '';
        continue;
      }
      if (c === '"' || c === "'") {
        quote = c;
        continue;
      }
      if (c === '[' || c === ']' || c === '{' || c === '}') throw new Unsupported();
      if (c !== ',' && i !== inner.length) continue;
      const item = inner.slice(start, i);
      const trimmed = item.trim();
      if (trimmed === '') throw new Unsupported();
      const itemCol = col + 1 + start + (item.length - item.trimStart().length);
      this.positions.set(child(path, out.length), { line, col: itemCol });
      if (trimmed.startsWith('"') || trimmed.startsWith("'")) out.push(quoted(trimmed));
      else if (trimmed.includes(':')) throw new Unsupported();
      else out.push(plain(trimmed));
      start = i + 1;
    }
    if (quote) throw new Unsupported();
    return out;
  }
}

function isSeqItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

/** Drops a comment (`#` at the start or after a blank, outside quotes) and trailing blanks. */
function stripComment(content: string): string {
  let quote = '';
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      // A quote only opens a quoted scalar where a value starts; elsewhere it is literal text.
      const before = content.slice(0, i).trimEnd();
      if (before === '' || before.endsWith(':') || before.endsWith('-') || before.endsWith('[') || before.endsWith(',')) quote = c;
    } else if (c === '#' && (i === 0 || content[i - 1] === ' ')) {
      return content.slice(0, i).trimEnd();
    }
  }
  if (quote) throw new Unsupported();
  return content.trimEnd();
}

/** A whole-value quoted scalar without escapes. */
function quoted(text: string): string {
  const q = text[0]!;
  const end = text.indexOf(q, 1);
  if (end !== text.length - 1) throw new Unsupported();
  const body = text.slice(1, -1);
  if (q === '"' && body.includes('\\')) throw new Unsupported();
  return body;
}

/** A plain scalar, resolved as the YAML 1.2 core schema does. */
function plain(text: string): unknown {
  if (INDICATOR.test(text) || text.includes(': ') || text.endsWith(':') || text.includes(' #')) throw new Unsupported();
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (INT.test(text)) return parseInt(text, 10);
  if (FLOAT.test(text)) return parseFloat(text);
  if (OTHER_NUMBERS.some((r) => r.test(text))) throw new Unsupported();
  return text;
}

/** Paths as strings, built one segment at a time while reading (no arrays per node). */
const SEP = '\u0000';
const ROOT = '';
const child = (path: string, segment: string | number): string => `${path}${SEP}${segment}`;
const pathKey = (path: Path): string => path.reduce<string>((p, s) => child(p, s), ROOT);

/** Positions by path, as `Locator` answers them for a `yaml` document. */
export class PositionIndex implements Positions {
  private readonly values = new Map<string, Position>();
  private readonly keys = new Map<string, Position>();

  set(path: string, pos: Position): void {
    this.values.set(path, pos);
  }

  setKey(path: string, pos: Position): void {
    this.keys.set(path, pos);
  }

  value(path: Path): Position {
    for (let n = path.length; n >= 0; n--) {
      const found = this.values.get(pathKey(path.slice(0, n)));
      if (found) return found;
    }
    return { line: 1, col: 1 };
  }

  key(path: Path): Position {
    return this.keys.get(pathKey(path)) ?? this.value(path);
  }

  itemValues(path: Path, key: string): (Position | undefined)[] {
    const out: (Position | undefined)[] = [];
    const base = pathKey(path);
    for (let i = 0; this.values.has(child(base, i)); i++) out.push(this.values.get(child(child(base, i), key)));
    return out;
  }
}
