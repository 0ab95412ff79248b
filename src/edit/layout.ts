/**
 * `sitesync fmt`'s layout, pure: keys in the schema's order (unknown keys last), block style, two
 * spaces, a blank line between websites; comments move with their key or item. yaml's Document is
 * rewritten and printed by yaml, never the text: the same nodes, meaning the same. A value with a
 * control or invisible character is written double-quoted with `\u` escapes, as export writes it: a review sees it.
 */
import { readFileSync } from 'node:fs';
import { isAlias, isCollection, isMap, isScalar, visit, type Alias, type Document, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { ConfigError, refuseFile } from '../messages/errors.js';
import { schemaPath } from '../io/paths.js';
import { readDocument, type YamlDocument } from '../config/document.js';
import { passwordSource } from '../config/interpolate.js';
import type { SchemaNode } from '../schema/errors.js';
import { yamlWithControlsEscaped } from './file-entry.js';

export interface Formatted {
  text: string;
  /** Every `password:` value written in clear, wherever it stands (`defaults:` too, by mistake), and as spelt: fmt shows none. */
  passwords: string[];
  /** What `--sort` left in its order (`its websites`, `the websites of account acme`), and why (an alias would end up above its anchor). */
  notSorted?: { lists: string; why: string };
}

let ownSchema: SchemaNode | undefined;
export const sitesyncSchema = (): SchemaNode => (ownSchema ??= JSON.parse(readFileSync(schemaPath(), 'utf8')) as SchemaNode);

/** The text in the canonical layout (which it keeps as it is; `sort`: each websites list by domain too), or a ConfigError at FILE:LINE:COL. */
export function formatConfigText(text: string, options: { file: string; sort?: boolean }, { doc, lines }: YamlDocument = readDocument(text, options.file)): Formatted {
  if (doc.contents === null) return { text, passwords: [] };

  const targets = new Map<Alias, unknown>();
  visit(doc, { Alias: (_, alias) => void targets.set(alias, alias.resolve(doc)) });
  const unresolved = [...targets.keys()].filter((alias) => targets.get(alias) === undefined);
  if (unresolved.length) {
    const why = (alias: Alias) => `YAML: the alias *${alias.source} names no anchor before it (write &${alias.source} on a value above)`;
    throw new ConfigError(unresolved.map((alias) => ({ file: options.file, ...lines.linePos(alias.range![0]), message: why(alias), severity: 'error' as const })));
  }

  const layout = layOut(doc, sitesyncSchema(), options.sort === true);
  // A reordering that would put an alias before its anchor (or make it name another node) is held
  // back: that of keys first; if an alias still moved, --sort's, whole (a list half sorted is not).
  const moved = () => [...targets].filter(([alias, target]) => alias.resolve(doc) !== target);
  if (moved().length) keepAnchorsFirst(layout.keys);
  const notSorted = unsortWebsites(doc, layout.sorted, moved());
  // With every list in its final order: a blank line before each website but the first (before
  // a first item yaml writes it as a line of indentation, which a second run would remove).
  for (const seq of layout.lists) seq.items.forEach((item, i) => ((item as Node).spaceBefore = i > 0));

  let out: string;
  try {
    out = yamlWithControlsEscaped(doc, { indent: 2, indentSeq: true, minContentWidth: 0 });
  } catch (error) {
    const message = `the file cannot be laid out: the yaml package fails to write one of its values back (${(error as Error).message}); it is left as it is`;
    refuseFile(options.file, message);
  }
  // yaml writes `\n`; a file written with `\r\n` keeps them.
  const eol = lineEnding(text);
  return { text: eol === '\n' ? out : out.replace(/\r?\n/g, eol), passwords: passwordsInClear(doc, text), ...(notSorted ? { notSorted } : {}) };
}

/** The line ending most of the text's lines end with: `\r\n` (a file written on Windows) or `\n`. */
export function lineEnding(text: string): '\n' | '\r\n' {
  const crlf = text.split('\r\n').length - 1;
  return crlf > text.split('\n').length - 1 - crlf ? '\r\n' : '\n';
}

type Reordered = { collection: YAMLMap | YAMLSeq; before: unknown[] };

/** The document laid out: the mappings whose keys it reordered, the websites lists it sorted, and every websites list. */
function layOut(doc: Document.Parsed, root: SchemaNode, sort: boolean): { keys: Reordered[]; sorted: Reordered[]; lists: YAMLSeq[] } {
  const done = { keys: [] as Reordered[], sorted: [] as Reordered[], lists: [] as YAMLSeq[] };
  /** Follows `$ref`s (local ones, `#/$defs/NAME`, `#/properties/NAME`) to the node that says what is there. */
  const resolve = (schema: SchemaNode | undefined) => {
    for (let hops = 0; schema?.$ref && hops < 32; hops++) {
      const [, where, name] = /^#\/(\$defs|properties)\/(.+)$/.exec(schema.$ref) ?? [];
      schema = where && name ? root[where as '$defs' | 'properties']?.[name] : undefined;
    }
    return schema;
  };
  /** Lays out `node`, which `schema` describes (if known to it), found under `key` or as an item of a list. */
  const layOutNode = (node: unknown, schema: SchemaNode | undefined, key: string | undefined, inList: boolean): void => {
    if (!isCollection(node)) return;
    // An empty list or mapping stays `[]` / `{}`: YAML has no block form of nothing.
    if (node.flow && node.items.length > 0) {
      node.flow = false;
      // A comment beside a flow collection (`protect: [a]  # why`) would land below its last item.
      node.commentBefore = joined(node.commentBefore, node.comment);
      node.comment = undefined;
    }
    const known = resolve(schema);
    if (isMap(node)) {
      const order = new Map(Object.keys(known?.properties ?? {}).map((name, i) => [name, i]));
      const rank = (pair: Pair) => order.get(keyName(pair) ?? '') ?? order.size;
      // A comment above the first key of a nested mapping is the mapping's (one above a list's item, the item's).
      const first = node.items[0]?.key;
      if (order.size) reorder(node, [...node.items].sort((a, b) => rank(a) - rank(b)), done.keys, isScalar(first) && !inList ? first : undefined);
      // The file's header (the yaml-language-server line) stays on top: yaml gives it to the first key when no blank line follows.
      if (node === doc.contents && isScalar(first) && first.commentBefore && node.items[0]?.key !== first) {
        doc.commentBefore = joined(doc.commentBefore, first.commentBefore);
        first.commentBefore = undefined;
      }
      for (const pair of node.items) {
        const name = keyName(pair);
        const child = name === undefined ? undefined : (known?.properties?.[name] ?? known?.additionalProperties);
        layOutNode(pair.value, typeof child === 'object' ? child : undefined, name, false);
      }
    } else {
      if (key === 'websites') done.lists.push(node);
      if (key === 'websites' && sort) {
        const sorted = [...node.items].sort((a, b) => compareDomains(domainOf(a)?.toLowerCase(), domainOf(b)?.toLowerCase()));
        reorder(node, sorted, done.sorted, node.items[0] as Node | undefined);
      }
      const items = known && typeof known.items === 'object' ? known.items : undefined;
      for (const item of node.items) layOutNode(item, items, undefined, true);
    }
  };
  layOutNode(doc.contents, root, undefined, false);
  return done;
}

/** Puts back in their order the sorted websites lists that hold an alias of `moved` or its anchor: which, as the user names them, and why. */
function unsortWebsites(doc: Document.Parsed, sorted: Reordered[], moved: [Alias, unknown][]): Formatted['notSorted'] {
  const unsorted: unknown[] = [];
  let why = '';
  for (const { collection, before } of sorted) {
    const holder = (node: unknown) => collection.items.find((item) => holds(item, (n) => n === node));
    const broken = moved.map(([alias, target]) => [alias, holder(alias), holder(target)] as const).find(([, user, anchor]) => user || anchor);
    if (!broken) continue;
    collection.items = before as never;
    unsorted.push(collection);
    const [alias, user, anchor] = broken;
    why ||=
      user && anchor
        ? `${domainOf(user) ?? 'a website'} uses *${alias.source}, whose anchor is in ${domainOf(anchor) ?? 'a website'}, and an alias must stay below its anchor; anchor the value in the website that sorts first to sort them`
        : `the alias *${alias.source} must stay below its anchor`;
  }
  if (!unsorted.length) return undefined;
  const accounts = doc.get('accounts', true);
  const ofAccount = (pair: Pair) => isMap(pair.value) && unsorted.includes((pair.value as YAMLMap).get('websites', true));
  const named = isMap(accounts) ? accounts.items.filter(ofAccount).flatMap((pair) => keyName(pair) ?? []) : [];
  const lists = named.length === 0 ? 'its websites' : `the websites of account${named.length > 1 ? 's' : ''} ${named.join(' and ')}`;
  return { lists, why };
}

/** In each reordered collection, the items that hold anchors or aliases take the places the sort gave them in their first order: an anchor stays above its aliases. */
function keepAnchorsFirst(reordered: Reordered[]): void {
  const involved = (item: unknown) => holds(item, (n) => isAlias(n) || Boolean(n.anchor));
  for (const { collection, before } of reordered) {
    const inFirstOrder = before.filter(involved);
    if (inFirstOrder.length < 2) continue;
    let next = 0;
    collection.items = collection.items.map((item) => (involved(item) ? inFirstOrder[next++] : item)) as never;
  }
}

/** The items in the `sorted` order, recorded in `log`; the comment above the first item (yaml gives it the collection) goes to `holder`, to move with it. */
function reorder(collection: YAMLMap | YAMLSeq, sorted: unknown[], log: Reordered[], holder: Node | undefined): void {
  if (sorted.every((item, i) => item === collection.items[i])) return;
  if (collection.commentBefore && holder && !isAlias(holder)) {
    holder.commentBefore = joined(collection.commentBefore, holder.commentBefore);
    collection.commentBefore = undefined;
  }
  log.push({ collection, before: [...collection.items] });
  collection.items = sorted as never;
}

function joined(first: string | null | undefined, second: string | null | undefined): string | null {
  return first && second ? `${first}\n${second}` : first || second || null;
}

/** Every `password:` value anywhere in the document that is not only a `${NAME}` reference, and its spelling in `text` (`"\x70…"`). */
function passwordsInClear(doc: Document.Parsed, text: string): string[] {
  const found: string[] = [];
  visit(doc, {
    Pair: (_, pair) => {
      const value = isScalar(pair.value) ? pair.value.value : undefined;
      if (keyName(pair as Pair) !== 'password' || typeof value !== 'string' || !passwordSource(value).clear) return;
      found.push(value, text.slice((pair.value as Node).range![0], (pair.value as Node).range![1]));
    },
  });
  return found;
}

export function keyName(pair: Pair): string | undefined {
  return isScalar(pair.key) && typeof pair.key.value === 'string' ? pair.key.value : undefined;
}

function domainOf(item: unknown): string | undefined {
  const domain = isMap(item) ? item.get('domain', true) : undefined;
  return isScalar(domain) && typeof domain.value === 'string' ? domain.value : undefined;
}

/** Whether `node` or a node inside it passes `test`. */
function holds(node: unknown, test: (n: Node) => boolean): boolean {
  let found = false;
  visit(node as Node, { Node: (_, n) => ((found = test(n)) ? visit.BREAK : undefined) });
  return found;
}

/** By code point, the same on every machine (no locale); entries without a domain last, in their order. */
function compareDomains(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
