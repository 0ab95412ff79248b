/**
 * One limiter shared by every request of a client, paced from the service's own throttle
 * headers so that a rate-limited run goes as fast as the limit allows without a storm of 429s.
 *
 * The service (Laravel's throttle) counts requests in fixed windows per key: a window opens
 * with the first request after the last one closed and lasts a fixed time. Every answer says
 * `X-RateLimit-Limit` and `X-RateLimit-Remaining`; only a 429 says when the window ends
 * (`Retry-After`, `X-RateLimit-Reset`). So the pacer
 *   - sends the first two requests alone, to learn the limits before a burst,
 *   - lets requests go while the window has room (remaining − in flight > 0),
 *   - notes when a window opened (an answer with remaining = limit − 1),
 *   - learns the window's length from the first 429 (its end minus its opening),
 * and from then on waits for each window's end instead of probing it with a 429. When a window
 * it predicted is over, one request goes first to confirm that a new one opened: a window that
 * has grown then costs that one 429 (which teaches the new length), not one per request in
 * flight. The service may change its limit at any time: every answer's headers are taken as
 * they come. A window that shrinks is not noticed (nothing probes early): the pace stays at the
 * longer window's, slower but without 429s.
 *
 * Its time and its one timer come from `PacerClock`, so tests drive it with a fake clock.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_THROTTLE_WAIT_MS } from '../caps.js';

export interface PacerClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: PacerClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

/** Requests sent before any answer says what the limits are: enough for the account and page 1. */
const FIRST_REQUESTS = 2;

/**
 * Sent a little after the predicted end of a window, against clock and rounding noise: at most
 * this, and on short windows (a second or two, where it would be a large share of each) 2 % of
 * the window, but never less than MIN_MARGIN_MS.
 */
const WINDOW_MARGIN_MS = 150;
const MIN_MARGIN_MS = 20;

export interface Ticket {
  sentAt: number;
}

/** Thrown by `acquire` when the throttle asks for a wait longer than the pacer's longest. */
export class ThrottleTooLong extends Error {
  constructor(
    readonly waitMs: number,
    readonly maxMs: number,
  ) {
    super(`the service's throttle asks to wait ${Math.round(waitMs / 1000)} s`);
  }
}

export class Pacer {
  private limit?: number;
  private remaining?: number;
  private inFlight = 0;
  /** Nothing goes before this time (a 429's Retry-After, or the end of a full window). */
  private blockedUntil = 0;
  private windowOpenedAt?: number;
  private windowMs?: number;
  private windowEnd?: number;
  /**
   * A window learned from whole-second headers is taken to be a whole number of seconds (as
   * Laravel's are); false once a window ended later than that predicted (then the raw bound is used).
   */
  private wholeSeconds = true;
  private probing = false;
  /** A predicted window is over: one request goes first, to see a new one open (or get a 429). */
  private confirming = false;
  /** Whether any answer has arrived: until then, one request at a time finds out the limits. */
  private answered = false;
  private waiters: (() => void)[] = [];
  private timer?: { at: number; cancel: AbortController };
  private closed = false;

  constructor(
    private readonly clock: PacerClock = realClock,
    /** The longest wait for the throttle; longer throws ThrottleTooLong. */
    private readonly maxWaitMs = MAX_THROTTLE_WAIT_MS,
  ) {}

  /** Waits until a request may be sent; throws ThrottleTooLong rather than wait longer than the pacer's longest. */
  async acquire(signal?: AbortSignal): Promise<Ticket> {
    for (;;) {
      signal?.throwIfAborted();
      const wait = this.waitTime();
      if (wait > this.maxWaitMs) throw new ThrottleTooLong(wait, this.maxWaitMs);
      if (wait === 0) {
        this.inFlight++;
        return { sentAt: this.clock.now() };
      }
      await this.park(wait, signal);
    }
  }

  /** Reports the answer to a request let through by `acquire` (or its failure: no headers). */
  release(ticket: Ticket, status: number | undefined, headers: Record<string, string | string[] | undefined>): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.probing) this.probing = false;
    if (status !== undefined) this.answered = true;
    if (status !== undefined && status !== 429) this.confirming = false;
    const now = this.clock.now();
    const limit = intHeader(headers['x-ratelimit-limit']);
    const remaining = intHeader(headers['x-ratelimit-remaining']);
    if (limit !== undefined) this.limit = limit;
    if (remaining !== undefined) {
      const windowOver = this.windowEnd !== undefined && now >= this.windowEnd;
      if (this.remaining === undefined || remaining < this.remaining || windowOver || this.windowEnd === undefined) {
        this.remaining = remaining;
      }
      if (limit !== undefined && remaining === limit - 1) {
        // This request opened a window.
        this.windowOpenedAt = ticket.sentAt;
        if (this.windowMs !== undefined) this.windowEnd = ticket.sentAt + this.windowMs;
      }
    }
    if (status === 429) {
      const until = retryAt(headers, now);
      // A predicted window that had not ended: the whole-second guess was too short.
      if (this.confirming && this.windowMs !== undefined) this.wholeSeconds = false;
      if (until !== undefined) {
        this.blockedUntil = Math.max(this.blockedUntil, until);
        this.windowEnd = until;
        // The window still open is the last one seen to open (a predicted one that did not end
        // is the same window): its length is from that opening to this end.
        if (this.windowOpenedAt !== undefined && this.windowOpenedAt < until) {
          const bound = until - this.windowOpenedAt;
          // Retry-After and X-RateLimit-Reset count whole seconds, rounded up: the end they say
          // is up to a second late. A window of whole seconds is the one below that bound.
          this.windowMs = this.wholeSeconds && bound >= 1000 ? Math.floor(bound / 1000) * 1000 : bound;
          this.windowEnd = this.windowOpenedAt + this.windowMs;
        }
      } else {
        this.blockedUntil = Math.max(this.blockedUntil, now + 1000);
      }
      this.remaining = 0;
    }
    this.wake();
  }

  private waitTime(): number {
    const now = this.clock.now();
    if (now < this.blockedUntil) return this.blockedUntil - now;
    if (!this.answered) return this.inFlight < FIRST_REQUESTS ? 0 : -1;
    if (this.limit === undefined || this.remaining === undefined) return 0;
    const margin = this.margin();
    if (this.windowEnd !== undefined && now >= this.windowEnd + margin) {
      // The window we knew of is over: a fresh one has the full limit, once one request has
      // seen it open. Its opening time is kept until then: a 429 instead means the window grew.
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

  private margin(): number {
    return this.windowMs === undefined ? WINDOW_MARGIN_MS : Math.min(WINDOW_MARGIN_MS, Math.max(MIN_MARGIN_MS, this.windowMs / 50));
  }

  /** Waits for the next answer, or `wait` ms when it is positive. */
  private park(wait: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(done);
      if (wait > 0) this.schedule(this.clock.now() + wait);
    });
  }

  /**
   * Once the run is over: the timer is called off (a wait for the throttle must not keep the
   * process alive after the run, when Ctrl-C stopped it or a sibling request failed it), and no
   * new one is set. A caller still parked is never woken: nothing more is sent.
   */
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
        this.wake();
      },
      () => {}, // replaced by an earlier timer
    );
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

function intHeader(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  return Number(v);
}

/** When a 429 says the window ends: Retry-After (seconds or an HTTP date), else X-RateLimit-Reset. */
export function retryAt(headers: Record<string, string | string[] | undefined>, now: number): number | undefined {
  const retryAfter = headers['retry-after'];
  const ra = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  if (ra !== undefined) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return now + Number(ra) * 1000;
    const date = Date.parse(ra);
    if (!Number.isNaN(date)) return Math.max(now, date);
  }
  const reset = intHeader(headers['x-ratelimit-reset']);
  if (reset !== undefined) {
    // Unix seconds when large, else seconds from now.
    return reset > 1e9 ? Math.max(now, reset * 1000) : now + reset * 1000;
  }
  return undefined;
}
