/**
 * The config file a saved plan is applied with, checked to be the one it was made from: never
 * one the plan file names, which is data like the rest of it.
 */
import { existsSync } from 'node:fs';
import type { Env } from '../io/context.js';
import { loadWorkspace } from '../config/load.js';
import { ConfigError, SitesyncError } from '../messages/errors.js';
import type { Workspace } from '../model/types.js';
import { repositoryPath, type SavedMeta } from './file.js';

/**
 * The config file a saved plan is applied with: the one the command names (`-c`, default
 * `sitesync.yaml`) — never one the plan file names, which is data like the rest of it. It must
 * be the file the plan was made from (the same path in its repository) and unchanged, with
 * every file it includes (same SHA-256); `${NAME}` is taken from the environment now.
 */
export async function loadSavedConfig(saved: SavedMeta, file: string, shown: string, shownPlan: string, env: Env): Promise<{ workspace: Workspace; shown: string }> {
  const again = `Make the plan again: sitesync plan${shown === 'sitesync.yaml' ? '' : ` -c ${shown}`} --out ${shownPlan}`;
  const refuse = (message: string, advice = `A saved plan takes its passwords only from the config file it was made from. ${again}`): never => {
    const error = new SitesyncError(message, { nothingWritten: true });
    error.details = [advice];
    throw error;
  };
  if (!existsSync(file)) refuse(`${shown}, the config file to apply ${shownPlan} with, cannot be read: no such file`, `${shownPlan} was made from ${saved.config_file} (from the top of its repository): give it with -c.`);
  if (repositoryPath(file) !== saved.config_file) {
    refuse(`${shownPlan} was made from ${saved.config_file}, not ${shown} (${repositoryPath(file)} in its repository)`, `Give the config file it was made from with -c, or make the plan again from ${shown}.`);
  }
  let workspace: Workspace | undefined;
  try {
    workspace = await loadWorkspace(file, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const first = error.diagnostics[0];
    refuse(`${shown}, which ${shownPlan} was made from, cannot be read: ${first?.message ?? error.message}`);
  }
  if (workspace!.sha256 !== saved.config_sha256) {
    refuse(`${shown}${workspace!.files.length > 1 ? ' or a file it includes' : ''} changed since ${shownPlan} was made from it (its SHA-256 differs)`);
  }
  return { workspace: workspace!, shown };
}
