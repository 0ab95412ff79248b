/**
 * Which config includes a file that has no `version` (an included file, `clients/acme/websites.yaml`):
 * the `sitesync.yaml` in its folder or a parent folder, looked for as git finds its repository (up
 * to the folder holding `.git`, or the root), whose includes match the file.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Workspace } from '../model/types.js';
import type { Env } from './interpolate.js';
import { loadWorkspace } from './load.js';

export interface Includer {
  /** The including config file (absolute). */
  config: string;
  /** The account that includes the file ('' in a single-account file). */
  account: string;
  /** The including config, read with every file it includes (problems kept, not thrown). */
  workspace: Workspace;
}

/** The config that includes `file`; undefined when no sitesync.yaml above it does. `looked` collects the configs read. */
export async function includerOf(file: string, env: Env, looked: string[] = []): Promise<Includer | undefined> {
  const real = realOf(file);
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const candidate = join(dir, 'sitesync.yaml');
    if (candidate !== file && existsSync(candidate)) {
      looked.push(candidate);
      const workspace = await loadWorkspace(candidate, env, { lenientEnv: true, missingEnvAsWarning: true, keepErrors: true }).catch(() => undefined);
      const match = Object.entries(workspace?.includedBy ?? {}).find(([path]) => realOf(path) === real);
      if (workspace && match) return { config: candidate, account: match[1], workspace };
    }
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) return undefined;
  }
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
