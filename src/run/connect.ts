/**
 * Where each account of a run is and which key it uses, checked for every account before
 * anything is read: a missing variable or a bad address is the file's problem, not one
 * account's failure. A single-account file's one account takes its base URL from --base-url,
 * SITESYNC_BASE_URL or api.base_url, and its key from --api-key-file or SITESYNC_API_KEY; each
 * account of an `accounts:` file takes its base_url and the variable its api_key_env names.
 */
import { installationOf } from '../model/address.js';
import { envValue } from '../config/interpolate.js';
import type { Env } from '../io/context.js';
import { unsetKeyVariable } from '../config/load.js';
import { SitesyncError, UsageError, type Diagnostic } from '../messages/errors.js';
import type { Config, Workspace } from '../model/types.js';
import { keyProblem, resolveApiKey, resolveBaseUrl, type ConnectionFlags } from '../service/connection.js';
import { accountName } from './select.js';

export interface Connection {
  /** Normalized: no trailing slash, no API path. */
  baseUrl: string;
  apiKey: string;
  /** Where the key came from, for messages: a flag or a variable's name, never the key. */
  keyFrom: string;
  /** The installation the base URL names (see installationOf): accounts there share a throttle. */
  installation: string;
}

/** The keys' variables a run misses, as problems of the file (at each account's name). */
export function missingKeys(workspace: Workspace, configs: Config[], flags: ConnectionFlags, env: Env): Diagnostic[] {
  if (!workspace.multi) {
    const set = flags.apiKeyFile !== undefined || Boolean(envValue(env, 'SITESYNC_API_KEY')?.trim());
    return set ? [] : [{ file: workspace.file, line: 0, col: 0, severity: 'error', message: 'no API key: set SITESYNC_API_KEY, or pass --api-key-file FILE (the key is never read from the config file)' }];
  }
  return configs.flatMap((config) => {
    const unset = unsetKeyVariable(config, env);
    return unset ? [{ file: workspace.file, ...config.account!.pos, severity: 'error' as const, message: unset }] : [];
  });
}

/**
 * Each config's connection. Every problem of every account is said at once, and nothing is read
 * while any remains. `note` receives what is worth saying but stops nothing.
 */
export async function connectionsOf(
  workspace: Workspace,
  configs: Config[],
  flags: ConnectionFlags,
  env: Env,
  shown: string,
  note: (line: string) => void,
): Promise<Map<Config, Connection>> {
  const out = new Map<Config, Connection>();
  const problems: string[] = [];
  if (!workspace.multi) {
    const config = configs[0]!;
    let baseUrl: string | undefined;
    try {
      baseUrl = resolveBaseUrl(flags, env, config.baseUrl);
    } catch (error) {
      problems.push((error as Error).message);
    }
    try {
      const apiKey = await resolveApiKey(flags, env);
      const keyFrom = flags.apiKeyFile !== undefined ? `--api-key-file ${flags.apiKeyFile}` : 'SITESYNC_API_KEY';
      if (baseUrl !== undefined) out.set(config, { baseUrl, apiKey, keyFrom, installation: installationOf(baseUrl) });
    } catch (error) {
      problems.push((error as Error).message);
    }
  } else {
    const misplaced = [flags.baseUrl !== undefined && '--base-url', flags.apiKeyFile !== undefined && '--api-key-file'].filter(Boolean);
    if (misplaced.length) {
      throw new UsageError(
        `${misplaced.join(' and ')}: ${shown} holds accounts, each with its own base_url and api_key_env; ${misplaced.length > 1 ? 'these are' : 'this is'} for single-account files`,
      );
    }
    const ignored = ['SITESYNC_BASE_URL', 'SITESYNC_API_KEY'].filter((name) => env[name]);
    if (ignored.length) {
      note(`${ignored.join(' and ')} ${ignored.length > 1 ? 'are' : 'is'} not used: each account of ${shown} has its own base_url and api_key_env.`);
    }
    for (const config of configs) {
      const name = accountName(config);
      const variable = config.account!.apiKeyEnv;
      try {
        if (config.baseUrl === undefined) throw new SitesyncError(`account ${name} has no base_url`);
        const baseUrl = resolveBaseUrl({ insecureHttp: flags.insecureHttp }, {}, config.baseUrl);
        const unset = unsetKeyVariable(config, env);
        if (unset) throw new SitesyncError(unset);
        const raw = envValue(env, variable)!.trim();
        const problem = keyProblem(raw);
        if (problem) throw new SitesyncError(`account ${name}: ${variable} is not an API key: ${problem}`);
        out.set(config, { baseUrl, apiKey: raw, keyFrom: `${variable} (the api_key_env of account ${name})`, installation: installationOf(baseUrl) });
      } catch (error) {
        problems.push((error as Error).message.replace(/^api\.base_url/, `account ${name}: base_url`));
      }
    }
  }
  // One account, one entry: two entries with one key are one account, whatever their base URLs say.
  const byKey = new Map<string, Config>();
  for (const [config, connection] of out) {
    const first = byKey.get(connection.apiKey);
    if (first) {
      problems.push(`accounts ${accountName(first)} and ${accountName(config)} use the same API key (${first.account!.apiKeyEnv} and ${config.account!.apiKeyEnv}): they are one account; keep one entry for it`);
    } else byKey.set(connection.apiKey, config);
  }
  if (problems.length) {
    const error = new SitesyncError(problems.length === 1 ? problems[0]! : `${problems.length} problems stop the run; nothing was read or written`);
    if (problems.length > 1) error.details = problems;
    throw error;
  }
  return out;
}
