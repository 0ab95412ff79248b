/**
 * `sitesync fmt`: a config file in its canonical layout — keys in the schema's order, lists and
 * mappings in block style, two-space indentation, one blank line between websites — with every
 * comment, anchor, alias and scalar as written. Pure: text in, text out, through the `yaml`
 * package's Document API; nothing is written by hand. What the file means never changes: the
 * result is parsed again and compared (`formatConfig` throws rather than return another meaning).
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { readFileSync } from 'node:fs';
import { ConfigError, SitesyncError } from '../errors.js';
import { schemaPath } from '../paths.js';

interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
}

interface Schema extends SchemaNode {
  $defs: Record<string, SchemaNode>;
}

let schema: Schema | undefined;
function loadSchema(): Schema {
  schema ??= JSON.parse(readFileSync(schemaPath(), 'utf8')) as Schema;
  return schema;
}

export interface FormatOptions {
  /** Websites sorted by domain (default: the file's order). */
  sort?: boolean;
}

/** The file's text in the canonical layout. `file` names it in messages. */
export function formatConfig(text: string, file: string, options: FormatOptions = {}): string {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
  if (doc.errors.length) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const { line, col } = lines.linePos(e.pos[0]);
        return { file, line, col, message: `YAML: ${e.message.split('\n', 1)[0]!.replace(/ at line \d+, column \d+:?$/, '')}`, severity: 'error' as const };
      }),
    );
  }
  if (doc.contents === null) return text;
  const before = doc.toJS({ maxAliasCount: 100 }) as unknown;
  const root = loadSchema();
  arrange(doc, doc.contents as Node, root, root, options);
  const out = doc.toString({ indent: 2, indentSeq: true, lineWidth: 0, flowCollectionPadding: true });
  const again = parseDocument(out, { uniqueKeys: false });
  const meaning = (data: unknown) => (options.sort ? websitesSorted(data) : data);
  if (again.errors.length || !isDeepStrictEqual(meaning(again.toJS({ maxAliasCount: 100 })), meaning(before))) {
    throw new SitesyncError(`${file}: formatting would change what the file means; it was left as it is (a bug in sitesync: please report it)`);
  }
  return out;
}

/** The data with every `websites` list in domain order: what --sort may change, and sitesync ignores. */
function websitesSorted(data: unknown, key?: string): unknown {
  if (Array.isArray(data)) {
    const items = data.map((item) => websitesSorted(item));
    if (key !== 'websites') return items;
    const domain = (item: unknown) => String((item as { domain?: unknown })?.domain ?? '').toLowerCase();
    return items.sort((a, b) => (domain(a) < domain(b) ? -1 : domain(a) > domain(b) ? 1 : 0));
  }
  if (data && typeof data === 'object') {
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, websitesSorted(v, k)]));
  }
  return data;
}

function resolveRef(node: SchemaNode | undefined, root: Schema): SchemaNode | undefined {
  let current = node;
  for (let i = 0; current?.$ref && i < 10; i++) {
    const name = current.$ref.replace(/^#\/\$defs\//, '');
    current = { ...root.$defs[name], ...withoutRef(current) };
  }
  return current;
}

function withoutRef(node: SchemaNode): SchemaNode {
  const { $ref: _ref, ...rest } = node;
  return rest;
}

/** Orders, unfolds and spaces `node` (which the schema describes as `spec`), in place. */
function arrange(doc: Document, node: Node, spec: SchemaNode | undefined, root: Schema, options: FormatOptions, key?: string): void {
  if (isAlias(node)) return; // the anchored node is arranged where it is defined
  const here = resolveRef(spec, root);
  if (isMap(node)) {
    unfold(node);
    const order = Object.keys(here?.properties ?? {});
    const rank = (pair: Pair) => {
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      const i = order.indexOf(name);
      return i < 0 ? order.length : i;
    };
    // A stable sort: unknown keys keep their order, after the known ones.
    const sorted = node.items.map((pair, i) => ({ pair, i })).sort((a, b) => rank(a.pair) - rank(b.pair) || a.i - b.i);
    if (node === doc.contents) keepHeader(doc, node, sorted[0]?.pair);
    node.items = sorted.map((s) => s.pair);
    for (const pair of node.items) {
      if (!isPair(pair) || !pair.value) continue;
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      const child =
        here?.properties?.[name] ?? (typeof here?.additionalProperties === 'object' ? here.additionalProperties : undefined);
      arrange(doc, pair.value as Node, child, root, options, name);
    }
    return;
  }
  if (isSeq(node)) {
    unfold(node);
    const items = resolveRef(here?.items, root);
    if (key === 'websites') {
      if (options.sort) sortByDomain(node.items as Node[]);
      node.items.forEach((item, i) => {
        // One blank line between websites, none before the first.
        if (isMap(item) || isAlias(item)) (item as Node).spaceBefore = i > 0;
      });
    }
    for (const item of node.items) if (item) arrange(doc, item as Node, items, root, options);
  }
}

/** A non-empty flow collection in block style; a comment after it (`[a, b]  # why`) is about it, and goes above its items. */
function unfold(node: YAMLMap | YAMLSeq): void {
  if (!node.items.length || !node.flow) return;
  node.flow = false;
  if (node.comment) {
    node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${node.comment}` : node.comment;
    node.comment = undefined;
  }
}

/**
 * Pairs keep their own comments when they move, but the file's header (a comment above the first
 * key, such as the `yaml-language-server: $schema=` line) stays at the top of the file.
 */
function keepHeader(doc: Document, map: YAMLMap, newFirst: Pair | undefined): void {
  const first = map.items[0];
  if (!first || first === newFirst || !isScalar(first.key) || !first.key.commentBefore) return;
  doc.commentBefore = doc.commentBefore ? `${doc.commentBefore}\n${first.key.commentBefore}` : first.key.commentBefore;
  first.key.commentBefore = undefined;
}

function sortByDomain(items: Node[]): void {
  const domainOf = (item: Node) => {
    if (!isMap(item)) return '';
    const pair = item.items.find((p) => isScalar(p.key) && p.key.value === 'domain');
    return isScalar(pair?.value) ? String(pair.value.value).toLowerCase() : '';
  };
  const sorted = items.map((item, i) => ({ item, i, d: domainOf(item) })).sort((a, b) => (a.d < b.d ? -1 : a.d > b.d ? 1 : a.i - b.i));
  items.splice(0, items.length, ...sorted.map((s) => s.item));
}
