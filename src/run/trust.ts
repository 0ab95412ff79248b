/**
 * `--trusted-config FILE`: the base branch's copy of the config, which says where each account's
 * key may go, how safe its deletes are, and which variables its passwords may read. The file
 * under review (a pull request's) may change websites, not connections: an account it keeps must
 * have the same base_url and api_key_env (a single-account file, the same api.base_url) and the
 * trusted copy's archive: folder, and an account it adds is not planned until its connection is on
 * the base branch. So a pull request cannot send a key to a host of its choosing, or one account's
 * key to another account's service, or delete a history the base branch would have archived
 * without archiving it. Its `safety` may only be as strict or stricter, and each password may read
 * only what the account's `password_env` there lists, or a variable the account reads there already.
 */
import { posix, resolve } from 'node:path';
import { installationOf } from '../model/address.js';
import { readFileCollecting } from '../config/parse.js';
import { readTextFile } from '../config/read.js';
import { realOrSelf } from '../config/source.js';
import { accountWords, keyVariables, listedIn, loadWorkspace, passwordProblem, passwordReads, passwordsFromKeyVariables } from '../config/load.js';
import { ConfigError, SitesyncError, type Diagnostic } from '../messages/errors.js';
import type { Config, Safety, Workspace } from '../model/types.js';
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
  // A changed connection has no one line of its own: it is said of the file (or the account), beside the located problems.
  const problems: string[] = [];
  // A password may not read any variable the trusted copy holds a key in: an account the pull
  // request removed still has its key in the CI's environment.
  const located = passwordsFromKeyVariables(configs, workspace.file, keyVariables(trusted));
  const reads = await trustedReads(file, trusted, workspace);
  const untrusted = new Set<Config>();
  for (const config of configs) {
    const name = accountName(config);
    const base = trusted.find((t) => accountName(t) === name);
    if (!base) {
      untrusted.add(config);
      continue;
    }
    const where = name ? `account ${name}: ` : '';
    if (!same(config.baseUrl, base.baseUrl)) {
      problems.push(`${where}${name ? 'base_url' : 'api.base_url'} differs from the trusted config's (${trustedFile}): a change of where the key is sent must be on the base branch first`);
    }
    // Where deletes are archived is the base branch's say too: a pull request may add an archive:, not move or remove one.
    if (base.archive && archiveKey(config) !== archiveKey(base)) {
      problems.push(`${where}archive differs from the trusted config's (${trustedFile} archives to "${base.archive.shown}"): moving or removing where deleted websites' histories go must be on the base branch first`);
    }
    if (config.account?.apiKeyEnv !== base.account?.apiKeyEnv) {
      problems.push(`${where}api_key_env differs from the trusted config's (${trustedFile}): a change of which key an account uses must be on the base branch first`);
    }
    located.push(...looserSafety(config, base, workspace.file, trustedFile), ...unlistedPasswords(config, base, reads, workspace.file, trustedFile));
  }
  // Every problem at once, as every other check of the file: a pull request breaking three pins learns of all three in one run.
  located.sort((a, b) => (a.file === b.file ? a.line - b.line || a.col - b.col : a.file === workspace.file ? -1 : 1));
  const all = [...problems.map((message): Diagnostic => ({ file: shown, line: 0, col: 0, severity: 'error', message })), ...located];
  if (all.length) throw new ConfigError(all);
  return { untrusted };
}

/** An archive: folder as compared: `archive`, `./archive/` and `archive//` are one folder. */
function archiveKey(config: Config): string | undefined {
  return config.archive && posix.normalize(config.archive.shown.replace(/\\/g, '/')).replace(/\/+$/, '');
}

/** Which way each safety key is stricter: fewer deletes allowed, the threshold from fewer websites, recent history over more days. */
const STRICTER: Record<keyof Safety, 'lower' | 'higher'> = { max_delete_percent: 'lower', min_existing: 'lower', active_days: 'higher' };

/** Each `safety` value of `config` looser than the trusted copy's (a key not written is its default), at its line. */
function looserSafety(config: Config, base: Config, main: string, trustedFile: string): Diagnostic[] {
  const prefix = config.account ? `accounts.${config.account.name}.safety` : 'safety';
  return (Object.keys(STRICTER) as (keyof Safety)[]).flatMap((key) => {
    const mine = config.safety[key];
    const theirs = base.safety[key];
    if (STRICTER[key] === 'lower' ? mine <= theirs : mine >= theirs) return [];
    const pos = config.safetyAt?.[key] ?? config.safetyAt?.safety ?? config.account?.pos ?? { line: 1, col: 1 };
    const written = config.safetyAt?.[key] ? `${mine}` : `${mine} (the default: the file does not set it)`;
    const bound = STRICTER[key] === 'lower' ? 'at most' : 'at least';
    return [{ file: main, ...pos, severity: 'error' as const, message: `${prefix}.${key} is ${written}, looser than the trusted config's ${theirs} (${trustedFile}): it may be ${bound} ${theirs} here; a looser safety must be on the base branch first` }];
  });
}

/**
 * The variables each account's passwords read in the trusted copy: those of the file itself and
 * of the files it includes, where they are found beside it — never a file of the workspace under
 * review (a trusted copy in the same folder would include the pull request's own files).
 */
async function trustedReads(file: string, trusted: Config[], workspace: Workspace): Promise<Map<string, Set<string>>> {
  const reviewed = new Set(workspace.files.map((f) => realOrSelf(f)));
  const full = await loadWorkspace(file, {}, { lenientEnv: true }).then(
    (w) => w.configs,
    () => trusted,
  );
  return new Map(full.map((c) => [accountName(c), new Set(passwordReads(c).flatMap(({ name, site }) => (site.file && reviewed.has(realOrSelf(site.file)) ? [] : [name])))]));
}

/** Each password of `config` that reads a variable the trusted copy neither lists in the account's password_env nor reads for it. */
function unlistedPasswords(config: Config, base: Config, reads: Map<string, Set<string>>, main: string, trustedFile: string): Diagnostic[] {
  const known = reads.get(accountName(config)) ?? new Set<string>();
  const listed = listedIn(base.passwordEnv ?? []);
  const who = accountWords(config);
  return passwordReads(config)
    .filter((read) => !known.has(read.name) && !listed(read.name))
    .map((read) =>
      passwordProblem(
        read,
        main,
        `which ${who} may not read: the trusted config (${trustedFile}) neither lists it in the password_env of ${who} nor reads it in a password of ${who}; add it to that password_env on the base branch first`,
      ),
    );
}

function safeInstallation(url: string): string {
  try {
    return installationOf(url);
  } catch {
    return url;
  }
}
