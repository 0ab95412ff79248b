/** A live website as a config file entry (export's and import's, from the field table), and YAML text safe to print. */
import { isPair, isScalar, parseDocument, Scalar, visit, type Document, type ToStringOptions } from 'yaml';
import type { DomainTraits } from '../model/domain.js';
import { FIELDS, sameValue } from '../model/fields.js';
import type { DefaultSettings, FieldName, LiveWebsite } from '../model/types.js';
import { printable, UNPRINTABLE } from '../messages/escape.js';
import { literal } from '../config/interpolate.js';
import { controlCharacterIn } from '../schema/errors.js';

export interface FileEntryOptions {
  includeFavorite?: boolean;
  /** The defaults of the file the entry goes into (`{}`: the service's): a value equal to its default is left out. */
  defaults?: DefaultSettings;
  /** The variable a password-protected website's password would read: its note names it. */
  passwordVariable?: string;
}

export interface FileEntry {
  /** The entry as the file writes it: `domain` first, then the fields in the table's order. */
  entry: Record<string, unknown>;
  /** Comment lines for the entry (odd names, suspect list entries, the password). */
  notes: string[];
  /** Fields the service did not return, so the entry cannot say them. */
  unknown: FieldName[];
}

/**
 * The entry of a live website (`traits`: what is odd about its name): each setting that differs
 * from the default the file would give it; never the password, favorite only when asked for.
 */
export function fileEntry(site: LiveWebsite, traits: DomainTraits, options: FileEntryOptions = {}): FileEntry {
  const name = storedName(site);
  const entry: Record<string, unknown> = { domain: literal(name) };
  const notes: string[] = [];
  if (traits.trailingDot) {
    notes.push(`stored with a trailing dot: sitesync matches ${quoted(name)} and ${quoted(name.slice(0, -1))} as this one website`);
  }
  if (traits.unicode) notes.push(`stored in unicode: sitesync matches it and its punycode form ${site.domain} as this one website`);
  if (traits.ipv4) notes.push('an IP address, not a host name: managed as is');
  if (traits.underscore) notes.push('holds "_", which DNS host names do not: managed as is');
  const unknown: FieldName[] = [];
  // Text from the service reads back as itself: `${` in it is no reference.
  const asText = (value: unknown) => (typeof value === 'string' ? literal(value) : value);
  for (const field of FIELDS) {
    if (!field.toFile || (field.name === 'favorite' && !options.includeFavorite)) continue;
    const value = site[field.name];
    if (value === undefined) {
      // A list the service does not return: sitesync cannot know its entries.
      if (field.compare === 'set') unknown.push(field.name);
      continue;
    }
    const own = field.inDefaults ? options.defaults?.[field.name as keyof DefaultSettings] : undefined;
    if (sameValue(field, value, own ?? field.serviceDefault)) continue;
    const written = field.toFile(value);
    entry[field.name] = Array.isArray(written) ? written.map(asText) : asText(written);
    for (const item of Array.isArray(value) ? value : []) {
      // The service keeps any text; a file refuses a control character (the schema), so the entry says so.
      const note = controlCharacterIn(item)
        ? `${field.name} ${quoted(item)} holds a control character, which a file refuses: delete it here (apply then removes it at the service)`
        : field.entryNote?.(item, quoted(item));
      if (note) notes.push(note);
    }
  }
  if (site.privacy === 2) {
    notes.push(
      options.passwordVariable
        ? `password-protected: to manage its password, set ${options.passwordVariable} and add this line to the entry:`
        : 'password-protected: add password: ${NAME} to manage its password',
    );
  }
  return { entry, notes, unknown };
}

/** The domain as the service stores it: what an entry writes, so that it names that website. */
export function storedName(site: LiveWebsite): string {
  return site.stored ?? site.domain;
}

/** What `printable` escapes but yaml writes raw in a double-quoted scalar (it escapes tabs and line breaks itself). */
const RAW_IN_YAML = new RegExp(`(?![\\t\\n])${UNPRINTABLE.source}`, 'gu');

/** The document as text, a value with a control or invisible character double-quoted with `\u` escapes: it reads back the same, safe to print. */
export function yamlWithControlsEscaped(doc: Document, options: ToStringOptions = {}): string {
  let quoted = false;
  visit(doc, {
    Scalar(_key, node, path) {
      if (typeof node.value === 'string' && node.value.search(RAW_IN_YAML) >= 0 && !isPassword(node, path)) {
        node.type = Scalar.QUOTE_DOUBLE;
        quoted = true;
      }
    },
  });
  const text = doc.toString({ lineWidth: 0, ...options });
  if (!quoted) return text;
  // Within the double-quoted scalars alone, found by reading the text back: a comment of the user's (init) keeps an emoji's joiner.
  let out = '';
  let at = 0;
  visit(parseDocument(text), {
    Scalar(_key, node, path) {
      if (node.type !== Scalar.QUOTE_DOUBLE || !node.range || node.range[0] < at || isPassword(node, path)) return;
      out += text.slice(at, node.range[0]) + text.slice(node.range[0], node.range[1]).replace(RAW_IN_YAML, escapedCodePoint);
      at = node.range[1];
    },
  });
  return out + text.slice(at);
}

/** A `password:` value keeps the spelling it has: fmt --check's diff hides a password written in clear by its value. */
function isPassword(node: Scalar, path: readonly unknown[]): boolean {
  const pair = path.at(-1);
  return isPair(pair) && pair.value === node && isScalar(pair.key) && pair.key.value === 'password';
}

function escapedCodePoint(ch: string): string {
  const code = ch.codePointAt(0)!;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
}

/** Live text for a comment line: `printable`, quoted (no domain may end the comment or drive a terminal). */
export function quoted(text: string): string {
  return `"${printable(text).replace(/"/g, '\\"')}"`;
}
