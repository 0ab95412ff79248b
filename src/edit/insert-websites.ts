/**
 * `sitesync import`'s edit: entries added to a config file's text, nothing else changed (people
 * review the diff). yaml prints them in the file's indentation and line ending, after the list's
 * last item; a flow, empty or missing list is written anew as a block list, its comments kept.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isScalar, isSeq, Lexer, parseDocument, visit, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { SitesyncError } from '../messages/errors.js';
import { yamlWithControlsEscaped, type FileEntry } from './file-entry.js';
import { keyName, lineEnding, sitesyncSchema } from './layout.js';

/** An entry as fileEntry makes it (or a name, in a list of names: `ignore`), its notes written above it. */
export type NewWebsiteEntry = { entry: FileEntry['entry'] | string; notes: string[] };

interface ListStyle {
  dashCol: number;
  /** From the `-` to the item's first key (`- domain` 2, `-   domain` 4). */
  contentOffset: number;
  /** From a key to the `-` of the block list under it (0: at the key's column). */
  nestedOffset: number;
  /** Lists inside entries are written `[a, b]`. */
  flowLists: boolean;
  /** Flow lists are written `[ a, b ]`, not `[a, b]`. */
  flowPadding: boolean;
}

/** Into the file's own list, or that of `account` of an `accounts:` file; `key`: `websites`, or `ignore` (`import --unmanaged`'s names no entry can hold). */
export function insertWebsites(text: string, account: string | undefined, entries: NewWebsiteEntry[], key: 'websites' | 'ignore' = 'websites'): string {
  const path = account === undefined ? [key] : ['accounts', account, key];
  const doc = parseDocument(text);
  if (doc.errors.length) throw new SitesyncError(`the file does not parse as YAML (${doc.errors[0]!.message.split('\n')[0]})`);
  const owner = doc.getIn(path.slice(0, -1), true);
  const whose = path.length === 1 ? 'the file' : `account ${path[1]}`;
  const refused = (message: string) => new SitesyncError(message, { nothingWritten: true });
  if (!isMap(owner) || !owner.items.length) throw refused(`${whose} holds no keys to add websites: to`);
  if (owner.flow) throw refused(`${whose} is written as a flow mapping ({…}), where no block list of websites can go; write it in block style (sitesync fmt does), then import again`);
  const pair = owner.items.find((p) => keyName(p) === key);
  const list = pair?.value as Node | undefined;
  if (list !== undefined && !isSeq(list) && !(isScalar(list) && list.value === null)) throw refused(`the websites of ${whose} are not a list`);
  const keyCol = column(text, ((pair ?? owner.items[0]!).key as Node).range![0]);
  const eol = lineEnding(text);
  // A blank line before each new website, as `sitesync fmt` writes them: the result passes `fmt --check`.
  const blank = key === 'websites';
  const block = isSeq(list) && !list.flow && list.items.length > 0 ? list : undefined;
  const style = listStyle(text, doc, block, keyCol);
  const old = isSeq(list) && !block ? list.items.map((item) => itemText(item, style)) : [];
  const lines = listLines([...old, ...entries.map((e) => itemText(e.entry, style, e.notes))], style, eol, blank);
  let result: string;
  if (block) {
    result = insertAt(text, lineAfter(text, block.items.at(-1) as Node, style.dashCol), `${blank ? eol : ''}${lines}`, eol);
  } else if (pair && list?.range) {
    const lineEnd = text.indexOf('\n', list.range[1]);
    result = `${withoutValue(text, list.range[0], list.range[1], lineEnd)}${eol}${lines}${eol}${lineEnd < 0 ? '' : text.slice(lineEnd + 1)}`;
  } else {
    const last = owner.items.at(-1) as Pair;
    const at = (key === 'ignore' ? lineOfIgnore(text, owner) : undefined) ?? lineAfter(text, (last.value ?? last.key) as Node, keyCol);
    result = insertAt(text, at, `${' '.repeat(keyCol)}${key}:${eol}${lines}`, eol);
  }
  const lost = block ? [] : missingComments(text, result);
  if (lost.length) {
    const error = refused(`adding to this websites list would lose ${lost.length === 1 ? 'a comment' : `${lost.length} comments`} of the file`);
    error.details = [...lost.map((c) => `lost: ${c}`), 'Write websites: as a block list (one "- domain: …" per line), or add the entries by hand.'];
    throw error;
  }
  // The safety net: the new text must read as the old data with the entries added, and nothing else.
  if (!isSeq(list)) doc.setIn(path, doc.createNode([]));
  for (const { entry } of entries) doc.addIn(path, entry);
  const after = parseDocument(result);
  if (after.errors.length || !isDeepStrictEqual(after.toJS(), doc.toJS())) throw refused('the edited file would not read as the old one with the new websites added (a bug in sitesync)');
  return result;
}

/** The text with `lines` and a line end inserted at `at`: a line's start, or the end of a file with no final newline. */
function insertAt(text: string, at: number, lines: string, eol: string): string {
  const head = text.slice(0, at);
  return `${head === '' || head.endsWith('\n') ? head : `${head}${eol}`}${lines}${eol}${text.slice(at)}`;
}

/**
 * Where the line after `node` starts: yaml's range runs on over the blank lines and comments after
 * a block mapping, but the comments indented deeper than `col` are its own (a commented-out field).
 */
function lineAfter(text: string, node: Node, col: number): number {
  const [start, , end] = node.range!;
  const indent = (line: string) => line.length - line.trimStart().length;
  let at = end;
  if (text[at - 1] === '\n') {
    while (at > start) {
      const lineStart = text.lastIndexOf('\n', at - 2) + 1;
      const line = text.slice(lineStart, at - 1);
      if (line.trim() !== '' && !(line.trimStart().startsWith('#') && indent(line) <= col)) break;
      at = lineStart;
    }
    const ownComment = (line: string) => line.trimStart().startsWith('#') && indent(line) > col;
    for (let next = text.indexOf('\n', at); next >= 0 && ownComment(text.slice(at, next)); next = text.indexOf('\n', at)) at = next + 1;
  }
  if (at === 0 || text[at - 1] === '\n') return at;
  // Something ends mid-line (a comment after it), or the file has no final newline.
  const next = text.indexOf('\n', at);
  return next < 0 ? text.length : next + 1;
}

/** The file's way of writing `list` (a block list with items), or a new block list under a key at `keyCol`. */
function listStyle(text: string, doc: Document.Parsed, list: YAMLSeq | undefined, keyCol: number): ListStyle {
  const flowPadding = /[[{] \S/.test(text) && !/[[{][^\s\]}]/.test(text);
  // The indentation step of the file: how far the first nested block map is from its key.
  const indent = nested(text, doc, (value, offset) => isMap(value) && !value.flow && offset > 0)?.offset ?? 2;
  if (!list) {
    // As the file's other block lists sit under their keys.
    const offset = Math.max(0, nested(text, doc, (value) => isSeq(value) && !value.flow && value.items.length > 0)?.offset ?? indent);
    return { dashCol: keyCol + offset, contentOffset: 2, nestedOffset: offset, flowLists: false, flowPadding };
  }
  const dashAt = list.range![0];
  const dashCol = column(text, dashAt);
  const firstAt = (list.items[0] as Node).range![0];
  // The first key on the `-`'s own line; an item starting on the next line keeps yaml's 2.
  const contentOffset = text.slice(dashAt, firstAt).includes('\n') ? 2 : Math.max(2, firstAt - dashAt);
  // As the lists inside its entries are written; with none yet, as the list sits under its own key.
  const inEntry = nested(text, list, (value) => isSeq(value) && (value.flow || value.items.length > 0), false);
  const flowLists = (inEntry?.value as YAMLSeq | undefined)?.flow === true;
  const nestedOffset = inEntry && !flowLists ? inEntry.offset : dashCol > keyCol ? indent : 0;
  return { dashCol, contentOffset, nestedOffset, flowLists, flowPadding };
}

/** The first value under a key in `node` (`deep`, else in its items) that `test` takes, and how far right of its key it starts. */
function nested(text: string, node: Document | Node, test: (v: Node, offset: number) => boolean, deep = true): { value: Node; offset: number } | undefined {
  let found: { value: Node; offset: number } | undefined;
  visit(node, {
    Pair(_, { key, value }) {
      const at = (value as Node | null)?.range?.[0];
      const offset = isScalar(key) && key.range && at !== undefined ? column(text, at) - column(text, key.range[0]) : undefined;
      if (offset === undefined || !test(value as Node, offset)) return deep ? undefined : visit.SKIP;
      found = { value: value as Node, offset };
      return visit.BREAK;
    },
  });
  return found;
}

function column(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** A new entry (its notes above it) or an old flow list's item (an alias in it as it was) printed at column 0. */
function itemText(value: unknown, style: ListStyle, notes: string[] = []): string {
  const doc = new Document(value);
  const item = doc.contents as Node;
  if (isMap(item)) {
    item.flow = false;
    if (style.flowLists) for (const pair of item.items) if (isSeq(pair.value)) pair.value.flow = true;
  }
  if (notes.length) item.commentBefore = notes.map((n) => ` ${n}`).join('\n');
  // (An entry nests nothing but lists; yaml puts an unindented list at `indent - 2`.)
  const { nestedOffset, flowPadding } = style;
  return yamlWithControlsEscaped(doc, { indent: nestedOffset || 2, indentSeq: nestedOffset > 0, flowCollectionPadding: flowPadding, verifyAliasOrder: false });
}

/** Items printed at column 0 as the list's items: each line, and the `-`, where the file has them. */
function listLines(items: string[], style: ListStyle, eol: string, blank: boolean): string {
  const pad = (n: number) => ' '.repeat(n);
  const placed = items.map((printed) => {
    const lines = printed.split('\n').filter((l) => l !== '');
    const first = lines.findIndex((l) => !l.startsWith('#'));
    const indent = (i: number) => (i < first ? '' : i === first ? `-${pad(style.contentOffset - 1)}` : pad(style.contentOffset));
    return lines.map((line, i) => `${pad(style.dashCol)}${indent(i)}${line}`).join(eol);
  });
  return placed.join(blank ? `${eol}${eol}` : eol);
}

/** Where a new `ignore:` goes in fmt's order of keys: the line of the first key after it, above its comments (none: undefined). */
function lineOfIgnore(text: string, owner: YAMLMap): number | undefined {
  const keys = Object.keys(sitesyncSchema().properties ?? {});
  const pair = owner.items.find((p) => keys.indexOf(keyName(p) ?? '') > keys.indexOf('ignore'));
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

/** The file up to the end of the key's line without its value (`[]`, `[…]`, `~`, or nothing): a comment after it stays where it was. */
function withoutValue(text: string, start: number, end: number, lineEnd: number): string {
  const key = text.slice(0, start).replace(/\s+$/, '');
  const rest = text.slice(end, lineEnd < 0 ? text.length : lineEnd).replace(/\s+$/, '');
  // Nothing was written between the value and its comment (`websites:   # soon`): the blanks before the value stay.
  const gap = rest === '' || /^[ \t]/.test(rest) ? '' : /[ \t]*$/.exec(text.slice(0, start))![0] || ' ';
  return `${key}${gap}${rest}`;
}

/** The comments of `before` that `after` no longer holds (each counted as often as it occurs). */
export function missingComments(before: string, after: string): string[] {
  const left = new Map<string, number>();
  for (const c of comments(after)) left.set(c, (left.get(c) ?? 0) + 1);
  return comments(before).filter((c) => {
    const n = left.get(c) ?? 0;
    left.set(c, n - 1);
    return n <= 0;
  });
}

function comments(text: string): string[] {
  return [...new Lexer().lex(text)].filter((token) => token.startsWith('#')).map((c) => c.trimEnd());
}
