/**
 * Domain names and domain globs, shared by the config loader, the planner, the client and the
 * emulator, so that both sides of every comparison go through the same normalization.
 */
import { domainToASCII } from 'node:url';

/** A host name the service accepts: ASCII labels, at least two of them, at most 253 characters. */
export function isValidHostname(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  let labels = 0;
  let start = 0;
  for (let i = 0; i <= host.length; i++) {
    if (i < host.length && host.charCodeAt(i) !== 46 /* . */) continue;
    if (!isLabel(host, start, i)) return false;
    labels++;
    start = i + 1;
  }
  return labels >= 2;
}

/** Letters, digits and inner hyphens, 1 to 63 of them (checked by hand: this runs per website). */
function isLabel(host: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < 1 || length > 63) return false;
  for (let i = start; i < end; i++) {
    const c = host.charCodeAt(i);
    const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (!alnum && !(c === 45 && i !== start && i !== end - 1)) return false;
  }
  return true;
}

/** The form the service stores: lower case, punycode, without a leading `www.`. */
export function domainKey(domain: string): string {
  const ascii = toAscii(domain.trim()) ?? domain.trim().toLowerCase();
  return ascii.startsWith('www.') ? ascii.slice(4) : ascii;
}

function toAscii(host: string): string | undefined {
  if (/^[\x21-\x7e]*$/.test(host)) return host.toLowerCase();
  const ascii = domainToASCII(host);
  return ascii === '' ? undefined : ascii;
}

export interface DomainInput {
  /** The normalized domain, when the input is usable. */
  domain?: string;
  /** What is wrong with the input, for an error message. */
  problem?: string;
  /** Set when the input carried a leading `www.` that the service drops. */
  strippedWww?: boolean;
}

/**
 * Reads a domain as a user wrote it. Refuses URLs, ports and paths with the bare form
 * suggested, converts internationalised names to punycode, and drops a leading `www.`
 * (the caller warns about it).
 */
export function parseDomainInput(raw: string): DomainInput {
  const input = raw.trim();
  if (input === '') return { problem: 'the domain is empty' };
  const bare = bareHost(input);
  if (bare !== input.toLowerCase()) {
    const suggestion = bare && toAscii(bare) ? `: write "${bare}"` : '';
    return { problem: `"${input}" is not a bare domain name (no scheme, port or path)${suggestion}` };
  }
  if (/\s/.test(input)) return { problem: `"${input}" contains white space` };
  if (input.endsWith('.')) {
    return { problem: `"${input}" ends with a dot: write "${input.slice(0, -1).toLowerCase()}"` };
  }
  const ascii = toAscii(input);
  if (ascii === undefined || !isValidHostname(ascii)) {
    return { problem: `"${input}" is not a valid domain name` };
  }
  if (ascii.startsWith('www.') && isValidHostname(ascii.slice(4))) {
    return { domain: ascii.slice(4), strippedWww: true };
  }
  return { domain: ascii };
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

/** A domain glob: `*` matches any run of characters within one label. */
export function compileGlob(glob: string): RegExp {
  const normalized = glob
    .trim()
    .toLowerCase()
    .split('.')
    .map((label) => (label.includes('*') ? label : (toAscii(label) ?? label)))
    .join('.');
  const source = normalized
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^.]*');
  return new RegExp(`^${source}$`);
}

/** Why a glob is unusable, or undefined when it is fine. */
export function globProblem(glob: string): string | undefined {
  const g = glob.trim();
  if (g === '') return 'the pattern is empty';
  if (!/^[\p{L}\p{N}.*-]+$/u.test(g)) {
    return `"${glob}" is not a domain pattern (letters, digits, "-", "." and "*" only)`;
  }
  return undefined;
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
  private readonly regexps: RegExp[];
  constructor(readonly globs: string[]) {
    this.regexps = globs.map(compileGlob);
  }
  /** The index of the first glob that matches the domain, or -1. */
  indexOf(domain: string): number {
    return this.regexps.findIndex((r) => r.test(domain));
  }
  matches(domain: string): boolean {
    return this.indexOf(domain) >= 0;
  }
}
