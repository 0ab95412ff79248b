/**
 * `password_env:` the environment variables an account's passwords may read (names, or globs).
 * The file's own list binds it; under --trusted-config the trusted copy's list binds the file
 * under review (run/trust.ts): a pull request cannot give a website another account's password.
 */
import type { Diagnostic } from '../messages/errors.js';
import { wildcardMatches } from '../model/domain.js';
import type { Config, DesiredWebsite, Pattern } from '../model/types.js';
import { passwordSource } from './interpolate.js';

/** Whether a list of names and globs holds `name`: a name written out by a lookup, then each glob with `*`. */
export function listed(list: readonly Pattern[], name: string): boolean {
  let split = SPLIT.get(list);
  if (!split) {
    split = { names: new Set(list.filter((p) => !p.glob.includes('*')).map((p) => p.glob)), globs: list.filter((p) => p.glob.includes('*')).map((p) => p.glob) };
    SPLIT.set(list, split);
  }
  return split.names.has(name) || split.globs.some((glob) => wildcardMatches(glob, name));
}

/** Each list's names and globs, apart, once: a list is read for every password of an account. */
const SPLIT = new WeakMap<readonly Pattern[], { names: Set<string>; globs: string[] }>();

/** One `${NAME}` a website's password reads. */
export interface PasswordRead {
  name: string;
  site: DesiredWebsite;
}

/** Every variable the passwords of `config`'s websites read, each with its website. */
export function passwordReads(config: Config): PasswordRead[] {
  return config.websites.flatMap((site) => (site.password ? passwordSource(site.password.template).variables.map((name) => ({ name, site })) : []));
}

/** How messages name an account: `account acme`, or the file for a single-account file. */
export function accountWords(config: Config): string {
  return config.account ? `account ${config.account.name}` : 'the file';
}

/** An error at the password that reads `name`, saying why it may not. */
export function passwordProblem({ name, site }: PasswordRead, main: string, why: string): Diagnostic {
  return { file: site.file ?? main, ...site.password!.pos, severity: 'error', message: `the password of ${site.written} reads \${${name}}, ${why}` };
}

/** Each password that reads a variable its own account's `password_env` does not list. */
export function ownPasswordEnvProblems(configs: Config[], main: string): Diagnostic[] {
  return configs.flatMap((config) => {
    const list = config.passwordEnv;
    if (!list) return [];
    const names = list.length ? list.map((p) => p.glob).join(', ') : 'none';
    return passwordReads(config)
      .filter((read) => !listed(list, read.name))
      .map((read) => passwordProblem(read, main, `which the password_env of ${accountWords(config)} does not list (${names}): a password reads only the variables of its own account`));
  });
}
