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

export const REDACTED = '(redacted)';

export class SecretValues {
  private readonly values = new Set<string>();
  private pattern: RegExp | null = null;

  add(value: string | undefined): void {
    if (!value || this.values.has(value)) return;
    this.values.add(value);
    this.pattern = null;
  }

  get size(): number {
    return this.values.size;
  }

  /** `text` with every registered secret replaced by `(redacted)`, in one pass, longest first. */
  clean(text: string): string {
    if (this.values.size === 0 || text === '') return text;
    this.pattern ??= new RegExp(
      [...this.values]
        .sort((a, b) => b.length - a.length)
        .map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }

  /** A parsed JSON body with every string in it (keys too) cleaned. */
  cleanDeep(value: unknown): unknown {
    if (this.values.size === 0) return value;
    if (typeof value === 'string') return this.clean(value);
    if (Array.isArray(value)) return value.map((v) => this.cleanDeep(v));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.clean(k), this.cleanDeep(v)]));
    }
    return value;
  }
}
