/** The "read live state" step: each account's identity and websites, installations side by side. */
import { searchLiteral } from '../model/domain.js';
import { SitesyncError } from '../messages/errors.js';
import { eachAccount } from './per-installation.js';
import { accountsError, failedAccounts } from './failures.js';
import { failed, type AccountRead, type ReadAccount, type Run, type RunAccount } from './open.js';
import type { Account, LiveWebsite } from '../model/types.js';
import type { Context } from '../io/context.js';

/** Pages read so far and pages known, across every account being read. */
export type ReadProgress = (done: number, total: number) => void;

/**
 * Reads the account and the websites of each account of the run: every
 * website, or, for a plan narrowed by `targets`, those the service's search finds for them (with
 * the account's count, which the website limit needs) — requests in proportion to the change,
 * not to the account. An account that cannot be read is failed; the others are read all the same.
 * Returns each account of the run, in its order: read, or failed and why.
 */
export async function readAccounts(run: Run, ctx: Pick<Context, 'secrets'>, onProgress?: ReadProgress, targets: readonly string[] = []): Promise<AccountRead[]> {
  const pages = new Map<RunAccount, { done: number; known: number }>();
  const report = () => {
    let done = 0;
    let known = 0;
    for (const p of pages.values()) {
      done += p.done;
      known += Math.max(p.known, p.done);
    }
    onProgress?.(done, known);
  };
  const searches = searchesFor(targets);
  const outcomes = await eachAccount(
    run.accounts,
    (a) => a.connection.installation,
    async (a): Promise<ReadAccount> => {
      pages.set(a, { done: 0, known: 1 });
      const progress = (done: number, of: number | undefined) => {
        pages.set(a, { done, known: of ?? done });
        report();
      };
      if (!searches) {
        const [account, live] = await Promise.all([a.client.getAccount(), a.client.listWebsites({}, progress)]);
        return { ...a, account, live };
      }
      // The searches together read no more websites than one listing may (each could answer a million).
      const read = { count: 0 };
      const [account, total, ...found] = await Promise.all([
        a.client.getAccount(),
        a.client.countWebsites(),
        ...searches.map((search) => a.client.listWebsites({ search, search_by: 'domain' }, undefined, read)),
      ]);
      // One website found by several searches is one website.
      const live = [...new Map(found.flat().map((w) => [w.id, w])).values()].sort((x, y) => x.id - y.id);
      return { ...a, account, total, live };
    },
  );
  const accounts = outcomes.map((o) => (o.ok ? o.value : failed(o.item, o.error, ctx)));
  assertDistinctAccounts(accounts);
  return accounts;
}



/**
 * One account, one entry: two entries that reach the same account of one installation (its base
 * URL written two ways, two keys of one account) would each plan the other's websites away.
 * Checked once the accounts are known, before anything is written; nothing is then planned.
 * One installation may also be reached through two host names (`127.0.0.1` and `localhost`),
 * which sitesync cannot tell apart from two installations: there, the same account id and
 * e-mail (which two installations' first users may share) and the same websites read, by id and
 * domain, make one account.
 */
export function assertDistinctAccounts(accounts: readonly Identified[]): void {
  const seen = new Map<string, Identified>();
  const byIdentity = new Map<string, Identified[]>();
  const lines: string[] = [];
  for (const a of accounts) {
    if (!a.account || a.account.id === null) continue;
    const key = `${a.connection.installation}\0${a.account.id}`;
    const first = seen.get(key);
    if (first) {
      lines.push(`accounts ${first.name} and ${a.name} are one account (id ${a.account.id}) of ${a.connection.installation}: keep one entry for it`);
      continue;
    }
    seen.set(key, a);
    if (!a.account.email) continue;
    const identity = `${a.account.id}\0${a.account.email.toLowerCase()}`;
    const others = byIdentity.get(identity) ?? [];
    const twin = others.find((b) => hostsOnlyDiffer(a.connection.installation, b.connection.installation) && sameWebsites(a, b));
    if (twin) {
      lines.push(
        `accounts ${twin.name} and ${a.name} are one account (id ${a.account.id}, ${a.account.email}, the same ${a.live!.length} websites) reached through two host names, ${new URL(twin.connection.installation).host} and ${new URL(a.connection.installation).host}: keep one entry for it`,
      );
    }
    byIdentity.set(identity, [...others, a]);
  }
  if (lines.length === 0) return;
  const error = new SitesyncError(`${lines[0]}`, { nothingWritten: true });
  error.details = lines.slice(1);
  throw error;
}

/** An account as far as it was read: its identity, and its websites where they were listed. */
export type Identified = Pick<RunAccount, 'name' | 'connection'> & { readonly account?: Account; readonly live?: readonly LiveWebsite[] };

/** Two installations whose addresses differ in the host name alone (scheme, port and path the same). */
function hostsOnlyDiffer(x: string, y: string): boolean {
  const [a, b] = [new URL(x), new URL(y)];
  return a.hostname !== b.hostname && a.protocol === b.protocol && a.port === b.port && a.pathname === b.pathname;
}

/** Both accounts read, with websites, and the same ones (ids and domains): two empty accounts prove nothing. */
function sameWebsites(a: Identified, b: Identified): boolean {
  if (!a.live?.length || a.live.length !== b.live?.length) return false;
  const theirs = new Map(b.live.map((w) => [w.id, w.domain]));
  return a.live.every((w) => theirs.get(w.id) === w.domain);
}

/** The searches that find every website `targets` match; undefined when one of them needs the whole list. */
function searchesFor(targets: readonly string[]): string[] | undefined {
  if (targets.length === 0) return undefined;
  const literals = targets.map(searchLiteral);
  if (literals.some((l) => l === undefined)) return undefined;
  return [...new Set(literals as string[])];
}

/**
 * Reads every account, all or none: when any account cannot be read, one error names each (and
 * nothing is `done`, e.g. "exported"), so no partial file is ever written. Returns every account, read.
 */
export async function readEvery(run: Run, ctx: Pick<Context, 'secrets'>, done: string, onProgress?: ReadProgress, targets: readonly string[] = []): Promise<ReadAccount[]> {
  const accounts = await readAccounts(run, ctx, onProgress, targets);
  const error = accountsError(failedAccounts(run, accounts), run.accounts.length + run.skipped.length, (n) => `nothing was ${done}: ${n} could not be read`);
  if (error) throw error;
  return accounts as ReadAccount[];
}
