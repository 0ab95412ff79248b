/**
 * Maps a path in the parsed data (`['websites', 3, 'privacy']`) back to a line and column in
 * the YAML source, so that every message can point at the offending key or value.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { Position } from '../model/types.js';

export type Path = ReadonlyArray<string | number>;

/** Where things are in the source: what every message about the file needs. */
export interface Positions {
  /** Where the value at `path` starts (or the nearest enclosing node that exists). */
  value(path: Path): Position;
  /** Where the key of the last path segment is written (falls back to the value). */
  key(path: Path): Position;
  /** For each item of the sequence at `path`, where the value of its `key` starts. */
  itemValues(path: Path, key: string): (Position | undefined)[];
}

export class Locator implements Positions {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** Where the value at `path` starts (or the nearest enclosing node that exists). */
  value(path: Path): Position {
    const { node, keyNode } = this.walk(path);
    return this.pos(node?.range?.[0] ?? keyNode?.range?.[0] ?? 0);
  }

  /** Where the key of the last path segment is written (falls back to the value). */
  key(path: Path): Position {
    const { keyNode, node } = this.walk(path);
    return this.pos(keyNode?.range?.[0] ?? node?.range?.[0] ?? 0);
  }

  /**
   * For each item of the sequence at `path`, where the value of its `key` starts: one walk for
   * a whole list instead of one per item.
   */
  itemValues(path: Path, key: string): (Position | undefined)[] {
    let seq: unknown = this.walk(path).node;
    if (isAlias(seq)) seq = seq.resolve(this.doc);
    if (!isSeq(seq)) return [];
    return seq.items.map((item) => {
      const map = isAlias(item) ? item.resolve(this.doc) : item;
      if (!isMap(map)) return undefined;
      const pair = map.items.find((p) => isPair(p) && keyText(p.key) === key);
      const node = (pair?.value ?? pair?.key) as Node | null | undefined;
      return node?.range ? this.pos(node.range[0]) : undefined;
    });
  }

  /** The source position of an offset in the text. */
  pos(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { line, col };
  }

  private walk(path: Path): { node: Node | null; keyNode: Node | null } {
    let node: unknown = this.doc.contents;
    let keyNode: Node | null = null;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(this.doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && keyText(p.key) === String(segment));
        if (!pair) break;
        keyNode = (pair.key as Node | null) ?? keyNode;
        node = pair.value;
        if (node === null) return { node: keyNode, keyNode };
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

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}
