/**
 * The config parser's side of the worker thread on which `load.ts` has a large file parsed, so
 * that the main thread lists the service meanwhile, on the machine's other core. The thread is
 * bin/sitesync.cjs again (it runs the CLI's bundle from its code cache, as the main thread does)
 * and carries the messages; this is the work. Only plain data goes back: the parsed file, or
 * the problems that become the same error on the main thread.
 */
import { ConfigError, SitesyncError } from '../errors.js';
import { readFileCollectingSync, type ParseOptions, type ReadFile } from './parse.js';

/** What argv the worker gets, for bin/sitesync.cjs to know it is one. */
export const PARSE_WORKER_ARG = '--sitesync-parse-worker';

export interface ParseRequest {
  text: string;
  file: string;
  options: ParseOptions;
}

export type ParseReply =
  | { ok: true; read: ReadFile }
  | { ok: false; kind: 'config'; diagnostics: ConfigError['diagnostics'] }
  | { ok: false; kind: 'sitesync'; message: string; details: string[] }
  | { ok: false; kind: 'internal'; message: string; stack?: string };

export function answerParse({ text, file, options }: ParseRequest): ParseReply {
  try {
    return { ok: true, read: readFileCollectingSync(text, file, options) };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, kind: 'config', diagnostics: error.diagnostics };
    if (error instanceof SitesyncError) return { ok: false, kind: 'sitesync', message: error.message, details: error.details };
    return { ok: false, kind: 'internal', message: String((error as Error)?.message ?? error), stack: (error as Error)?.stack };
  }
}
