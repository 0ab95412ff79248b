/**
 * Domain names and domain globs, shared by the config loader, the planner, the client and the
 * emulator, so that both sides of every comparison go through the same normalization.
 *
 * The service checks domains loosely and stores them as given (service-behaviour.md, "Observed
 * on the product's own code"): lower-cased, but with underscores, spaces, a trailing dot or
 * unicode kept. sitesync keys every domain, live or written, by `domainKey`, which makes the
 * harmless differences vanish: `x.org.` and `x.org` are one website (a trailing dot only says
 * the name is fully qualified), and `bücher.example` and `xn--bcher-kva.example` are one too.
 * The key is also what sitesync sends when it creates a website.
 */
import { domainToASCII } from 'node:url';
import { UNPRINTABLE } from '../messages/escape.js';

/** The longest domain the service stores (its `max:255`, and the 255 of its rule). */
export const MAX_DOMAIN = 255;

/**
 * A host name as the service's own rule takes it, with labels of letters, digits and inner
 * hyphens of at most 63 characters: at least two labels, at most 255 characters, and a last
 * label not all digits (unless the name is an IPv4 address).
 */
export function isValidHostname(host: string): boolean {
  return isHostname(host, false);
}

/**
 * A name sitesync manages as a website: like `isValidHostname`, but with `_` allowed in labels
 * but the last, as the service stores such names (`my_site.example.com`) and browsers reach
 * them. An IPv4 address passes too, which the service also stores.
 */
export function isManageableHost(host: string): boolean {
  return isHostname(host, true);
}

function isHostname(host: string, underscore: boolean): boolean {
  if (host.length === 0 || host.length > MAX_DOMAIN) return false;
  let labels = 0;
  let start = 0;
  for (let i = 0; i < host.length; i++) {
    if (host.charCodeAt(i) !== 46 /* . */) continue;
    if (!isLabel(host, start, i, underscore)) return false;
    labels++;
    start = i + 1;
  }
  // The last label: no `_`, and not all digits unless the name is an IPv4 address (the service's rule).
  if (!isLabel(host, start, host.length, false)) return false;
  return labels >= 1 && (!/^[0-9]+$/.test(host.slice(start)) || IPV4.test(host));
}

/** Letters, digits and inner hyphens, 1 to 63 of them (checked by hand: this runs per website). */
function isLabel(host: string, start: number, end: number, underscore: boolean): boolean {
  const length = end - start;
  if (length < 1 || length > 63) return false;
  for (let i = start; i < end; i++) {
    const c = host.charCodeAt(i);
    const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (alnum || (underscore && c === 95 /* _ */)) continue;
    if (!(c === 45 && i !== start && i !== end - 1)) return false;
  }
  return true;
}

/** The IPv4 alternative of the service's rule: four parts of 0–255 (a leading 0 or 1 allowed), a trailing dot too. */
const IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)(?:\.|$)){4}$/i;

/**
 * Why the service's own domain rule (`ValidateDomainNameRule`, service-behaviour.md) refuses a
 * name as it receives it, in words that say which part fails; undefined when it takes it. The rule
 * is the regular expression
 * `^(?!:\/\/)(?=.{1,255}$)((.{1,63}\.){1,127}(?![0-9]*$)[a-z0-9-]+\.?)$` or an IPv4 address,
 * case-insensitive, over bytes (PCRE without /u). It is checked here part by part, not by running
 * it: its nested repeats backtrack exponentially on a long name of many dots that fails.
 */
export function productDomainProblem(domain: string): string | undefined {
  if (IPV4.test(domain)) return undefined;
  // Bytes, as PCRE without /u counts them (`.` is one byte, `[a-z]` no byte of a UTF-8 letter).
  const bytes = Buffer.from(domain, 'utf8').toString('latin1');
  if (bytes.length === 0) return 'it is empty';
  if (bytes.length > MAX_DOMAIN) return `it is ${bytes.length} characters long, and the service takes at most ${MAX_DOMAIN}`;
  if (bytes.includes('\n')) return 'it holds a line break';
  if (bytes.startsWith('://')) return 'it starts with "://"';
  const name = bytes.endsWith('.') ? bytes.slice(0, -1) : bytes;
  const dot = name.lastIndexOf('.');
  if (dot < 0) return 'it has no dot: the service needs at least two labels (example.com)';
  const last = name.slice(dot + 1);
  if (last === '') return 'its last label is empty';
  const bad = /[^a-z0-9-]/i.exec(last);
  if (bad) return `its last label "${domainOf(last)}" holds ${JSON.stringify(domainOf(bad[0]))}: the last label takes letters, digits and "-" only`;
  if (/^[0-9]+$/.test(last)) {
    return /^[0-9.]+$/.test(name) && name.split('.').length === 4
      ? 'it is no IPv4 address (four parts of 0 to 255), and the last label of a name may not be all digits'
      : `its last label "${last}" is all digits`;
  }
  // The labels before: cut at dots into pieces of 1 to 63 bytes, each followed by its dot.
  if (!fitsPieces(name.slice(0, dot + 1))) return 'a label before the last is longer than 63 characters, or empty at the start';
  return undefined;
}

/** The text of a run of the byte string back as characters (a broken one shown as is). */
function domainOf(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Whether `prefix` (ending in a dot) splits at its dots into pieces of 2 to 64 bytes: a label run and its dot. */
function fitsPieces(prefix: string): boolean {
  // reach[i]: a cut right after byte i - 1 is possible (0: the start).
  const reach = new Array<boolean>(prefix.length + 1).fill(false);
  reach[0] = true;
  for (let end = 1; end <= prefix.length; end++) {
    if (prefix[end - 1] !== '.') continue;
    for (let from = Math.max(0, end - 64); from <= end - 2 && !reach[end]; from++) reach[end] = reach[from]!;
  }
  return reach[prefix.length]!;
}

/**
 * What the service does to a name before it checks and stores it, once lower-cased: a name that
 * starts with `www.` loses every `www.` in it (`str_replace`: `www.shop.www.example.com` is
 * stored as `shop.example.com`).
 */
export function withoutWww(name: string): string {
  return name.startsWith('www.') ? name.replaceAll('www.', '') : name;
}

/**
 * The key that identifies a website, for a domain as the service stores it or as a file
 * writes it: lower case, each non-ASCII label in punycode, without one trailing dot and, when it
 * starts with `www.`, without every `www.` in it (as the service stores it). Total: a name that is no host name at all (`a b.example.com`) keys as
 * itself, lower-cased, so that it can still be matched and ignored.
 */
export function domainKey(domain: string): string {
  return withoutWww(labelsKey(domain.trim()));
}

/** Lower case, punycode per label (a `*` label left as it is), one trailing dot dropped. */
function labelsKey(name: string): string {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  // The common case, checked once: plain ASCII has nothing to convert (this runs per website).
  if (/^[\x00-\x7f]*$/.test(bare)) return bare.toLowerCase();
  return bare
    .toLowerCase()
    .split('.')
    .map((label) => (label.includes('*') ? label : labelKey(label)))
    .join('.');
}

function labelKey(label: string): string {
  // IDNA would drop a soft hyphen, a zero-width space or a variation selector (`zw\u200bsp` to
  // `zwsp`): a name that hides one is another website to the service's tracker, and shown as it is.
  if (/^[\x00-\x7f]*$/.test(label) || UNPRINTABLE.test(label)) return label;
  const ascii = domainToASCII(label);
  // '' when it cannot be converted; a dot when the label reads as a number (full-width digits).
  return ascii === '' || ascii.includes('.') ? label : ascii;
}

export interface DomainInput {
  /** The domain's key (see `domainKey`), when the input is usable. */
  domain?: string;
  /** What is wrong with the input, for an error message. */
  problem?: string;
  /** Set when the input carried a leading `www.` that the service drops. */
  strippedWww?: boolean;
}

/**
 * Reads a domain as a user wrote it. Refuses URLs, ports and paths with the bare form
 * suggested, and names no browser can reach (white space, other characters); converts
 * internationalised names to punycode, drops one trailing dot and a leading `www.` (the caller
 * warns about the `www.`).
 */
export function parseDomainInput(raw: string): DomainInput {
  const input = raw.trim();
  // The common case, already in the stored form (lower-case ASCII, no www.), in one pass.
  if (isValidHostname(input) && !input.startsWith('www.')) return { domain: input };
  if (input === '') return { problem: 'the domain is empty' };
  const bare = bareHost(input);
  if (bare !== input.toLowerCase()) {
    const suggestion = bare && isManageableHost(labelsKey(bare)) ? `: write "${bare}"` : '';
    return { problem: `"${input}" is not a bare domain name (no scheme, port or path)${suggestion}` };
  }
  if (/\s/.test(input)) {
    return { problem: `"${input}" contains white space, which no host name holds (to leave such a live website alone, list it under ignore)` };
  }
  const key = labelsKey(input);
  const stored = withoutWww(key);
  const as = stored === key ? '' : ` (stored by the service as "${stored}")`;
  const invalid = `"${input}"${as} is not a valid domain name`;
  const letters = `${invalid} (letters, digits, "-" and "_" in labels separated by dots)`;
  // What the service refuses at apply is refused here, saying which part fails: its length, then
  // characters no host name holds, then the service's own rule, then the rest of sitesync's.
  const refused = productDomainProblem(stored);
  if (stored.length > MAX_DOMAIN) return { problem: `${invalid}: ${refused}` };
  if (/[^a-z0-9._-]|^\.|\.\.|\.$/.test(stored)) return { problem: letters };
  if (refused) return { problem: `${invalid}: ${refused}` };
  if (!isManageableHost(stored)) return { problem: letters };
  return stored === key ? { domain: key } : { domain: stored, strippedWww: true };
}

/** What is unusual about a live domain that sitesync manages as it is, for the export's comments. */
export interface DomainTraits {
  trailingDot: boolean;
  unicode: boolean;
  ipv4: boolean;
  underscore: boolean;
}

/**
 * Whether a live domain can be written under `websites` and match itself: the file's entry,
 * read back by `parseDomainInput`, must key to the same website. Undefined when it cannot
 * (white space, characters no host name holds): such a website can only be left alone.
 */
export function manageableTraits(stored: string): DomainTraits | undefined {
  const parsed = parseDomainInput(stored);
  if (parsed.domain === undefined || parsed.strippedWww || parsed.domain !== domainKey(stored)) return undefined;
  return {
    trailingDot: stored.endsWith('.'),
    unicode: /[^\x00-\x7f]/.test(stored),
    ipv4: /^\d+\.\d+\.\d+\.\d+\.?$/.test(stored),
    underscore: stored.includes('_'),
  };
}

/** The host part of something that may be a URL (`https://x.com:8080/a` → `x.com`). */
function bareHost(input: string): string {
  let s = input.toLowerCase();
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  s = s.replace(/^[^@/]*@/, '');
  s = s.split(/[/?#]/, 1)[0] ?? '';
  if (/^\[.*\]/.test(s)) return s;
  return s.replace(/:\d*$/, '');
}

/** A compiled domain glob. */
export interface DomainGlob {
  test(domain: string): boolean;
}

/**
 * A domain glob: `*` matches any run of characters within one label. The other labels key like
 * domains, so a pattern written in unicode, with a trailing dot or a leading `www.` (which the
 * service drops) matches its website.
 */
export function compileGlob(glob: string): DomainGlob {
  return labelGlob(globKey(glob));
}

/** A glob as it is matched: keyed as domains are (case, unicode, `www.`). */
function globKey(glob: string): string {
  return withoutWww(labelsKey(glob.trim()));
}

/**
 * `pattern` as written (no keying), matched label by label: `*` is any run of characters within
 * one label, everything else literal. Linear in the name, whatever the pattern: each label's
 * literal parts are found left to right, never tried again (a regular expression of `[^.]*`s
 * backtracks exponentially on `*a*a*a…b` against a long label).
 */
export function labelGlob(pattern: string): DomainGlob {
  const labels = pattern.split('.').map((label) => label.split('*'));
  return {
    test(domain: string): boolean {
      const names = domain.split('.');
      return names.length === labels.length && labels.every((parts, i) => partsMatch(parts, names[i]!));
    },
  };
}

/** Whether `text` matches `pattern`, whose `*` is any run of characters (dots too), everything else literal; linear, whatever the pattern. */
export function wildcardMatches(pattern: string, text: string): boolean {
  return partsMatch(pattern.split('*'), text);
}

/** Whether `text` is the literal `parts` with any run of characters between each two. */
function partsMatch(parts: string[], text: string): boolean {
  const first = parts[0]!;
  if (parts.length === 1) return text === first;
  const last = parts[parts.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  // Each middle part at its leftmost place after the one before: leftmost leaves the most room.
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const found = text.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * Why a glob is unusable, or undefined when it is fine. Any other character is allowed: the
 * service stores names with spaces or punctuation, and `ignore` must be able to name them.
 */
export function globProblem(glob: string): string | undefined {
  const g = glob.trim();
  if (g === '') return 'the pattern is empty';
  if (g.includes('/') || /:\d*$/.test(g)) {
    return `"${glob}" is not a domain pattern (no scheme, port or path)`;
  }
  return undefined;
}

/**
 * Whether an `ignore:` glob names another spelling of the website a file lists as `written`
 * (same key, written otherwise: `lumen-dental.com.` beside `lumen-dental.com`): the service's twin
 * of that spelling, not the listed website.
 */
export function namesTwinSpelling(glob: string, written: string): boolean {
  return !glob.includes('*') && glob.trim().toLowerCase() !== written.trim().toLowerCase();
}

/**
 * The `protect`, `ignore` and `--target` patterns. Only a pattern is a pattern: the globs come
 * from the file and the command line (checked by `globProblem`), and the domain tested is
 * always plain text, character for character. A live website may be named `*.example.com`
 * (the service stores domains as given): it is matched by the glob `*.example.com` (whose `*`
 * matches any run of characters within a label, the `*` itself included), by no glob that
 * would not match that text, and never acts as a wildcard itself.
 */
export class GlobSet {
  /** A glob without `*` is the one name it matches: found by that name. */
  private readonly exact = new Map<string, number>();
  /** The others, by their number of labels (a `*` stays within one), in the list's order. */
  private readonly wild = new Map<number, { index: number; labels: string[][] }[]>();
  constructor(readonly globs: string[]) {
    globs.forEach((glob, index) => {
      const key = globKey(glob);
      if (!key.includes('*')) {
        if (!this.exact.has(key)) this.exact.set(key, index);
        return;
      }
      const labels = key.split('.').map((label) => label.split('*'));
      const same = this.wild.get(labels.length) ?? [];
      same.push({ index, labels });
      this.wild.set(labels.length, same);
    });
  }
  /**
   * The index of the first glob that matches the domain, or -1. A domain costs a lookup for the
   * names written out and a test of each glob with `*` of its number of labels (see
   * MAX_WILDCARD_GLOBS): not a test of every glob, which for 60,000 websites and 6,000 globs took minutes.
   */
  indexOf(domain: string): number {
    const exact = this.exact.get(domain) ?? -1;
    const names = domain.split('.');
    for (const { index, labels } of this.wild.get(names.length) ?? []) {
      if (exact >= 0 && index > exact) break;
      if (labels.every((parts, i) => partsMatch(parts, names[i]!))) return index;
    }
    return exact;
  }
  matches(domain: string): boolean {
    return this.indexOf(domain) >= 0;
  }
}

/**
 * What to ask the service's search (`LIKE '%value%'` on the domain as stored) for a domain
 * pattern, so that a plan of a few targets reads those websites rather than the whole account:
 * the literal part of the pattern likely to select the fewest websites. A part at the end of the
 * pattern counts without its last label (`.example` or `.com` is in most names of an account),
 * so `w43*.example` searches `w43`. Undefined where a search cannot be trusted to find every
 * website the pattern matches, or is not worth it:
 * - a unicode or punycode name: the service stores either form, and a search finds only one;
 *   for the same reason, the end of a label after a `*` is not searched (`*bcher*.example`
 *   matches xn--bcher-kva.example, stored as bücher.example), nor a label start that may
 *   begin `xn--`;
 * - nothing literal of two characters or more (`*`, `*.com`).
 * The service drops a leading `www.`, so it is not searched; `_` and `%` are wildcards of LIKE,
 * which only widen the answer: sitesync filters it exactly, as for a whole listing.
 */
export function searchLiteral(glob: string): string | undefined {
  let g = glob.trim().toLowerCase();
  if (/[^\x00-\x7f]/.test(g) || /(^|[.*])xn--/.test(g)) return undefined;
  g = withoutWww(g);
  if (g.endsWith('.')) g = g.slice(0, -1);
  const parts = g.split('*').map((part, i, all) => {
    // A label's end after a `*` may lie inside a punycode label (`*bcher*` matches
    // xn--bcher-kva, which the service may store as bücher): only whole labels from the next dot.
    if (i > 0) part = part.includes('.') ? part.slice(part.indexOf('.')) : '';
    // A label's start before a `*` is the start of the label, unless it may begin `xn--`.
    if (i < all.length - 1) {
      const start = part.slice(part.lastIndexOf('.') + 1);
      if (start && 'xn--'.startsWith(start)) part = part.slice(0, part.length - start.length);
    }
    return part;
  });
  let best: string | undefined;
  let bestScore = 1;
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const score = last ? part.length - (part.length - part.lastIndexOf('.') - 1) : part.length;
    if (part.length >= 2 && score > bestScore) {
      best = part;
      bestScore = score;
    }
  });
  return best;
}
