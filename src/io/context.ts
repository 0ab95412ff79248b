/**
 * What a command may touch of the outside world besides the service: its streams, environment,
 * whether a person is watching, and the one question sitesync asks (apply's "Apply?"). `cli.ts`
 * builds the context from the process; tests may build their own.
 */
import { createInterface } from 'node:readline/promises';
import pc from 'picocolors';
import { InterruptedError, NotApprovedError } from '../messages/errors.js';
import type { SecretValues } from '../secrets/values.js';

/** The environment a command reads: variables by name, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A colour: the text wrapped in its escape codes, or the text itself where colour is off. */
export type Paint = (text: string) => string;

/**
 * The colours sitesync writes with: picocolors' own functions, declared here so that the
 * library's types (a renderer takes colours) name nothing of a package bundled inside.
 */
export interface Colors {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}

export interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  /** The process's descriptor behind the stream (process.stdout's 1), to tell which file a shell redirected it to. */
  fd?: number;
}

export interface Io {
  stdout: Stream;
  stderr: Stream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Env;
  cwd: string;
}

export interface Context extends Io {
  /** Colours for stdout and stderr, each off unless that stream is a terminal. */
  out: Colors;
  err: Colors;
  verbose: boolean;
  /** Aborted on the first Ctrl-C. */
  signal: AbortSignal;
  /**
   * The API key, passwords and tokens of this run. Nothing sitesync writes itself holds them;
   * text from outside (the service's messages) is cleaned of them where it enters.
   */
  secrets: SecretValues;
}

/** The same context with another signal (its streams still made on first use, not copied). */
export function withSignal(ctx: Context, signal: AbortSignal): Context {
  return Object.create(ctx, { signal: { value: signal, enumerable: true } }) as Context;
}

/**
 * A CI job (`CI`, which GitHub Actions, GitLab CI and most others set; or theirs by name): no one
 * there types the commands a hint suggests, and the files it names are the job's own.
 */
export function inCi(env: Env): boolean {
  const ci = env.CI;
  return (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') || env.GITHUB_ACTIONS === 'true' || env.GITLAB_CI === 'true';
}

/**
 * The flag first, as typed for this run: `--no-color` never colours, `--color` always does (into a
 * pipe: `sitesync plan --color | less -R`). Without it, NO_COLOR turns colour off, FORCE_COLOR on
 * without a terminal, and a terminal has it.
 */
export function colorsFor(stream: Stream, env: Env, flag: boolean | undefined): Colors {
  if (flag !== undefined) return pc.createColors(flag);
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return pc.createColors(false);
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return pc.createColors(true);
  return pc.createColors(Boolean(stream.isTTY) && env.TERM !== 'dumb');
}

/**
 * Asks "Apply?" on the terminal; only "yes" goes on. Throws (nothing written) on any other
 * answer, Ctrl-C, the input ending, or when there is no terminal to ask on.
 */
export async function confirmApply(ctx: Context): Promise<void> {
  if (!ctx.stdin.isTTY) {
    throw new NotApprovedError(
      'apply asks before it writes, and there is no terminal to ask on: pass --auto-approve (e.g. in CI), or run it in a terminal', { nothingWritten: true },
    );
  }
  const rl = createInterface({ input: ctx.stdin, output: ctx.stdout as NodeJS.WritableStream, terminal: false });
  let onAbort = () => undefined as void;
  try {
    const answer = await new Promise<string>((resolveAnswer, reject) => {
      // Ctrl-C at the question is an interruption like any other: exit 130, as the shell expects.
      onAbort = () => reject(new InterruptedError('interrupted at the question', { nothingWritten: true }));
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      rl.question(`\n${ctx.out.bold('Apply?')} Only "yes" applies these changes. (yes/no) `).then(resolveAnswer, reject);
      // The input ended (Ctrl-D) without an answer.
      rl.once('close', () => resolveAnswer(''));
    });
    if (answer.trim() !== 'yes') {
      // "y" is no "yes": said, so that the next run is answered as asked.
      const why = /^y(es)?$/i.test(answer.trim()) ? ` (only "yes", in full, applies: you typed "${answer.trim()}")` : '';
      throw new NotApprovedError('apply was cancelled', { nothingWritten: { after: why } });
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    rl.close();
  }
}
