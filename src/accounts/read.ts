/** The "read live state" step: each account's identity and websites, installations side by side. */
import { SitesyncError } from '../errors.js';
import { eachAccount } from './each.js';
import { fail, type Run, type RunAccount } from './run.js';
import type { Context } from '../terminal.js';

/** Pages read so far and pages known, across every account being read. */
export type ReadProgress = (done: number, total: number) => void;

/**
 * Reads the account and every website of each account of the run that has not failed yet. An
 * account that cannot be read is failed; the others are read all the same.
 */
export async function readAccounts(run: Run, ctx: Pick<Context, 'secrets'>, onProgress?: ReadProgress): Promise<void> {
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
  const outcomes = await eachAccount(
    run.accounts.filter((a) => !a.failure),
    (a) => a.connection.installation,
    async (a) => {
      pages.set(a, { done: 0, known: 1 });
      const [account, live] = await Promise.all([
        a.client.getAccount(),
        a.client.listWebsites({}, (done, of) => {
          pages.set(a, { done, known: of ?? done });
          report();
        }),
      ]);
      a.account = account;
      a.live = live;
    },
  );
  for (const o of outcomes) if (!o.ok) fail(o.item, o.error, ctx);
}

/**
 * Reads every account, all or none: when any account cannot be read, one error names each (and
 * nothing is `done`, e.g. "exported"), so no partial file is ever written. The one account of a
 * single-account file fails with its own error.
 */
export async function readEvery(run: Run, ctx: Pick<Context, 'secrets'>, done: string, onProgress?: ReadProgress): Promise<void> {
  await readAccounts(run, ctx, onProgress);
  const failed = run.accounts.filter((a) => a.failure);
  if (failed.length === 0) return;
  if (!run.named) throw failed[0]!.error;
  const error = new SitesyncError(`nothing was ${done}: ${failed.length} of ${run.accounts.length} accounts could not be read`);
  error.details = failed.flatMap((a) => [`${a.name}: ${a.failure!.message}`, ...a.failure!.details.map((d) => `  ${d}`)]);
  throw error;
}
