/** Loading a config file: read it (I/O), then parse it (pure). */
import { createHash } from 'node:crypto';
import type { Config } from '../model.js';
import type { Env } from './interpolate.js';
import { parseConfig } from './parse.js';
import { readTextFile } from './read.js';

export async function loadConfig(file: string, env: Env, options: { lenientEnv?: boolean } = {}): Promise<Config> {
  return (await loadConfigAndHash(file, env, options)).config;
}

/** The config and the SHA-256 of the text it was parsed from, which binds a saved plan to it. */
export async function loadConfigAndHash(
  file: string,
  env: Env,
  options: { lenientEnv?: boolean } = {},
): Promise<{ config: Config; sha256: string }> {
  const { text, sha256 } = await readConfigText(file);
  return { config: parseConfig(text, file, { env, ...options }), sha256 };
}

export async function readConfigText(file: string): Promise<{ text: string; sha256: string }> {
  const text = await readTextFile(file);
  return { text, sha256: createHash('sha256').update(text).digest('hex') };
}
