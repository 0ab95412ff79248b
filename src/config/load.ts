/** Loading a config file: read it (I/O), then parse it (pure). */
import { createHash } from 'node:crypto';
import type { Config } from '../model.js';
import type { Env } from './interpolate.js';
import { parseConfigYielding } from './parse.js';
import { readTextFile } from './read.js';

export interface LoadOptions {
  lenientEnv?: boolean;
  /** What the file is to the user, for messages: a config file, or a baseline file. */
  what?: 'config file' | 'baseline file';
}

export async function loadConfig(file: string, env: Env, options: LoadOptions = {}): Promise<Config> {
  return (await loadConfigAndHash(file, env, options)).config;
}

/** The config and the SHA-256 of the text it was parsed from, which binds a saved plan to it. */
export async function loadConfigAndHash(file: string, env: Env, options: LoadOptions = {}): Promise<{ config: Config; sha256: string }> {
  const { text, sha256 } = await readConfigText(file, options.what);
  return { config: await parseConfigYielding(text, file, { env, lenientEnv: options.lenientEnv }), sha256 };
}

export async function readConfigText(file: string, what?: LoadOptions['what']): Promise<{ text: string; sha256: string }> {
  const text = await readTextFile(file, what);
  return { text, sha256: createHash('sha256').update(text).digest('hex') };
}
