/**
 * The gate: would apply refuse this plan? One pure function, from a plan, its config and the
 * run's consents to the list of refusals, asked by `plan --fail-unsafe`, apply (fresh or saved),
 * `--require-approved` and the library alike, before any write. Each refusal is the error apply
 * stops that account with; the first is what it says.
 */
import { SitesyncError } from '../messages/errors.js';
import type { ApprovalCheck, Config, Plan } from '../model/types.js';
import { assertSafe } from './safety.js';

/** What the run consents to, and what it knows beside the plan. */
export interface Consents {
  /** `--force`: the delete thresholds overridden (never the website limit, never recent history). */
  force: boolean;
  /** Is this value an API key in use (every account's of the run, not only this one's)? */
  isKey: (value: string) => boolean;
  /** The config file as the user named it. */
  shownConfig: string;
  /** `--require-approved`: the plan compared with the approved one, which must find no difference. */
  approved?: ApprovalCheck;
}

/** Every reason apply refuses `plan` before any write; empty when it may go. */
export function refusals(plan: Plan, config: Config, consents: Consents): SitesyncError[] {
  const out: SitesyncError[] = [];
  const check = (run: () => void) => {
    try {
      run();
    } catch (error) {
      if (!(error instanceof SitesyncError)) throw error;
      out.push(error);
    }
  };
  const approval = consents.approved && approvalRefusal(consents.approved);
  if (approval) out.push(approval);
  // retire: is read at the top of a single-account file, and in an account of a file with accounts.
  check(() => assertSafe(plan, consents.force, `${consents.shownConfig}${config.account ? ` under accounts.${config.account.name}` : ''}`));
  check(() => assertNoKeyAsPassword(plan, consents.isKey, passwordsFrom(plan, config, consents.shownConfig)));
  return out;
}

/** `--require-approved`: why apply writes nothing — a plan that is not the approved one, or a file with nothing to compare with; undefined when it is as approved. */
export function approvalRefusal(check: ApprovalCheck): SitesyncError | undefined {
  if (check.unavailable) {
    const error = new SitesyncError(`--require-approved: ${check.unavailable}`, { nothingWritten: true });
    error.details = ['Apply what a reviewed plan comment approved: give its text with --approved FILE (sitesync ci approved -o FILE fetches it).'];
    return error;
  }
  if (check.differences.length === 0) return undefined;
  const n = check.differences.length;
  const error = new SitesyncError(`--require-approved: the plan differs from the one approved in ${check.file} (${n} ${n === 1 ? 'difference' : 'differences'}, ${check.why})`, { nothingWritten: true });
  error.details = ['Make a new plan in a pull request and have it reviewed, then apply that.'];
  return error;
}

/**
 * Refuses, before any write, a website password that is an API key in use (`isKey`: the run's
 * keys, every account's): the service would store the key where others can use it to open the
 * website.
 */
export function assertNoKeyAsPassword(plan: Plan, isKey: (value: string) => boolean, passwordFor: (domain: string) => string | undefined): void {
  const domains = plan.changes
    .filter((c) => c.fields.includes('password'))
    .map((c) => c.domain)
    .filter((domain) => {
      const password = passwordFor(domain);
      return password !== undefined && isKey(password);
    });
  if (domains.length === 0) return;
  const error = new SitesyncError(
    `the password of ${domains.join(', ')} is the API key: the service would store the key as a website password`, { nothingWritten: true },
  );
  error.details = ['Give the website a password of its own (password: ${NAME}, NAME set to another value).'];
  throw error;
}

/**
 * The password each change sends, from the config it was planned from: the website's own
 * `${NAME}` there, resolved when the file was loaded. Never from a name written in a plan.
 * Refuses, before any write, a plan that sends a password the file does not set.
 */
export function passwordsFrom(plan: Plan, config: Config, shownConfig: string): (domain: string) => string | undefined {
  const sites = new Map(config.websites.map((w) => [w.domain, w]));
  const passwordFor = (domain: string) => sites.get(domain)?.password?.value;
  const missing = plan.changes.filter((c) => c.fields.includes('password') && passwordFor(c.domain) === undefined).map((c) => c.domain);
  if (missing.length) {
    const error = new SitesyncError(
      `the plan sends a password for ${missing.join(', ')}, but ${shownConfig} sets none for ${missing.length === 1 ? 'it' : 'them'}`, { nothingWritten: true },
    );
    error.details = ['Make the plan again from the file.'];
    throw error;
  }
  return passwordFor;
}
