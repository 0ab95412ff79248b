import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer, realClock, retryAt } from '../../src/service/pacer.js';

/** A fake fixed-window throttle, as Laravel's: the window opens at the first request after the last closed. */
class FakeThrottle {
  private opened = -Infinity;
  private count = 0;
  constructor(readonly limit: number, readonly windowMs: number) {}
  hit(now: number): { status: number; headers: Record<string, string> } {
    if (now >= this.opened + this.windowMs) {
      this.opened = now;
      this.count = 0;
    }
    if (this.count >= this.limit) {
      const wait = Math.ceil((this.opened + this.windowMs - now) / 1000);
      return { status: 429, headers: { 'x-ratelimit-limit': String(this.limit), 'x-ratelimit-remaining': '0', 'retry-after': String(wait) } };
    }
    this.count++;
    return { status: 200, headers: { 'x-ratelimit-limit': String(this.limit), 'x-ratelimit-remaining': String(this.limit - this.count) } };
  }
}

describe('the pacer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('goes as fast as a 60-a-minute window allows, with one 429 to learn the window', async () => {
    const pacer = new Pacer(realClock);
    const throttle = new FakeThrottle(60, 60_000);
    const statuses: number[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < 200) {
        const ticket = await pacer.acquire();
        await new Promise((r) => setTimeout(r, 20)); // the request's own latency
        const answer = throttle.hit(Date.now());
        pacer.release(ticket, answer.status, answer.headers);
        statuses.push(answer.status);
        if (answer.status !== 429) sent++;
      }
    };
    const started = Date.now();
    let finished = false;
    const run = Promise.all([worker(), worker(), worker(), worker()]).then(() => (finished = true));
    while (!finished) await vi.advanceTimersByTimeAsync(50);
    await run;
    const elapsed = Date.now() - started;
    const throttled = statuses.filter((s) => s === 429).length;
    // 200 requests in windows of 60: the last window opens after 3 full windows (180 s).
    expect(elapsed).toBeGreaterThanOrEqual(180_000);
    expect(elapsed).toBeLessThan(180_000 * 1.1);
    expect(throttled).toBe(1);
  });

  it('a 429 holds every request until Retry-After', async () => {
    const pacer = new Pacer(realClock);
    const t = await pacer.acquire();
    pacer.release(t, 429, { 'retry-after': '3' });
    let released = false;
    const next = pacer.acquire().then(() => (released = true));
    await vi.advanceTimersByTimeAsync(2900);
    expect(released).toBe(false);
    await vi.advanceTimersByTimeAsync(300);
    await next;
    expect(released).toBe(true);
  });

  it('reads Retry-After as seconds or a date, and X-RateLimit-Reset as unix seconds', () => {
    expect(retryAt({ 'retry-after': '2' }, 1000)).toBe(3000);
    expect(retryAt({ 'retry-after': new Date(10_000).toUTCString() }, 1000)).toBe(10_000);
    expect(retryAt({ 'x-ratelimit-reset': '2000000000' }, 1000)).toBe(2_000_000_000_000);
    expect(retryAt({}, 1000)).toBeUndefined();
  });
});
