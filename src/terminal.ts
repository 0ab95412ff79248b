/**
 * What a command may touch of the outside world besides the service: its streams, environment
 * and whether a person is watching. `cli.ts` builds it from the process; tests may build their own.
 */
import pc from 'picocolors';
import type { Env } from './config/interpolate.js';
import type { SecretValues } from './secrets.js';

export type Colors = ReturnType<typeof pc.createColors>;

export interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
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

/** `--no-color` and NO_COLOR always win; FORCE_COLOR turns colour on without a terminal. */
export function colorsFor(stream: Stream, env: Env, flag: boolean | undefined): Colors {
  if (flag === false || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return pc.createColors(false);
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return pc.createColors(true);
  return pc.createColors(Boolean(stream.isTTY) && env.TERM !== 'dumb');
}
