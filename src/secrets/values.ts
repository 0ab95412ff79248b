/**
 * The secret values of a run (the API key, website passwords, CI tokens) and the one thing
 * done with them besides sending them: cleaning text that comes from outside.
 *
 * sitesync's own output never holds a secret by construction — plans, views, renderers and
 * messages carry `(sensitive)` or the `${NAME}` reference, never a value — so nothing it
 * writes itself is scrubbed or altered. What the service (or GitHub, GitLab, the network stack)
 * says is another matter: a 422 may echo the form it was sent, password included. Such text is
 * cleaned where it enters sitesync, of every registered secret whatever its length.
 */
import type { Secret } from './secret.js';
import { MAX_CLEANED_BODY_DEPTH } from '../caps.js';

export const REDACTED = '(redacted)';

/**
 * The shortest secret looked for in the service's data (what it holds: settings, statistics):
 * a shorter one (`1`, `delete`) occurs in ordinary values by chance, where `(redacted)` would turn
 * them into noise, change what is compared and never converge. Messages are cleaned of every length.
 */
export const MIN_SECRET_IN_DATA = 8;

export class SecretValues {
  private readonly secrets = new Set<string>();
  /** Every spelling of every secret: what text is cleaned of. */
  private readonly values = new Set<string>();
  private pattern: RegExp | null = null;
  private readonly long = new Set<string>();
  private longPattern: RegExp | null = null;
  /**
   * Every prefix of every spelling, of MIN_SECRET_IN_DATA characters or more, by its last
   * MIN_SECRET_IN_DATA characters: a text that ends in one was cut inside a secret (the service
   * keeps 255 characters of a `page` value), and its end is the start of that secret.
   */
  private readonly prefixes = new Map<string, string[]>();

  /** Every website password of a config file, as read from the environment. */
  addPasswordsOf(config: { websites: readonly { password?: Secret }[] }): void {
    for (const site of config.websites) this.add(site.password?.value);
  }

  /**
   * Registers a secret with the spellings in which a service may say it back: as it is, as the
   * form sent it (`p%40ss+w%26rd`), percent-encoded as a component (`p%40ss%20w%26rd`) or as a
   * URL's path or query encodes it (`p@ss%20w&rd`), and inside a JSON string (`\"`), also as PHP
   * writes one (`\/`, `\u00e4`), since an echoed body or URL is not always decoded first.
   */
  add(value: string | undefined): void {
    if (!value || this.secrets.has(value)) return;
    this.secrets.add(value);
    for (const spelling of spellingsOf(value)) {
      this.values.add(spelling);
      if (value.length >= MIN_SECRET_IN_DATA) this.long.add(spelling);
      if (value.length < MIN_SECRET_IN_DATA) continue;
      for (let end = MIN_SECRET_IN_DATA; end < spelling.length; end++) {
        const prefix = spelling.slice(0, end);
        const last = prefix.slice(-MIN_SECRET_IN_DATA);
        this.prefixes.set(last, [...(this.prefixes.get(last) ?? []), prefix]);
      }
    }
    this.pattern = this.longPattern = null;
  }


  /** How many characters at the end of `text` are the start of a secret cut short (0: none). */
  private cutTail(text: string): number {
    if (this.prefixes.size === 0 || text.length < MIN_SECRET_IN_DATA) return 0;
    let longest = 0;
    for (const prefix of this.prefixes.get(text.slice(-MIN_SECRET_IN_DATA)) ?? []) {
      if (prefix.length > longest && text.endsWith(prefix)) longest = prefix.length;
    }
    return longest;
  }

  /** How many secrets are registered. */
  get size(): number {
    return this.secrets.size;
  }

  /**
   * `text` with every registered secret replaced by `(redacted)`, and an end that is the start
   * of one (MIN_SECRET_IN_DATA characters or more: a value cut short). Where two secrets overlap
   * (`…abcXYZdef…` holding `abcXYZ` and `XYZdef`), the whole stretch they cover is replaced: no
   * part of either is left.
   */
  clean(text: string): string {
    if (this.values.size === 0 || text === '') return text;
    this.pattern ??= anyOf(this.values);
    return replaceAll(text, this.pattern, this.cutTail(text));
  }

  /**
   * The service's data (a value it holds and sitesync shows or writes) cleaned of every secret of
   * at least MIN_SECRET_IN_DATA characters, as `clean` does.
   */
  cleanData(text: string): string {
    if (this.long.size === 0 || text === '') return text;
    this.longPattern ??= anyOf(this.long);
    return replaceAll(text, this.longPattern, this.cutTail(text));
  }

  /**
   * A parsed JSON body with every string in it (keys too) cleaned. Nothing below MAX_CLEANED_BODY_DEPTH
   * levels is kept (null in its place): no message is that deep, and a body nested 100,000 levels
   * must not exhaust the stack on its way to becoming one.
   */
  cleanDeep(value: unknown, depth = 0): unknown {
    if (this.values.size === 0) return value;
    if (typeof value === 'string') return this.clean(value);
    if (value && typeof value === 'object' && depth >= MAX_CLEANED_BODY_DEPTH) return null;
    if (Array.isArray(value)) return value.map((v) => this.cleanDeep(v, depth + 1));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.clean(k), this.cleanDeep(v, depth + 1)]));
    }
    return value;
  }
}

function spellingsOf(value: string): string[] {
  const spellings = [value];
  try {
    spellings.push(encodeURIComponent(value));
  } catch {
    // A lone surrogate cannot be percent-encoded, so it is never sent that way either.
  }
  const json = JSON.stringify(value).slice(1, -1);
  spellings.push(
    new URLSearchParams({ v: value }).toString().slice(2),
    json,
    // PHP's json_encode: `/` as `\/`, and every character past ASCII as `\uXXXX` (lower-case hex).
    json.replace(/\//g, '\\/').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
  // A URL's path and query, as the WHATWG URL parser percent-encodes them (fewer characters than encodeURIComponent).
  for (const set of [URL_PATH_ENCODED, URL_QUERY_ENCODED]) {
    try {
      spellings.push(value.replace(set, (c) => encodeURIComponent(c)));
    } catch {
      // A lone surrogate: as above.
    }
  }
  return [...new Set(spellings)];
}

/** What a URL's path percent-encodes: controls, space, `"#<>?\`{}` and everything past ASCII (WHATWG URL). */
const URL_PATH_ENCODED = /[\x00-\x20"#<>?`{}\x7f]|[^\x00-\x7f]/gu;
/** What a URL's query percent-encodes: controls, space, `"#<>'` and everything past ASCII. */
const URL_QUERY_ENCODED = /[\x00-\x20"#<>'\x7f]|[^\x00-\x7f]/gu;

/** Every spelling in `values`, longest first, as lookaheads: each match starts a stretch to replace. */
function anyOf(values: ReadonlySet<string>): RegExp {
  return new RegExp([...values].sort((a, b) => b.length - a.length).map((v) => `(?=(${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}))`).join('|'), 'g');
}

/** `text` with every stretch `pattern` covers, and its last `tail` characters, replaced by `(redacted)`. */
function replaceAll(text: string, pattern: RegExp, tail = 0): string {
  // Every occurrence of every spelling, overlapping ones too (a lookahead matches without consuming).
  const covered: [number, number][] = [];
  for (const match of text.matchAll(pattern)) {
    const length = Math.max(...match.slice(1).map((g) => g?.length ?? 0));
    if (length > 0) covered.push([match.index, match.index + length]);
  }
  if (tail > 0) {
    covered.push([text.length - tail, text.length]);
    covered.sort((a, b) => a[0] - b[0]);
  }
  if (!covered.length) return text;
  let out = '';
  let at = 0;
  let end = -1;
  for (const [from, to] of covered) {
    if (from > end) {
      if (end >= 0) at = end;
      out += text.slice(at, from) + REDACTED;
      end = to;
    } else end = Math.max(end, to);
  }
  return out + text.slice(end);
}
