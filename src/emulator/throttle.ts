/**
 * Laravel's `throttle` middleware as the service uses it: a fixed window per key (an account or a
 * client address, as the server decides) that starts with the first request after the previous
 * window ran out. A refused request does not count.
 */

export interface ThrottleResult {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Window {
  start: number;
  count: number;
}

export class Throttle {
  private readonly windows = new Map<string, Window>();
  private hits = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  hit(key: string): ThrottleResult {
    const now = this.now();
    if (++this.hits % 1000 === 0) this.prune(now);
    let window = this.windows.get(key);
    if (!window || now >= window.start + this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    const end = window.start + this.windowMs;
    if (window.count >= this.limit) {
      return {
        allowed: false,
        headers: {
          'X-RateLimit-Limit': String(this.limit),
          'X-RateLimit-Remaining': '0',
          // Rounded up: a client that waits this long is sure to be let through.
          'Retry-After': String(Math.max(1, Math.ceil((end - now) / 1000))),
          'X-RateLimit-Reset': String(Math.ceil(end / 1000)),
        },
      };
    }
    window.count++;
    return {
      allowed: true,
      headers: {
        'X-RateLimit-Limit': String(this.limit),
        'X-RateLimit-Remaining': String(this.limit - window.count),
      },
    };
  }

  /** Forgets expired windows so that many keys over a long run do not pile up. */
  private prune(now: number): void {
    for (const [key, window] of this.windows) {
      if (now >= window.start + this.windowMs) this.windows.delete(key);
    }
  }
}

/** Reads `N/SECONDS` (or `off`); undefined when the text is not that. */
export function parseRateLimit(text: string): { limit: number; windowMs: number } | null | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === 'none' || t === '0') return null;
  const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*s?$/.exec(t);
  if (!m) return undefined;
  const limit = Number(m[1]);
  const seconds = Number(m[2]);
  if (!Number.isSafeInteger(limit) || limit < 1 || !(seconds > 0)) return undefined;
  return { limit, windowMs: Math.round(seconds * 1000) };
}
