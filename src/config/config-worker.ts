/**
 * The config parser on a worker thread: `load.ts` sends a large file's text here so that the
 * main thread lists the service meanwhile, on the machine's other core. Only plain data goes
 * back: the parsed file, or the problems that become the same error on the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { ConfigError, SitesyncError } from '../errors.js';
import { readFileCollectingSync, type ParseOptions, type ReadFile } from './parse.js';

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

parentPort?.once('message', ({ text, file, options }: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = { ok: true, read: readFileCollectingSync(text, file, options) };
  } catch (error) {
    if (error instanceof ConfigError) reply = { ok: false, kind: 'config', diagnostics: error.diagnostics };
    else if (error instanceof SitesyncError) reply = { ok: false, kind: 'sitesync', message: error.message, details: error.details };
    else reply = { ok: false, kind: 'internal', message: String((error as Error)?.message ?? error), stack: (error as Error)?.stack };
  }
  parentPort!.postMessage(reply);
});
