/**
 * `--trusted-config FILE`: the base branch's copy of the config, which says where each account's
 * key may go. The file under review (a pull request's) may change websites, not connections: an
 * account it keeps must have the same base_url and api_key_env (a single-account file, the same
 * api.base_url) and the trusted copy's archive: folder, and an account it adds is not planned
 * until its connection is on the base branch. So a pull request cannot send a key to a host of
 * its choosing, or one account's key to another account's service, or delete a history the base
 * branch would have archived without archiving it.
 */
import { posix, resolve } from 'node:path';
import { installationOf } from '../model/address.js';
import { readFileCollecting } from '../config/parse.js';
import { readTextFile } from '../config/read.js';
import { keyVariables, passwordsFromKeyVariables } from '../config/load.js';
import { ConfigError, SitesyncError } from '../messages/errors.js';
import type { Config, Workspace } from '../model/types.js';
import { accountName } from './select.js';

export interface Trust {
  /** The accounts the trusted copy does not hold: not connected, not planned. */
  untrusted: Set<Config>;
}

/**
 * Holds the connections of `configs` against the trusted copy. Throws, before anything is read
 * from a service, when the file under review changes one: naming the account and the setting,
 * never a variable's value.
 */
export async function checkTrust(workspace: Workspace, configs: Config[], trustedFile: string, cwd: string, shown: string): Promise<Trust> {
  const file = resolve(cwd, trustedFile);
  let trusted: Config[];
  let multi: boolean;
  try {
    // Only its connections matter: its websites and the files it includes are not read.
    const { parsed } = readFileCollecting(await readTextFile(file, 'config file'), file, { env: {}, lenientEnv: true });
    trusted = parsed.configs;
    multi = parsed.multi;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new SitesyncError(`--trusted-config ${trustedFile} cannot be read: ${error.diagnostics[0]?.message ?? error.message}; nothing was read or written`);
  }
  if (multi !== workspace.multi) {
    throw new SitesyncError(
      `${shown} ${workspace.multi ? 'holds accounts' : 'holds one account'}, and the trusted config ${trustedFile} ${multi ? 'holds accounts' : 'one account'}: a pull request cannot change the file's form; nothing was read or written`,
    );
  }
  const same = (a: string | undefined, b: string | undefined) => (a === undefined || b === undefined ? a === b : safeInstallation(a) === safeInstallation(b));
  const problems: string[] = [];
  const untrusted = new Set<Config>();
  for (const config of configs) {
    const name = accountName(config);
    const base = trusted.find((t) => accountName(t) === name);
    if (!base) {
      untrusted.add(config);
      continue;
    }
    const where = name ? `account ${name}` : shown;
    if (!same(config.baseUrl, base.baseUrl)) {
      problems.push(`${where}: ${name ? 'base_url' : 'api.base_url'} differs from the trusted config's (${trustedFile}): a change of where the key is sent must be on the base branch first`);
    }
    // Where deletes are archived is the base branch's say too: a pull request may add an archive:, not move or remove one.
    if (base.archive && archiveKey(config) !== archiveKey(base)) {
      problems.push(`${where}: archive differs from the trusted config's (${trustedFile} archives to "${base.archive.shown}"): moving or removing where deleted websites' histories go must be on the base branch first`);
    }
    if (config.account?.apiKeyEnv !== base.account?.apiKeyEnv) {
      problems.push(`${where}: api_key_env differs from the trusted config's (${trustedFile}): a change of which key an account uses must be on the base branch first`);
    }
  }
  // A password may not read any variable the trusted copy holds a key in: an account the pull
  // request removed still has its key in the CI's environment.
  const keyed = passwordsFromKeyVariables(configs, workspace.file, keyVariables(trusted));
  if (keyed.length) throw new ConfigError(keyed);
  if (problems.length) {
    const error = new SitesyncError(problems.length === 1 ? `${problems[0]}; nothing was read or written` : `${problems.length} connections differ from the trusted config; nothing was read or written`);
    if (problems.length > 1) error.details = problems;
    throw error;
  }
  return { untrusted };
}

/** An archive: folder as compared: `archive`, `./archive/` and `archive//` are one folder. */
function archiveKey(config: Config): string | undefined {
  return config.archive && posix.normalize(config.archive.shown.replace(/\\/g, '/')).replace(/\/+$/, '');
}

function safeInstallation(url: string): string {
  try {
    return installationOf(url);
  } catch {
    return url;
  }
}
