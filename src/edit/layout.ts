/**
 * `sitesync fmt`'s layout, pure: YAML text in, the same content in the canonical layout out.
 *
 * The canonical layout: keys in the schema's `properties` order (unknown keys after the known
 * ones, in their order), every list and mapping in block style, two-space indentation, one
 * blank line between websites. Everything else is kept: comments (they travel with the key or
 * item they are written above or beside), scalar styles and values (`"quoted"` stays quoted,
 * `${NAME}` untouched), anchors and aliases, blank lines between top-level sections.
 *
 * The rewriting is done on the `yaml` package's Document, never on text: what comes out is
 * yaml's own printing of the same nodes, so it means what the input meant.
 */
import { readFileSync } from 'node:fs';
import {
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  visit,
  type Alias,
  type Document,
  type LineCounter,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { ConfigError, type Diagnostic } from '../messages/errors.js';
import { schemaPath } from '../io/paths.js';
import { readDocument, yamlErrors } from '../config/document.js';
import { passwordSource } from '../config/interpolate.js';

/** The part of a JSON Schema the layout follows: which keys exist, in which order, and what is under them. */
export interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode | boolean;
  $defs?: Record<string, SchemaNode>;
}

export interface FormatOptions {
  /** The file's name, for error positions. */
  file: string;
  /** Also sort each `websites:` list by domain. */
  sort?: boolean;
  /** The schema whose `properties` order the keys follow; sitesync's own by default. */
  schema?: SchemaNode;
}

export interface Formatted {
  text: string;
  /**
   * Every `password:` value of the file written in clear, wherever it stands (a website's, or one
   * a file's author put under `defaults:` or an account by mistake): fmt shows none of them.
   */
  passwords: string[];
  /** What `--sort` left in its order, and why (an alias would end up above its anchor). */
  notSorted?: NotSorted;
}

export interface NotSorted {
  /** `its websites`, or `the websites of account acme` (of a file with accounts). */
  lists: string;
  why: string;
}

const PRINT_OPTIONS = { indent: 2, indentSeq: true, lineWidth: 0, minContentWidth: 0 } as const;

let ownSchema: SchemaNode | undefined;

/** sitesync's schema: the one list of keys and their order (read once; it ships with the package). */
export function sitesyncSchema(): SchemaNode {
  return (ownSchema ??= JSON.parse(readFileSync(schemaPath(), 'utf8')) as SchemaNode);
}

/**
 * The text in the canonical layout, or a ConfigError (FILE:LINE:COL) when it is not YAML.
 * Formatting its own output changes nothing.
 */
export function formatConfigText(text: string, options: FormatOptions): Formatted {
  const { doc, lines } = parseYaml(text, options.file);
  const linePos = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return { line, col };
  };
  const root = options.schema ?? sitesyncSchema();
  if (doc.contents === null) return { text, passwords: [] };

  const aliasTargets = new Map<Alias, unknown>();
  visit(doc, { Alias: (_, alias) => void aliasTargets.set(alias, alias.resolve(doc)) });
  const unresolved = [...aliasTargets].filter(([, target]) => target === undefined);
  if (unresolved.length) {
    throw new ConfigError(
      unresolved.map(([alias]) => ({
        file: options.file,
        ...linePos(alias.range?.[0] ?? 0),
        message: `YAML: the alias *${alias.source} names no anchor before it (write &${alias.source} on a value above)`,
        severity: 'error' as const,
      })),
    );
  }

  const layout = new Layout(root, options.sort === true);
  layout.node(doc.contents, root, undefined);
  keepHeaderOnTop(doc, layout);
  // A reordering that would put an alias before its anchor (or make it name another node) is
  // held back: first that of keys, where anchors or aliases sit in more than one of them; then,
  // if an alias still moved, --sort's, whole (a list sorted but for some items is not sorted).
  const moved = () => [...aliasTargets].filter(([alias, target]) => alias.resolve(doc) !== target).map(([alias, target]) => ({ alias, target }));
  let notSorted: NotSorted | undefined;
  if (moved().length) layout.keepAnchorsFirst((c) => isMap(c));
  const stillMoved = moved();
  if (stillMoved.length) notSorted = notSortedOf(doc, layout.unsortWebsites(stillMoved));
  if (stillMoved.length && moved().length) layout.keepAnchorsFirst(() => true);
  // Only now, with every list in its final order: a blank line before each website but the first.
  layout.spaceWebsites();

  let out: string;
  try {
    out = doc.toString(PRINT_OPTIONS);
  } catch (error) {
    // The yaml package could not write a value back (a `!!binary` value, for one).
    const message = `the file cannot be laid out: the yaml package fails to write one of its values back (${(error as Error).message}); it is left as it is`;
    throw new ConfigError([{ file: options.file, line: 0, col: 0, message, severity: 'error' }]);
  }
  // yaml writes `\n`; a file written with `\r\n` keeps them.
  const formatted: Formatted = { text: withLineEnding(out, lineEnding(text)), passwords: passwordsInClear(doc) };
  if (notSorted) formatted.notSorted = notSorted;
  return formatted;
}

/** What --sort left unsorted, named as the user knows it: the file's websites, or those of an account. */
function notSortedOf(doc: Document.Parsed, unsorted: { list: YAMLSeq; why: string }[]): NotSorted | undefined {
  if (!unsorted.length) return undefined;
  const accounts = isMap(doc.contents) ? doc.contents.get('accounts', true) : undefined;
  const names = unsorted.map(({ list }) => {
    const pair = isMap(accounts) ? accounts.items.find((p) => isMap(p.value) && (p.value.get('websites', true) as unknown) === list) : undefined;
    return pair ? keyName(pair) : undefined;
  });
  const named = names.filter((n): n is string => n !== undefined);
  const lists = named.length === 0 ? 'its websites' : `the websites of account${named.length > 1 ? 's' : ''} ${named.join(' and ')}`;
  return { lists, why: unsorted[0]!.why };
}

/** The line ending most of the text's lines end with: `\r\n` (a file written on Windows) or `\n`. */
export function lineEnding(text: string): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
    if (text[at - 1] === '\r') crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/** Text written with `\n` (as yaml writes it), with `eol` at the end of every line instead. */
export function withLineEnding(text: string, eol: '\n' | '\r\n'): string {
  return eol === '\n' ? text : text.replace(/\r?\n/g, eol);
}

function parseYaml(text: string, file: string): { doc: Document.Parsed; lines: LineCounter } {
  const read = readDocument(text);
  const fail = (diagnostics: Diagnostic[]): never => {
    throw new ConfigError(diagnostics);
  };
  if (read.refused) fail([{ file, ...read.lines.linePos(read.refused.offset), message: read.refused.message, severity: 'error' }]);
  const doc = read.doc!;
  if (doc.errors.length) {
    fail(yamlErrors(doc, read.lines, file));
  }
  return { doc, lines: read.lines };
}

/** A collection whose items were reordered, with the order it had. */
interface Reordered {
  collection: YAMLMap | YAMLSeq;
  before: unknown[];
}

class Layout {
  readonly reordered: Reordered[] = [];

  constructor(
    private readonly root: SchemaNode,
    private readonly sort: boolean,
  ) {}

  /** Lays out `node`, which `schema` describes (undefined: not known to it), found under `key`. */
  node(node: unknown, schema: SchemaNode | undefined, key: string | undefined): void {
    if (!isCollection(node)) return;
    // An empty list or mapping stays `[]` / `{}`: YAML has no block form of nothing.
    if (node.flow && node.items.length > 0) {
      node.flow = false;
      // A comment beside a flow collection (`protect: [a]  # why`) would land below its last
      // item once it is a block; above the first item it stays with what it is about.
      if (node.comment) {
        node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${node.comment}` : node.comment;
        node.comment = undefined;
      }
    }
    const known = this.resolve(schema);
    if (isMap(node)) {
      this.orderKeys(node, known);
      for (const pair of node.items) {
        const name = keyName(pair);
        this.node(pair.value, name === undefined ? undefined : this.childOf(known, name), name);
      }
    } else {
      for (const item of node.items) if (isMap(item)) this.inSequence.add(item);
      if (key === 'websites') this.websites(node);
      const items = known && typeof known.items === 'object' ? known.items : undefined;
      for (const item of node.items) this.node(item, items, undefined);
    }
  }

  /** Known keys first in the schema's order, then the others in theirs (a stable sort). */
  private orderKeys(map: YAMLMap, schema: SchemaNode | undefined): void {
    const order = Object.keys(schema?.properties ?? {});
    if (order.length === 0) return;
    const rank = (pair: Pair) => {
      const i = order.indexOf(keyName(pair) ?? '');
      return i < 0 ? order.length : i;
    };
    const sorted = [...map.items].sort((a, b) => rank(a) - rank(b));
    if (sorted.every((pair, i) => pair === map.items[i])) return;
    // A comment above the first key of a nested mapping is the mapping's: give it to that key,
    // so that it moves with it.
    const first = map.items[0];
    if (map.commentBefore && first && isScalar(first.key) && !this.inSequence.has(map)) {
      first.key.commentBefore = first.key.commentBefore ? `${map.commentBefore}\n${first.key.commentBefore}` : map.commentBefore;
      map.commentBefore = undefined;
    }
    this.reordered.push({ collection: map, before: [...map.items] });
    map.items = sorted;
  }

  /** Mappings that are items of a list: a comment above one belongs to the item, not its first key. */
  private readonly inSequence = new WeakSet<object>();

  /** Every `websites:` list laid out: spaced once all reordering is done. */
  private readonly websiteLists: YAMLSeq[] = [];

  /** Websites lists --sort reordered, with the order they had. */
  private readonly sorted: Reordered[] = [];

  /** Sorted by domain with --sort. */
  private websites(seq: YAMLSeq): void {
    this.websiteLists.push(seq);
    if (!this.sort) return;
    const sorted = [...seq.items].sort((a, b) => compareText(domainOf(a), domainOf(b)));
    if (sorted.every((item, i) => item === seq.items[i])) return;
    // A comment above the first item is held by the list: give it to that item so that it moves with it.
    const first = seq.items[0] as Node | undefined;
    if (seq.commentBefore && first && (isCollection(first) || isScalar(first))) {
      first.commentBefore = first.commentBefore ? `${seq.commentBefore}\n${first.commentBefore}` : seq.commentBefore;
      seq.commentBefore = undefined;
    }
    this.sorted.push({ collection: seq, before: [...seq.items] });
    seq.items = sorted;
  }

  /**
   * One blank line between websites, none before the first (yaml writes a blank line before a
   * first item as a line of indentation, which a second run would remove).
   */
  spaceWebsites(): void {
    for (const seq of this.websiteLists) {
      seq.items.forEach((item, i) => {
        if (isCollection(item) || isScalar(item) || isAlias(item)) item.spaceBefore = i > 0;
      });
    }
  }

  /**
   * Puts back in their order the sorted websites lists that hold an alias `moved` lists or its
   * anchor, each with why: sorting it would put an alias above its anchor.
   */
  unsortWebsites(moved: { alias: Alias; target: unknown }[]): { list: YAMLSeq; why: string }[] {
    const unsorted: { list: YAMLSeq; why: string }[] = [];
    for (const { collection, before } of this.sorted) {
      const holder = (node: unknown) => collection.items.find((item) => item === node || (isCollection(item) && contains(item, node)));
      const broken = moved.find(({ alias, target }) => holder(alias) || holder(target));
      if (!broken) continue;
      collection.items = before as never;
      const user = holder(broken.alias);
      const anchor = holder(broken.target);
      const why =
        user && anchor
          ? `${domainOf(user, false) ?? 'a website'} uses *${broken.alias.source}, whose anchor is in ${domainOf(anchor, false) ?? 'a website'}, and an alias must stay below its anchor; anchor the value in the website that sorts first to sort them`
          : `the alias *${broken.alias.source} must stay below its anchor`;
      unsorted.push({ list: collection as YAMLSeq, why });
    }
    return unsorted;
  }

  /**
   * In every reordered collection (that `which` takes) with anchors or aliases in more than one
   * item, those items keep their first order among themselves (in the places the sort gave such
   * items): an anchor then still comes before its aliases. The other items stay where the sort
   * put them.
   */
  keepAnchorsFirst(which: (collection: YAMLMap | YAMLSeq) => boolean): void {
    for (const { collection, before } of [...this.reordered, ...this.sorted]) {
      if (!which(collection)) continue;
      const involved = (item: unknown) => (isPair(item) ? holdsAnchorOrAlias(item.key) || holdsAnchorOrAlias(item.value) : holdsAnchorOrAlias(item));
      const inFirstOrder = before.filter(involved);
      if (inFirstOrder.length < 2) continue;
      let next = 0;
      collection.items = collection.items.map((item) => (involved(item) ? inFirstOrder[next++] : item)) as never;
    }
  }

  /** Follows `$ref`s (local ones, `#/$defs/NAME`) to the node that says what is there. */
  private resolve(schema: SchemaNode | undefined): SchemaNode | undefined {
    for (let hops = 0; schema?.$ref && hops < 32; hops++) {
      const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1];
      schema = name ? this.root.$defs?.[name] : undefined;
    }
    return schema;
  }

  private childOf(schema: SchemaNode | undefined, key: string): SchemaNode | undefined {
    const child = schema?.properties?.[key] ?? schema?.additionalProperties;
    return typeof child === 'object' ? child : undefined;
  }
}

/**
 * The comment at the top of the file (the yaml-language-server line, a header) stays at the
 * top when the first key moves: yaml gives it to the first key when no blank line follows it.
 */
function keepHeaderOnTop(doc: Document.Parsed, layout: Layout): void {
  const top = doc.contents;
  if (!isMap(top)) return;
  const moved = layout.reordered.find((r) => r.collection === top);
  const first = moved?.before[0] as Pair | undefined;
  if (!moved || !first || first === top.items[0] || !isScalar(first.key) || !first.key.commentBefore) return;
  doc.commentBefore = doc.commentBefore ? `${doc.commentBefore}\n${first.key.commentBefore}` : first.key.commentBefore;
  first.key.commentBefore = undefined;
}

/** Every `password:` value anywhere in the document that is not only a `${NAME}` reference. */
function passwordsInClear(doc: Document.Parsed): string[] {
  const found: string[] = [];
  visit(doc, {
    Pair: (_, pair) => {
      if (keyName(pair as Pair) !== 'password' || !isScalar(pair.value)) return;
      const value = pair.value.value;
      if (typeof value === 'string' && passwordSource(value).clear) found.push(value);
    },
  });
  return found;
}

function keyName(pair: Pair): string | undefined {
  return isScalar(pair.key) && typeof pair.key.value === 'string' ? pair.key.value : undefined;
}

/** The domain an item of a websites list names (lower-cased: the sort's key), if it is a mapping with one. */
function domainOf(item: unknown, lower = true): string | undefined {
  if (!isMap(item)) return undefined;
  const domain = item.get('domain', true);
  if (!isScalar(domain) || typeof domain.value !== 'string') return undefined;
  return lower ? domain.value.toLowerCase() : domain.value;
}

/** Whether `node` is somewhere inside `collection`. */
function contains(collection: YAMLMap | YAMLSeq, node: unknown): boolean {
  let found = false;
  visit(collection, {
    Node: (_, n) => {
      if (n !== node) return undefined;
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/** By code point, the same on every machine (no locale); entries without a domain last, in their order. */
function compareText(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function holdsAnchorOrAlias(node: unknown): boolean {
  if (isAlias(node)) return true;
  if (!isCollection(node) && !isScalar(node)) return false;
  if (node.anchor) return true;
  let found = false;
  if (isCollection(node)) {
    visit(node, {
      Node: (_, n) => {
        if (isAlias(n) || n.anchor) {
          found = true;
          return visit.BREAK;
        }
        return undefined;
      },
    });
  }
  return found;
}
