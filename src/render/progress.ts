/**
 * Progress for long work. On a terminal: one live line, redrawn at most ten times a second and
 * cleared at the end. Elsewhere (CI logs): nothing here; callers print one line per item.
 */
import type { Stream } from '../io/context.js';

export interface ProgressCounts {
  done: number;
  total: number;
  failed: number;
  /** What is under way, after the counts: "archiving gone.example: 40 of ~100 pages". */
  note?: string;
}

export class ProgressLine {
  private lastDraw = 0;
  private drawn = false;
  private readonly started = Date.now();

  constructor(
    private readonly stream: Stream,
    private readonly label: string,
    private readonly enabled = Boolean(stream.isTTY),
    /** What is counted, where the total is an estimate: "40 of ~100 pages" rather than "40/100". */
    private readonly unit?: string,
  ) {}

  update(counts: ProgressCounts, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const line = this.format(counts, now);
    const width = (this.stream.columns ?? 100) - 1;
    this.stream.write(`\r\u001b[2K${line.slice(0, width)}`);
    this.drawn = true;
  }

  /**
   * Prints a whole line above the live one, then redraws it on the next update. The line may go
   * to another stream (apply's lines go to stdout, so that `apply > log` keeps them); the live
   * line is cleared first, since both show on one terminal.
   */
  log(line: string, to: Stream = this.stream): void {
    if (this.enabled && this.drawn) this.stream.write('\r\u001b[2K');
    to.write(`${line}\n`);
    this.lastDraw = 0;
  }

  done(): void {
    if (this.enabled && this.drawn) this.stream.write('\r\u001b[2K');
    this.drawn = false;
  }

  private format({ done, total, failed, note }: ProgressCounts, now: number): string {
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 && done < total ? ` · eta ${formatSeconds((total - done) / rate)}` : '';
    const width = 20;
    const filled = total ? Math.round((done / total) * width) : 0;
    const bar = `[${'='.repeat(filled)}${' '.repeat(width - filled)}]`;
    const counts = this.unit ? `${done} of ~${total} ${this.unit}` : `${done}/${total}`;
    return `${this.label} ${bar} ${counts}${failed ? ` · ${failed} failed` : ''} · ${rate.toFixed(1)}/s${eta}${note ? ` · ${note}` : ''}`;
  }
}

export function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(Math.ceil(s - m * 60)).padStart(2, '0')}s`;
}

/**
 * The live line of reading the accounts, as pages read of pages known, on a terminal only (and
 * not with --verbose, whose request lines it would overwrite).
 */
export function readingProgress(ctx: { stderr: Stream; verbose: boolean }): { update: (done: number, total: number) => void; done: () => void } {
  const line = new ProgressLine(ctx.stderr, 'Reading websites', Boolean(ctx.stderr.isTTY) && !ctx.verbose);
  return { update: (done, total) => line.update({ done, total, failed: 0 }), done: () => line.done() };
}
