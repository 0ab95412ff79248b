/** Loading a config file: read it (I/O), then parse it (pure). */
import type { Config } from '../model.js';
import type { Env } from './interpolate.js';
import { parseConfig } from './parse.js';
import { readTextFile } from './read.js';

export async function loadConfig(file: string, env: Env, options: { lenientEnv?: boolean } = {}): Promise<Config> {
  const text = await readTextFile(file);
  return parseConfig(text, file, { env, ...options });
}
