/** Work on every account of a run: installations side by side, a few accounts of one at a time. */
import pLimit from 'p-limit';

/** Accounts of one installation worked on at once; installations run side by side. */
export const ACCOUNTS_PER_INSTALLATION = 8;

export type Outcome<A, T> = { item: A; ok: true; value: T } | { item: A; ok: false; error: unknown };

/**
 * `work` for every item (an account), at most ACCOUNTS_PER_INSTALLATION of one installation at
 * once. One item's failure does not stop the others; the outcomes come back in the items' order.
 */
export async function eachAccount<A, T>(items: readonly A[], installationOf: (item: A) => string, work: (item: A) => Promise<T>): Promise<Outcome<A, T>[]> {
  const limits = new Map<string, ReturnType<typeof pLimit>>();
  return Promise.all(
    items.map((item) => {
      const installation = installationOf(item);
      let limit = limits.get(installation);
      if (!limit) limits.set(installation, (limit = pLimit(ACCOUNTS_PER_INSTALLATION)));
      return limit(async (): Promise<Outcome<A, T>> => {
        try {
          return { item, ok: true, value: await work(item) };
        } catch (error) {
          return { item, ok: false, error };
        }
      });
    }),
  );
}
