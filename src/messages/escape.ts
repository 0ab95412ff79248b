/**
 * Text from the service is data, never markup or terminal control. The product stores domains
 * (and lists, account names, messages) as given, so a live website can be named
 * `a\e[2J\e[31mred.example.com` or `a|b.example.com`. These functions make such text safe to
 * show where it lands: on a terminal or in a log (`printable`), in a markdown comment
 * (`markdownText`, `markdownCode`). They leave ordinary text exactly as it is.
 */

/**
 * What shows nothing, or changes how the text around it shows: the controls (C0, DEL, C1: U+009B
 * is a CSI on some terminals), every format character (Unicode Cf: the bidirectional marks,
 * overrides and isolates that reorder what follows them, CVE-2021-42574; U+00AD, U+200B to
 * U+200D, U+2060, U+FEFF, the tags), every default-ignorable code point (the variation selectors,
 * U+034F, the Hangul fillers, and those not assigned yet), and the line and paragraph separators.
 * A live domain `exa\u200dmple.com` would otherwise print as `example.com`.
 */
const INVISIBLE = String.raw`\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029`;

/** Whether the text holds a character that `printable` escapes. */
export const UNPRINTABLE = new RegExp(`[${INVISIBLE}]`, 'u');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * What `printable` rewrites: such a character, or a backslash that would read as the start of
 * an escape (before `x u n r t " \\` or before such a character, which becomes one). Such a
 * backslash is doubled, so a domain holding the four characters `\x1b` never looks like one
 * holding an ESC; any other backslash (`C:\Users`) stays as it is, since it cannot be misread.
 */
const TO_ESCAPE = new RegExp(String.raw`\\(?=[\\"xunrt${INVISIBLE}])|[${INVISIBLE}]`, 'gu');

/**
 * The text with every such character shown as an escape (`\x1b`, `\n`, `\u202e`, `\u200d`,
 * `\u{e0041}`), on one line, and a literal backslash that would read as an escape doubled, so what
 * is shown reads back to exactly one text. Applied once, where the text is written (a second pass
 * would double the first one's escapes): values and messages travel raw until then.
 */
export function printable(text: string): string {
  TO_ESCAPE.lastIndex = 0;
  return TO_ESCAPE.test(text) ? text.replace(TO_ESCAPE, (ch) => (ch === '\\' ? '\\\\' : escapeChar(ch))) : text;
}

/** What JSON.stringify leaves raw: it escapes C0 itself, and newlines outside strings are layout. */
const UNPRINTABLE_IN_JSON = new RegExp(String.raw`[\u007f-\u009f\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]`, 'gu');

/** For JSON text: DEL, C1, format and default-ignorable characters as `\u` escapes (a pair past U+FFFF), which JSON reads back as they were. */
export function jsonUnicodeEscapes(json: string): string {
  UNPRINTABLE_IN_JSON.lastIndex = 0;
  if (!UNPRINTABLE_IN_JSON.test(json)) return json;
  const unit = (i: number, ch: string) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return json.replace(UNPRINTABLE_IN_JSON, (ch) => (ch.length === 1 ? unit(0, ch) : unit(0, ch) + unit(1, ch)));
}

/**
 * Characters that mean something in GitHub/GitLab markdown (emphasis, code, links, images,
 * tables, math, strike-through, issue references, HTML). Backslash escapes work for all ASCII punctuation, also in
 * table cells, where the table splitter consumes `\\` and `\|` as pairs. An underscore between
 * two letters or digits never emphasises (`utm_source`), so it is left as it is.
 */
const MARKDOWN_PUNCTUATION = /[\\`*[\]|~$#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g;
const HTML = /[&<>]/g;
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * A mention (`@team`) or an issue reference (`#12`, `org/repo#12`). GitHub and GitLab link them,
 * and notify whom they name, after markdown is parsed, so a backslash does not stop them; a
 * zero-width space after the sign does, and shows nothing.
 */
const REFERENCE = /(?<![A-Za-z0-9])@(?=[A-Za-z0-9])|#(?=\d)/g;

/**
 * Text for a markdown paragraph or table cell, shown as written: control characters escaped
 * visibly, `& < >` as entities (no HTML, no `<!--` comment that swallows the rest), markdown
 * punctuation backslash-escaped (no `](` link, no code span, no `|` that splits a cell), no
 * mention or issue reference that would notify anyone.
 */
export function markdownText(text: string): string {
  return printable(text)
    .replace(MARKDOWN_PUNCTUATION, '\\$&')
    .replace(HTML, (ch) => ENTITY[ch]!)
    .replace(REFERENCE, '$&&#8203;');
}

/** Characters that cannot break a code span or a table cell. */
const PLAIN_CODE = /^[\w.:/@+%=,-]*$/;

/**
 * Text shown as code (a domain, the base URL). Ordinary text goes in a code span as usual;
 * anything else goes in `<code>` with its content escaped, because a code span can hold neither
 * a control character nor, inside a table, a backslash before a `|`.
 */
export function markdownCode(text: string): string {
  if (text !== '' && PLAIN_CODE.test(text)) return `\`${text}\``;
  return `<code>${markdownText(text)}</code>`;
}
