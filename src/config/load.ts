/** Loading a config file: read it (I/O), then parse it (pure). */
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
  const text = await readTextFile(file, options.what);
  return parseConfigYielding(text, file, { env, lenientEnv: options.lenientEnv });
}
