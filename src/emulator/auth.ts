/**
 * Reading the API key, and Laravel's idea of whether a client wants JSON, which decides
 * between a 401 body and a 302 to the login page.
 */
import { randomBytes } from 'node:crypto';

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/** Laravel's `expectsJson()`: an XHR that accepts anything, or JSON first among accepted types. */
export function wantsJson(accept: string | undefined, requestedWith: string | undefined): boolean {
  const types = acceptable(accept ?? '');
  if (requestedWith === 'XMLHttpRequest' && (types.length === 0 || types[0] === '*/*')) return true;
  const first = types[0];
  return first !== undefined && (first.includes('/json') || first.includes('+json'));
}

/** Media types by descending quality, order kept among equals. */
function acceptable(accept: string): string[] {
  return accept
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { type: type.toLowerCase(), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((t) => t.type !== '' && t.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((t) => t.type);
}

/** A throwaway key, shaped like the service's 60-character tokens. */
export function generateKey(): string {
  return randomBytes(30).toString('hex');
}

/** A key is a header value: printable ASCII without spaces. */
export function keyProblem(key: string): string | undefined {
  if (key === '') return 'an API key cannot be empty';
  if (!/^[\x21-\x7e]+$/.test(key)) return 'an API key must be printable ASCII without spaces';
  return undefined;
}
