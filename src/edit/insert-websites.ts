/**
 * Adds website entries to a config file's text, changing nothing else: `sitesync import`.
 *
 * A file in git is read and reviewed by people, so an edit must show as the added lines alone.
 * The new entries are written by the `yaml` package in the file's own indentation and line
 * ending and inserted as text: where the `websites` list is a block list with items (the usual
 * case), after its last item. A flow list or an empty one (`[]`, nothing) is written anew as a
 * block list under its key, and a missing one after the last key of its mapping (an account
 * whose websites are in included files): only the list's own lines change, never another line
 * of the file, and every comment must still be there. Either way the result is read back, and
 * must hold exactly the old data plus the new entries, or nothing is written.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isScalar, isSeq, Lexer, parseDocument, visit, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { SitesyncError } from '../messages/errors.js';
import { yamlWithControlsEscaped } from './file-entry.js';
import { lineEnding } from './layout.js';

export interface NewWebsiteEntry {
  /** The entry as the file writes it (`domain` first); a name, in a list of names (`ignore`). */
  entry: Record<string, unknown> | string;
  /** Comment lines written above the entry. */
  notes: string[];
}

/** The `websites` list to add to: the file's own, or that of one account of an `accounts:` file. */
export type WebsitesTarget = { account?: string };

/** How the file writes a list of websites, measured on its existing items. */
export interface ListStyle {
  /** Column of each item's `-`. */
  dashCol: number;
  /** From the `-` to the item's first key (`- domain` 2, `-   domain` 4). */
  contentOffset: number;
  /** From a key to the `-` of the block list under it (0: at the key's column). */
  nestedOffset: number;
  /** Lists inside entries are written `[a, b]`. */
  flowLists: boolean;
  /** The file's indentation step, for a re-print. */
  indent: number;
  /** Flow lists are written `[ a, b ]`, not `[a, b]`. */
  flowPadding: boolean;
}

/** The lists entries are added to: the websites, or the names left alone (`import --unmanaged`'s names no entry can hold). */
export type ListKey = 'websites' | 'ignore';

export function insertWebsites(text: string, target: WebsitesTarget, entries: NewWebsiteEntry[], key: ListKey = 'websites'): string {
  const path = target.account === undefined ? [key] : ['accounts', target.account, key];
  const doc = parseDocument(text);
  if (doc.errors.length) throw new SitesyncError(`the file does not parse as YAML (${doc.errors[0]!.message.split('\n')[0]})`);
  const before = doc.toJS() as unknown;
  const list = doc.getIn(path, true) as Node | undefined;
  // New lines end as most of the file's lines do (`\r\n` in a file written on Windows).
  const eol = lineEnding(text);
  const result =
    isSeq(list) && !list.flow && list.items.length > 0
      ? insertAfterLastItem(text, doc, list as YAMLSeq, path, entries, eol)
      : writeNewList(text, doc, path, list, entries, eol);
  assertOnlyAdded(result, before, path, entries);
  return result;
}

/** The new entries as text after the list's last item, indented as its items are. */
function insertAfterLastItem(text: string, doc: Document.Parsed, list: YAMLSeq, path: string[], entries: NewWebsiteEntry[], eol: string): string {
  const style = listStyle(text, doc, list, path);
  const placed = spaced(entries.map((e) => placeEntry(entryText(e, style), style)), eol, path);
  const last = list.items.at(-1) as Node;
  const at = lineStartAfter(text, endOfItem(text, last.range![0], last.range![2], style.dashCol));
  // A blank line before each new entry, as `sitesync fmt` writes websites: the result passes `fmt --check`.
  return `${withFinalNewline(text.slice(0, at), eol)}${blankBetween(path) ? eol : ''}${placed}${eol}${text.slice(at)}`;
}

/** Items' lines, a blank line between two websites (fmt's layout; a list of names has none). */
function spaced(items: string[][], eol: string, path: string[]): string {
  return items.map((lines) => lines.join(eol)).join(blankBetween(path) ? `${eol}${eol}` : eol);
}

function blankBetween(path: string[]): boolean {
  return path.at(-1) === 'websites';
}

/** Where the line that holds `at` ends (after its newline): `at` itself when it starts a line. */
function lineStartAfter(text: string, at: number): number {
  if (at === 0 || text[at - 1] === '\n') return at;
  // Something ends mid-line (a comment after it), or the file has no final newline.
  const next = text.indexOf('\n', at);
  return next < 0 ? text.length : next + 1;
}

/** The head of a file, ending with a newline where new lines follow it (a file may end without one). */
function withFinalNewline(head: string, eol: string): string {
  return head === '' || head.endsWith('\n') ? head : `${head}${eol}`;
}

/**
 * Where an item that spans `start` to `end` (yaml's range, which runs on over the blank lines
 * and outer comments after a block mapping) ends: after its last line, and after comment lines
 * indented deeper than `dashCol` that follow (they read as part of it, e.g. a commented-out field).
 */
function endOfItem(text: string, start: number, end: number, dashCol: number): number {
  let at = end;
  if (!text.slice(0, at).endsWith('\n')) return at;
  while (at > start) {
    const lineStart = text.lastIndexOf('\n', at - 2) + 1;
    const line = text.slice(lineStart, at - 1);
    const indent = line.length - line.trimStart().length;
    if (line.trim() !== '' && !(line.trimStart().startsWith('#') && indent <= dashCol)) break;
    at = lineStart;
  }
  for (;;) {
    const eol = text.indexOf('\n', at);
    const line = text.slice(at, eol < 0 ? text.length : eol);
    const indent = line.length - line.trimStart().length;
    if (!line.trimStart().startsWith('#') || indent <= dashCol || eol < 0) return at;
    at = eol + 1;
  }
}

/** The file's way of writing the list, read from its existing items (and the rest of the file). */
export function listStyle(text: string, doc: Document.Parsed, list: YAMLSeq, path: string[]): ListStyle {
  const dashAt = list.range![0];
  const dashCol = column(text, dashAt);
  const first = list.items[0] as Node | undefined;
  const firstAt = first?.range?.[0];
  // The first key on the `-`'s own line; an item starting on the next line keeps yaml's 2.
  const sameLine = firstAt !== undefined && !text.slice(dashAt, firstAt).includes('\n');
  const contentOffset = sameLine ? Math.max(2, firstAt - dashAt) : 2;
  let nested: { offset: number } | undefined;
  let flowLists: boolean | undefined;
  for (const item of list.items) {
    if (!isMap(item)) continue;
    for (const pair of item.items) {
      if (!isSeq(pair.value) || !isScalar(pair.key) || !pair.value.range || !pair.key.range) continue;
      if (pair.value.flow) flowLists ??= true;
      else if (pair.value.items.length) {
        flowLists ??= false;
        nested ??= { offset: column(text, pair.value.range[0]) - column(text, pair.key.range[0]) };
      }
    }
  }
  const indent = indentStep(text, doc);
  // With no list inside any entry yet: as the websites list sits under its own key.
  const parent = doc.getIn(path.slice(0, -1), true) as YAMLMap | undefined;
  const key = (isMap(parent) ? parent.items.find((p) => isScalar(p.key) && p.key.value === path.at(-1)) : undefined)?.key as Node | undefined;
  const own = key?.range ? (dashCol > column(text, key.range[0]) ? indent : 0) : indent;
  return { dashCol, contentOffset, nestedOffset: nested?.offset ?? own, flowLists: flowLists ?? false, indent, flowPadding: flowPadding(text) };
}

/** The indentation step of the file: how far the first nested block map is from its key. */
function indentStep(text: string, doc: Document.Parsed): number {
  let step: number | undefined;
  visit(doc, {
    Pair(_key, pair) {
      if (step !== undefined) return visit.BREAK;
      if (isMap(pair.value) && !pair.value.flow && isScalar(pair.key) && pair.key.range && pair.value.range) {
        const d = column(text, pair.value.range[0]) - column(text, pair.key.range[0]);
        if (d > 0) step = d;
      }
      return undefined;
    },
  });
  return step ?? 2;
}

/** yaml pads flow collections (`[ a ]`) unless told otherwise; most files write `[a]`. */
function flowPadding(text: string): boolean {
  return /[[{] \S/.test(text) && !/[[{][^\s\]}]/.test(text);
}

function column(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** One new entry as a YAML mapping at column 0, its notes above it, printed by the yaml package. */
function entryText(e: NewWebsiteEntry, style: ListStyle): string {
  const doc = new Document(e.entry);
  const map = doc.contents as YAMLMap;
  withNotes(map, e.notes);
  if (style.flowLists && isMap(map)) for (const pair of map.items) if (isSeq(pair.value)) pair.value.flow = true;
  return yamlWithControlsEscaped(doc, {
    // (An entry nests nothing but lists; yaml puts an unindented list at `indent - 2`.)
    indent: style.nestedOffset > 0 ? style.nestedOffset : 2,
    indentSeq: style.nestedOffset > 0,
    flowCollectionPadding: style.flowPadding,
  });
}

/** A mapping printed at column 0 made an item of the list: its `-` and every line where the file has them. */
function placeEntry(mapping: string, style: ListStyle): string[] {
  const lines = mapping.split('\n').filter((l) => l !== '');
  const first = lines.findIndex((l) => !l.startsWith('#'));
  return lines.map((line, i) => {
    if (i < first) return `${' '.repeat(style.dashCol)}${line}`;
    if (i === first) return `${' '.repeat(style.dashCol)}-${' '.repeat(style.contentOffset - 1)}${line}`;
    return `${' '.repeat(style.dashCol + style.contentOffset)}${line}`;
  });
}

function withNotes(node: Node, notes: string[]): void {
  if (notes.length) node.commentBefore = notes.map((n) => ` ${n}`).join('\n');
}

/**
 * A flow, empty or missing list, written anew as a block list of its old items and the new
 * entries: in place of the old value (what follows it on the key's line, a comment, stays
 * there), or, missing, as `websites:` after the last key of its mapping. No other line changes.
 */
function writeNewList(text: string, doc: Document.Parsed, path: string[], list: Node | undefined, entries: NewWebsiteEntry[], eol: string): string {
  const owner = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  const whose = path.length === 1 ? 'the file' : `account ${path[1]}`;
  if (!isMap(owner) || !owner.items.length) throw new SitesyncError(`${whose} holds no keys to add websites: to`, { nothingWritten: true });
  if (owner.flow) {
    throw new SitesyncError(`${whose} is written as a flow mapping ({…}), where no block list of websites can go; write it in block style (sitesync fmt does), then import again`, { nothingWritten: true });
  }
  if (list !== undefined && !isSeq(list) && !(isScalar(list) && list.value === null)) {
    throw new SitesyncError(`the websites of ${whose} are not a list`, { nothingWritten: true });
  }
  const listKey = path.at(-1)!;
  const pair = owner.items.find((p) => isScalar(p.key) && p.key.value === listKey);
  const keyCol = column(text, ((pair ?? owner.items[0]!).key as Node).range![0]);
  const style = newListStyle(text, doc, keyCol);
  const old = isSeq(list) ? list.items.map((item) => nodeText(item as Node, style)) : [];
  const lines = spaced([...old, ...entries.map((e) => entryText(e, style))].map((item) => placeEntry(item, style)), eol, path);
  let result: string;
  if (pair && list?.range) {
    const lineEnd = text.indexOf('\n', list.range[1]);
    result = `${withoutValue(text, list.range[0], list.range[1], lineEnd)}${eol}${lines}${eol}${lineEnd < 0 ? '' : text.slice(lineEnd + 1)}`;
  } else {
    const before = listKey === 'ignore' ? lineOfFirstKey(text, owner, AFTER_IGNORE) : undefined;
    const last = owner.items.at(-1) as Pair;
    const node = (last.value ?? last.key) as Node;
    const at = before ?? lineStartAfter(text, endOfItem(text, node.range![0], node.range![2], keyCol));
    result = `${withFinalNewline(text.slice(0, at), eol)}${' '.repeat(keyCol)}${listKey}:${eol}${lines}${eol}${text.slice(at)}`;
  }
  const lost = missingComments(text, result);
  if (lost.length) {
    const error = new SitesyncError(`adding to this websites list would lose ${lost.length === 1 ? 'a comment' : `${lost.length} comments`} of the file`, { nothingWritten: true });
    error.details = [...lost.map((c) => `lost: ${c}`), 'Write websites: as a block list (one "- domain: …" per line), or add the entries by hand.'];
    throw error;
  }
  return result;
}

/** The keys a new `ignore:` goes above, as fmt orders a file's (and an account's) keys. */
const AFTER_IGNORE = ['retire', 'safety', 'archive', 'include', 'websites', 'accounts'];

/** Where the first of `keys` the mapping holds starts: its line, above the comment lines right over it; undefined when it holds none. */
function lineOfFirstKey(text: string, owner: YAMLMap, keys: string[]): number | undefined {
  const pair = owner.items.find((p) => isScalar(p.key) && keys.includes(String(p.key.value)));
  const key = pair?.key as Node | undefined;
  if (!key?.range) return undefined;
  let at = text.lastIndexOf('\n', key.range[0] - 1) + 1;
  while (at > 0) {
    const previous = text.lastIndexOf('\n', at - 2) + 1;
    if (!text.slice(previous, at).trimStart().startsWith('#')) break;
    at = previous;
  }
  return at;
}

/**
 * The file up to the end of the key's line (`lineEnd`), without the value from `start` to `end`
 * (`[]`, `[…]`, `~`, or nothing): a comment after it stays, as far from the key as it was.
 */
function withoutValue(text: string, start: number, end: number, lineEnd: number): string {
  const key = text.slice(0, start).replace(/\s+$/, '');
  const rest = text.slice(end, lineEnd < 0 ? text.length : lineEnd).replace(/\s+$/, '');
  if (rest === '') return key;
  if (/^[ \t]/.test(rest)) return `${key}${rest}`;
  // Nothing was written between the value and its comment (`websites:   # soon`): the blanks before the value stay.
  return `${key}${/[ \t]*$/.exec(text.slice(0, start))![0] || ' '}${rest}`;
}

/** How a new block list under a key at `keyCol` is written: as the file's other block lists sit under their keys. */
function newListStyle(text: string, doc: Document.Parsed, keyCol: number): ListStyle {
  const indent = indentStep(text, doc);
  let seqOffset: number | undefined;
  visit(doc, {
    Pair(_key, pair) {
      if (seqOffset !== undefined) return visit.BREAK;
      if (isSeq(pair.value) && !pair.value.flow && pair.value.items.length && isScalar(pair.key) && pair.key.range && pair.value.range) {
        seqOffset = Math.max(0, column(text, pair.value.range[0]) - column(text, pair.key.range[0]));
      }
      return undefined;
    },
  });
  const offset = seqOffset ?? indent;
  return { dashCol: keyCol + offset, contentOffset: 2, nestedOffset: offset, flowLists: false, indent, flowPadding: flowPadding(text) };
}

/** An item of an old flow list as a block mapping at column 0 (its own nested flow lists stay flow). */
function nodeText(node: Node, style: ListStyle): string {
  if (isMap(node)) node.flow = false;
  const doc = new Document();
  doc.contents = node;
  // An alias to an anchor elsewhere in the file is written as it was: its anchor is not in this piece.
  return yamlWithControlsEscaped(doc, {
    indent: style.nestedOffset > 0 ? style.nestedOffset : 2,
    indentSeq: style.nestedOffset > 0,
    flowCollectionPadding: style.flowPadding,
    verifyAliasOrder: false,
  });
}

/** The comments of `before` that `after` no longer holds (each counted as often as it occurs). */
export function missingComments(before: string, after: string): string[] {
  const left = new Map<string, number>();
  for (const c of comments(after)) left.set(c, (left.get(c) ?? 0) + 1);
  const lost: string[] = [];
  for (const c of comments(before)) {
    const n = left.get(c) ?? 0;
    if (n === 0) lost.push(c);
    else left.set(c, n - 1);
  }
  return lost;
}

function comments(text: string): string[] {
  return [...new Lexer().lex(text)].filter((token) => token.startsWith('#')).map((c) => c.trimEnd());
}

/** The safety net: the new text must read as the old data with the entries added, and nothing else. */
function assertOnlyAdded(result: string, before: unknown, path: string[], entries: NewWebsiteEntry[]): void {
  const after = parseDocument(result);
  const expected = structuredClone(before) as Record<string, unknown>;
  let holder = expected;
  for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
  const key = path.at(-1)!;
  const list = Array.isArray(holder[key]) ? (holder[key] as unknown[]) : (holder[key] = []);
  list.push(...entries.map((e) => e.entry));
  if (after.errors.length || !isDeepStrictEqual(after.toJS(), expected)) {
    throw new SitesyncError('the edited file would not read as the old one with the new websites added (a bug in sitesync)', { nothingWritten: true });
  }
}
