/** Loading a config file: read it (I/O), then parse it (pure). */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ConfigError, SitesyncError } from '../errors.js';
import type { Config, Workspace } from '../model.js';
import type { ParseReply, ParseRequest } from './config-worker.js';
import type { Env } from './interpolate.js';
import { parseConfigYielding, type ParseOptions } from './parse.js';
import { readTextFile } from './read.js';

export interface LoadOptions {
  lenientEnv?: boolean;
  /** What the file is to the user, for messages: a config file, or a baseline file. */
  what?: 'config file' | 'baseline file';
  /**
   * Parse a large file on a worker thread: for callers with other work meanwhile (plan lists the
   * service), which then runs on the machine's other core. Alone, a worker only adds its start.
   */
  offThread?: boolean;
}

export async function loadConfig(file: string, env: Env, options: LoadOptions = {}): Promise<Config> {
  return (await loadConfigAndHash(file, env, options)).config;
}

/**
 * Every account a config file describes, with the files it includes. (Stub until the
 * many-account reader lands: a single-account file, as loadConfigAndHash reads it.)
 */
export async function loadWorkspace(file: string, env: Env, options: LoadOptions = {}): Promise<Workspace> {
  const { config, sha256 } = await loadConfigAndHash(file, env, options);
  return { file, multi: false, configs: [config], warnings: config.warnings, sha256, files: [file] };
}

/** The config and the SHA-256 of the text it was parsed from, which binds a saved plan to it. */
export async function loadConfigAndHash(file: string, env: Env, options: LoadOptions = {}): Promise<{ config: Config; sha256: string }> {
  const { text, sha256 } = await readConfigText(file, options.what);
  const parseOptions = { env, lenientEnv: options.lenientEnv };
  const config = options.offThread ? await parseOffThread(text, file, parseOptions) : await parseConfigYielding(text, file, parseOptions);
  return { config, sha256 };
}

export async function readConfigText(file: string, what?: LoadOptions['what']): Promise<{ text: string; sha256: string }> {
  const text = await readTextFile(file, what);
  return { text, sha256: createHash('sha256').update(text).digest('hex') };
}

/** Below this size a worker's start costs more than parsing off the main thread saves. */
const WORKER_FROM_BYTES = 128 * 1024;

/** The bundled worker, beside the chunk this module is in; absent when run from the sources. */
const WORKER_URL = new URL('./config-worker.js', import.meta.url);

async function parseOffThread(text: string, file: string, options: ParseOptions): Promise<Config> {
  if (text.length < WORKER_FROM_BYTES || !existsSync(fileURLToPath(WORKER_URL))) return parseConfigYielding(text, file, options);
  const reply = await new Promise<ParseReply>((resolve, reject) => {
    const worker = new Worker(WORKER_URL);
    worker.once('message', (message: ParseReply) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.postMessage({ text, file, options } satisfies ParseRequest);
  });
  if (reply.ok) return reply.config;
  if (reply.kind === 'config') throw new ConfigError(reply.diagnostics);
  if (reply.kind === 'sitesync') {
    const error = new SitesyncError(reply.message);
    error.details = reply.details;
    throw error;
  }
  const error = new Error(reply.message);
  if (reply.stack) error.stack = reply.stack;
  throw error;
}
