/**
 * `sitesync import`'s edit: new website entries at the end of a `websites:` list, everything else
 * in the file left as it is. A block list gets the entries as text after its last item, indented
 * and spaced like the items already there, so no other byte changes; a flow or missing list is
 * edited through the `yaml` package's Document API. Either way the entries are written by the
 * `yaml` package, and the result is read again: it must mean the old file plus the new entries.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isSeq, parseDocument, type Node, type YAMLSeq } from 'yaml';
import { SitesyncError } from '../errors.js';

export interface NewEntry {
  entry: Record<string, unknown>;
  /** Comment lines above the entry (without `#`). */
  notes: string[];
}

/** `text` with `entries` appended to the list at `path` (`['websites']`, `['accounts', NAME, 'websites']`). */
export function insertWebsites(text: string, path: string[], entries: NewEntry[], file: string): string {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length) throw new SitesyncError(`${file} is not valid YAML: ${doc.errors[0]!.message.split('\n', 1)[0]}`);
  const before = doc.toJS({ maxAliasCount: 100 }) as unknown;
  const seq = doc.getIn(path, true) as Node | undefined;
  const out = isSeq(seq) && !seq.flow && seq.items.length > 0 ? appendAsText(text, seq, entries) : appendInDocument(doc, path, seq, entries);

  const after = parseDocument(out, { uniqueKeys: false });
  const expected = structuredClone(before) as Record<string, unknown>;
  let parent = expected;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const key = path[path.length - 1]!;
  parent[key] = [...(Array.isArray(parent[key]) ? (parent[key] as unknown[]) : []), ...entries.map((e) => e.entry)];
  if (after.errors.length || !isDeepStrictEqual(after.toJS({ maxAliasCount: 100 }), expected)) {
    throw new SitesyncError(`${file}: the websites could not be added without changing something else; nothing was written (a bug in sitesync: please report it)`);
  }
  return out;
}

/** After the last item of a block list, in its style: its dash's column, a blank line between items if it has them. */
function appendAsText(text: string, seq: YAMLSeq, entries: NewEntry[]): string {
  const items = seq.items as Node[];
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const lineStart = text.lastIndexOf('\n', first.range![0] - 1) + 1;
  const dash = text.indexOf('-', lineStart);
  const indent = ' '.repeat(dash - lineStart);
  const spaced = items.length > 1 && /\n[ \t]*\n/.test(text.slice(contentEnd(first), items[1]!.range![0]));
  const rendered = entries.map((e) => {
    const piece = new Document([e.entry]);
    const item = piece.contents as YAMLSeq;
    if (e.notes.length) (item.items[0] as Node).commentBefore = e.notes.map((n) => ` ${n}`).join('\n');
    const body = piece.toString({ indent: 2, lineWidth: 0 }).replace(/\n$/, '');
    return `${spaced ? '\n' : ''}${body
      .split('\n')
      .map((l) => (l ? indent + l : l))
      .join('\n')}\n`;
  });
  // After the line the last item ends on (its own trailing comment included).
  const end = text.indexOf('\n', contentEnd(last));
  const at = end < 0 ? text.length : end + 1;
  const head = end < 0 ? `${text}\n` : text.slice(0, at);
  return `${head}${rendered.join('')}${text.slice(at)}`;
}

/** Where a node's last value ends: before comments on the lines after it (which yaml may count as the node's). */
function contentEnd(node: Node): number {
  if (isMap(node) && node.items.length) {
    const pair = node.items[node.items.length - 1]!;
    return contentEnd((pair.value ?? pair.key) as Node);
  }
  if (isSeq(node) && node.items.length && !node.flow) return contentEnd(node.items[node.items.length - 1] as Node);
  return node.range![1];
}

/** A flow list, an empty one, or none: through the Document (comments kept; the layout is yaml's). */
function appendInDocument(doc: Document.Parsed, path: string[], seq: Node | undefined, entries: NewEntry[]): string {
  const nodes = entries.map((e) => {
    const node = doc.createNode(e.entry) as Node;
    if (e.notes.length) node.commentBefore = e.notes.map((n) => ` ${n}`).join('\n');
    return node;
  });
  if (isSeq(seq)) {
    seq.flow = false;
    for (const node of nodes) seq.items.push(node);
  } else {
    const parent = doc.getIn(path.slice(0, -1), true);
    if (path.length > 1 && !isMap(parent)) throw new SitesyncError(`${path.slice(0, -1).join('.')} is not a mapping; nothing was written`);
    const list = doc.createNode([]) as YAMLSeq;
    list.items.push(...nodes);
    doc.setIn(path, list);
  }
  return doc.toString({ indent: 2, lineWidth: 0 });
}
