/**
 * Time that moves only when a test lets it: `sleep` parks until the clock gets there, and `run`
 * jumps from one timer to the next, letting every task that wakes run to its next wait before
 * moving on. A test of minutes of throttling takes milliseconds, and always goes the same way.
 */
import type { PacerClock } from '../../src/service/pacer.js';

interface Sleeper {
  at: number;
  order: number;
  wake: (value: void) => void;
}

export class FakeClock implements PacerClock {
  private time: number;
  private sleepers: Sleeper[] = [];
  private order = 0;

  constructor(start = 1_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const sleeper = { at: this.time + Math.max(0, ms), order: this.order++, wake: resolve };
      this.sleepers.push(sleeper);
      // A timer called off never fires (the pacer replaces its timer with an earlier one).
      signal?.addEventListener('abort', () => ((this.sleepers = this.sleepers.filter((s) => s !== sleeper)), reject(signal.reason)), { once: true });
    });
  }

  /** Runs `work` to its end, moving time from timer to timer; fails if nothing is left to wake it. */
  async run<T>(work: Promise<T>, limitMs = 24 * 3600_000): Promise<T> {
    const start = this.time;
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve)); // every woken task runs to its next wait
      if (settled) return work;
      const next = this.sleepers.reduce<Sleeper | undefined>((a, s) => (!a || s.at < a.at || (s.at === a.at && s.order < a.order) ? s : a), undefined);
      if (!next) throw new Error('stuck: the work waits, and no timer is left to wake it');
      if (next.at - start > limitMs) throw new Error(`still not done after ${limitMs} ms of fake time`);
      this.sleepers = this.sleepers.filter((s) => s !== next);
      this.time = Math.max(this.time, next.at);
      next.wake();
    }
  }

  /** Moves time forward by `ms`, waking every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const done = this.sleep(ms);
    await this.run(done);
  }
}
