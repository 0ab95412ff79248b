/**
 * One limiter for every request to an installation, paced from the service's throttle headers.
 * Laravel's throttle counts requests in fixed windows: every answer says X-RateLimit-Limit and
 * -Remaining, only a 429 says when the window ends. So the pacer sends the first two requests
 * alone, lets requests go while the window has room, notes when a window opened (remaining =
 * limit − 1), learns the window's length from the first 429, and then waits for each window's
 * end instead of probing it. After a predicted end, one request goes first: a window that grew
 * costs that one 429, not one per request in flight. A window that shrinks is not noticed.
 */
import { EventEmitter, once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_THROTTLE_WAIT_MS } from '../caps.js';
import { header, type Answer } from './transport.js';

export const realClock = {
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> => sleep(ms, undefined, { signal }),
};
export type PacerClock = typeof realClock;

/** Requests sent before any answer says what the limits are: enough for the account and page 1. */
const FIRST_REQUESTS = 2;

/** Sent a little after a window's predicted end, against clock noise: 2 % of a short window, within these. */
const WINDOW_MARGIN_MS = 150;
const MIN_MARGIN_MS = 20;

export class ThrottleTooLong extends Error {
  constructor(readonly waitMs: number) {
    super(`the service's throttle asks to wait ${Math.round(waitMs / 1000)} s`);
  }
}

export class Pacer {
  private limit?: number;
  private remaining?: number;
  private inFlight = 0;
  private blockedUntil = 0;
  private windowOpenedAt?: number;
  private windowMs?: number;
  private windowEnd?: number;
  /** Windows are taken to be whole seconds, as Laravel's are, until one ends later than that predicted. */
  private wholeSeconds = true;
  private probing = false;
  private confirming = false;
  private answered = false;
  /** 'wake' on every answer and at every timer: parked callers look again. */
  private readonly wakes = new EventEmitter().setMaxListeners(0);
  private timer?: { at: number; cancel: AbortController };
  private closed = false;

  constructor(private readonly clock: PacerClock = realClock) {}

  /** Waits until a request may be sent, and says when it was; throws ThrottleTooLong rather than wait longer than MAX_THROTTLE_WAIT_MS. */
  async acquire(signal?: AbortSignal): Promise<number> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.waitTime();
      if (wait > MAX_THROTTLE_WAIT_MS) throw new ThrottleTooLong(wait);
      if (wait === 0) {
        this.inFlight++;
        return this.clock.now();
      }
      // Until the next answer, or `wait` ms when it is positive; given up (Ctrl-C), the check above throws.
      if (wait > 0) this.schedule(this.clock.now() + wait);
      await once(this.wakes, 'wake', { signal }).catch(() => {});
    }
  }

  /** Reports the answer to a request let through by `acquire` (no status: it failed). */
  release(sentAt: number, status: number | undefined, headers: Answer['headers']): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.probing = false;
    if (status !== undefined) this.answered = true;
    if (status !== undefined && status !== 429) this.confirming = false;
    const now = this.clock.now();
    const limit = intHeader(headers, 'x-ratelimit-limit');
    const remaining = intHeader(headers, 'x-ratelimit-remaining');
    if (limit !== undefined) this.limit = limit;
    if (remaining !== undefined) {
      if (this.remaining === undefined || remaining < this.remaining || this.windowEnd === undefined || now >= this.windowEnd) {
        this.remaining = remaining;
      }
      if (limit !== undefined && remaining === limit - 1) {
        this.windowOpenedAt = sentAt;
        if (this.windowMs !== undefined) this.windowEnd = sentAt + this.windowMs;
      }
    }
    if (status === 429) {
      const until = retryAt(headers, now);
      // A predicted window that had not ended: the whole-second guess was too short.
      if (this.confirming && this.windowMs !== undefined) this.wholeSeconds = false;
      this.blockedUntil = Math.max(this.blockedUntil, until ?? now + 1000);
      if (until !== undefined) {
        this.windowEnd = until;
        // The window still open is the last one seen to open.
        if (this.windowOpenedAt !== undefined && this.windowOpenedAt < until) {
          const bound = until - this.windowOpenedAt;
          // Retry-After and X-RateLimit-Reset count whole seconds, rounded up: up to a second late.
          this.windowMs = this.wholeSeconds && bound >= 1000 ? Math.floor(bound / 1000) * 1000 : bound;
          this.windowEnd = this.windowOpenedAt + this.windowMs;
        }
      }
      this.remaining = 0;
    }
    this.wakes.emit('wake');
  }

  private waitTime(): number {
    const now = this.clock.now();
    if (now < this.blockedUntil) return this.blockedUntil - now;
    if (!this.answered) return this.inFlight < FIRST_REQUESTS ? 0 : -1;
    if (this.limit === undefined || this.remaining === undefined) return 0;
    const margin = this.windowMs === undefined ? WINDOW_MARGIN_MS : Math.min(WINDOW_MARGIN_MS, Math.max(MIN_MARGIN_MS, this.windowMs / 50));
    if (this.windowEnd !== undefined && now >= this.windowEnd + margin) {
      // A fresh window has the full limit once one request has seen it open (a 429: it grew).
      this.remaining = this.limit;
      this.windowEnd = undefined;
      this.confirming = true;
    }
    if (this.confirming) return this.inFlight === 0 ? 0 : -1;
    if (this.remaining - this.inFlight > 0) return 0;
    if (this.windowEnd !== undefined) return this.windowEnd + margin - now;
    // Full, and its end unknown: one request may probe (a 429 tells the end); the rest wait for it.
    if (!this.probing && this.inFlight === 0) {
      this.probing = true;
      return 0;
    }
    return -1;
  }

  /** Once the run is over: no timer keeps the process alive, and a caller still parked is never woken. */
  close(): void {
    this.closed = true;
    this.timer?.cancel.abort();
    this.timer = undefined;
  }

  /** One timer, for the earliest moment any waiter needs; a later one is replaced by it. */
  private schedule(at: number): void {
    if (this.closed || (this.timer && this.timer.at <= at)) return;
    this.timer?.cancel.abort();
    const timer = { at, cancel: new AbortController() };
    this.timer = timer;
    this.clock.sleep(Math.max(1, at - this.clock.now()), timer.cancel.signal).then(
      () => {
        if (this.timer === timer) this.timer = undefined;
        this.wakes.emit('wake');
      },
      () => {}, // replaced by an earlier timer
    );
  }
}

function intHeader(headers: Answer['headers'], name: string): number | undefined {
  const v = header(headers, name);
  return v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : undefined;
}

/** When a 429 says the window ends: Retry-After (seconds or an HTTP date), else X-RateLimit-Reset. */
export function retryAt(headers: Answer['headers'], now: number): number | undefined {
  const ra = header(headers, 'retry-after');
  if (ra !== undefined) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return now + Number(ra) * 1000;
    const date = Date.parse(ra);
    if (!Number.isNaN(date)) return Math.max(now, date);
  }
  const reset = intHeader(headers, 'x-ratelimit-reset');
  if (reset === undefined) return undefined;
  // Unix seconds when large, else seconds from now.
  return reset > 1e9 ? Math.max(now, reset * 1000) : now + reset * 1000;
}
