import { describe, expect, it } from 'vitest';
import { Throttle } from '../../src/emulator/throttle.js';
import { Pacer, retryAt, ThrottleTooLong } from '../../src/service/pacer.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { MAX_THROTTLE_WAIT_MS } from '../../src/caps.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
}

/** What the service saw: when each request arrived and what it answered. */
interface Hit extends Answer {
  at: number;
}

/** The emulator's own throttle (Laravel's fixed window), on the fake clock; headers as undici gives them. */
function emulatorThrottle(clock: FakeClock, limit: number, windowMs: number): (now: number) => Answer {
  const throttle = new Throttle(limit, windowMs, () => clock.now());
  return () => {
    const { allowed, headers } = throttle.hit('key');
    return { status: allowed ? 200 : 429, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
  };
}

/**
 * Laravel's throttle whose settings change while it runs, as when the service's configuration
 * changes: a new limit counts from the next request, a new length from the next window (the
 * open one keeps the end it was given when it opened).
 */
class ChangingThrottle {
  private count = 0;
  private closesAt = -Infinity;
  constructor(
    public limit: number,
    public windowMs: number,
  ) {}
  hit(now: number): Answer {
    if (now >= this.closesAt) {
      this.closesAt = now + this.windowMs;
      this.count = 0;
    }
    const limit = String(this.limit);
    if (this.count >= this.limit) {
      const retryAfter = String(Math.max(1, Math.ceil((this.closesAt - now) / 1000)));
      return { status: 429, headers: { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': '0', 'retry-after': retryAfter } };
    }
    this.count++;
    return { status: 200, headers: { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': String(this.limit - this.count) } };
  }
}

/**
 * `callers` tasks sending `total` requests (a 429 is sent again) through one pacer to `service`,
 * each request taking `latencyMs` there and back. Returns what the service saw.
 */
async function drive(
  clock: FakeClock,
  pacer: Pacer,
  service: (now: number) => Answer,
  { callers, total, latencyMs = 20, onHit }: { callers: number; total: number; latencyMs?: number; onHit?: (hits: Hit[]) => void },
): Promise<{ hits: Hit[]; elapsed: number; maxInFlight: number }> {
  const hits: Hit[] = [];
  let accepted = 0;
  let started = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const caller = async () => {
    while (started < total) {
      started++;
      const ticket = await pacer.acquire();
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await clock.sleep(latencyMs / 2);
      const answer = service(clock.now());
      hits.push({ ...answer, at: clock.now() });
      onHit?.(hits);
      await clock.sleep(latencyMs / 2);
      inFlight--;
      pacer.release(ticket, answer.status, answer.headers);
      if (answer.status === 429) started--;
      else accepted++;
    }
  };
  const begin = clock.now();
  await clock.run(Promise.all(Array.from({ length: callers }, caller)));
  expect(accepted).toBe(total);
  return { hits, elapsed: clock.now() - begin, maxInFlight };
}

const throttled = (hits: Hit[]) => hits.filter((h) => h.status === 429).length;

/** When each window opened: the answers that say one request of the limit is used. */
function openings(hits: Hit[]): number[] {
  return hits.filter((h) => h.status === 200 && Number(h.headers['x-ratelimit-remaining']) === Number(h.headers['x-ratelimit-limit']) - 1).map((h) => h.at);
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('the pacer, on a fake clock', () => {
  it('goes as fast as a 60-a-minute window allows, with one 429 to learn the window', async () => {
    const clock = new FakeClock();
    const { hits, elapsed } = await drive(clock, new Pacer(clock), emulatorThrottle(clock, 60, 60_000), { callers: 4, total: 200 });
    // 200 requests in windows of 60: the last window opens after 3 full windows (180 s).
    expect(elapsed).toBeGreaterThanOrEqual(180_000);
    expect(elapsed).toBeLessThan(180_000 * 1.01);
    expect(throttled(hits)).toBe(1);
  });

  it('learns the window from the answer that opened it and the first 429, then waits for each end instead of a 429', async () => {
    const clock = new FakeClock();
    const { hits } = await drive(clock, new Pacer(clock), emulatorThrottle(clock, 5, 10_000), { callers: 3, total: 40 });
    expect(throttled(hits)).toBe(1);
    const firstRefused = hits.findIndex((h) => h.status === 429);
    expect(firstRefused).toBe(5); // the sixth request: the first five told the limit, not the end
    // Every later window opens at the end of the one before: no earlier (a 429), and no later
    // than Retry-After's rounding up to a whole second and the pacer's small margin.
    const later = gaps(openings(hits)).slice(1);
    expect(later.length).toBeGreaterThanOrEqual(6);
    for (const gap of later) {
      expect(gap).toBeGreaterThanOrEqual(10_000);
      expect(gap).toBeLessThanOrEqual(10_000 + 1_000 + 200);
    }
  });

  it('a one-second window, told only in whole seconds, is paced at one second (not up to two)', async () => {
    const clock = new FakeClock();
    const { hits, elapsed } = await drive(clock, new Pacer(clock), emulatorThrottle(clock, 10, 1_000), { callers: 4, total: 200 });
    // 200 requests, 10 a window: the last window opens after 19 windows; a 2 % margin each at most.
    expect(elapsed).toBeGreaterThanOrEqual(19_000);
    expect(elapsed).toBeLessThan(19_000 * 1.04);
    expect(throttled(hits)).toBeLessThanOrEqual(2);
  });

  it('50 callers at once: two go first to learn the limits, then never more than the window has room for', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer(clock);
    // Before any answer only two requests go, however many callers wait.
    let through = 0;
    const waiting = Array.from({ length: 50 }, () => pacer.acquire().then((ticket) => (through++, ticket)));
    await clock.advance(5_000);
    expect(through).toBe(2);
    // An answer says 10 a window, 9 left: 8 more go (one is still in flight), the rest wait.
    const [first, second] = await Promise.all(waiting.slice(0, 2));
    pacer.release(first!, 200, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9' });
    await clock.advance(0);
    expect(through).toBe(10);
    pacer.release(second!, 200, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '8' });
    await clock.advance(5_000);
    expect(through).toBe(10);
  });

  it('50 callers sharing one pacer get through a throttle with one 429, as fast as its windows allow', async () => {
    const clock = new FakeClock();
    const { hits, elapsed, maxInFlight } = await drive(clock, new Pacer(clock), emulatorThrottle(clock, 20, 10_000), { callers: 50, total: 150 });
    expect(throttled(hits)).toBe(1);
    expect(maxInFlight).toBeLessThanOrEqual(20);
    // 150 requests, 20 a window: the eighth window opens after 70 s.
    expect(elapsed).toBeGreaterThanOrEqual(70_000);
    expect(elapsed).toBeLessThan(70_000 + 8 * 1_200);
  });

  /** A throttle of `start` that takes the settings of `change` at its `atHit`th request. */
  function driveChanging(start: { limit: number; windowMs: number }, { atHit, ...change }: { atHit: number; limit?: number; windowMs?: number }, load: { callers: number; total: number }) {
    const clock = new FakeClock();
    const service = new ChangingThrottle(start.limit, start.windowMs);
    const onHit = (seen: Hit[]) => seen.length === atHit && Object.assign(service, change);
    return drive(clock, new Pacer(clock), (now) => service.hit(now), { ...load, onHit });
  }

  it('a window that grows mid-run costs one more 429, which teaches the new length', async () => {
    // Once three windows are known, the service's windows become twice as long.
    const { hits } = await driveChanging({ limit: 5, windowMs: 10_000 }, { atHit: 16, windowMs: 20_000 }, { callers: 3, total: 60 });
    expect(throttled(hits)).toBe(2);
    for (const gap of gaps(openings(hits)).slice(-4)) {
      expect(gap).toBeGreaterThanOrEqual(20_000);
      expect(gap).toBeLessThanOrEqual(20_000 + 1_000 + 200);
    }
  });

  it('a lower limit is obeyed from the answer that says it: no 429 but the one that taught the window', async () => {
    // While the pacer waits for the second window's end, the service lowers its limit.
    const { hits } = await driveChanging({ limit: 10, windowMs: 10_000 }, { atHit: 21, limit: 4 }, { callers: 10, total: 60 });
    expect(throttled(hits)).toBe(1);
    expect(hits.filter((h) => h.headers['x-ratelimit-limit'] === '4').length).toBeGreaterThan(30);
  });

  it('a higher limit is used from the next window', async () => {
    const { hits, elapsed } = await driveChanging({ limit: 3, windowMs: 10_000 }, { atHit: 7, limit: 6 }, { callers: 10, total: 6 + 60 });
    expect(throttled(hits)).toBe(1);
    // 6 at 3 a window, then 60 at 6 a window: the twelfth window opens after 11 windows.
    expect(elapsed).toBeLessThan(11 * (10_000 + 1_200));
  });

  it('a 429 holds every request until Retry-After', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer(clock);
    const t = await pacer.acquire();
    pacer.release(t, 429, { 'retry-after': '3' });
    let released = false;
    const next = pacer.acquire().then(() => (released = true));
    await clock.advance(2900);
    expect(released).toBe(false);
    await clock.advance(300);
    await next;
    expect(released).toBe(true);
  });

  it('a caller that gives up while it waits leaves the queue', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer(clock);
    pacer.release(await pacer.acquire(), 429, { 'retry-after': '60' });
    const stop = new AbortController();
    const waiting = pacer.acquire(stop.signal);
    await clock.advance(1_000);
    stop.abort(new Error('interrupted'));
    await expect(waiting).rejects.toThrow('interrupted');
  });

  it('a throttle that asks for longer than the pacer waits (a day) fails the request at once, whatever says it', async () => {
    for (const headers of [{ 'retry-after': '86400' }, { 'retry-after': '99999999999999999999' }, { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 86_400) }]) {
      const clock = new FakeClock(Date.now());
      const pacer = new Pacer(clock);
      pacer.release(await pacer.acquire(), 429, headers);
      await expect(clock.run(pacer.acquire())).rejects.toThrow(ThrottleTooLong);
    }
    // Ten minutes is waited for.
    const clock = new FakeClock();
    const pacer = new Pacer(clock);
    pacer.release(await pacer.acquire(), 429, { 'retry-after': String(MAX_THROTTLE_WAIT_MS / 1000) });
    const start = clock.now();
    await clock.run(pacer.acquire());
    expect(clock.now() - start).toBe(MAX_THROTTLE_WAIT_MS);
  });

  it('closed, its timer is called off and none is set again: nothing of it outlives the run', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer(clock);
    pacer.release(await pacer.acquire(), 429, { 'retry-after': '60' });
    const parked = pacer.acquire();
    await clock.advance(1_000);
    pacer.close();
    await expect(clock.run(parked)).rejects.toThrow('stuck: the work waits, and no timer is left to wake it');
  });

  it('reads Retry-After as seconds or a date, and X-RateLimit-Reset as unix seconds', () => {
    expect(retryAt({ 'retry-after': '2' }, 1000)).toBe(3000);
    expect(retryAt({ 'retry-after': new Date(10_000).toUTCString() }, 1000)).toBe(10_000);
    expect(retryAt({ 'x-ratelimit-reset': '2000000000' }, 1000)).toBe(2_000_000_000_000);
    expect(retryAt({}, 1000)).toBeUndefined();
  });
});
