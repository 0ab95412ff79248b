/** `sitesync account`: the account behind each key (one, or each account of a file with accounts). */
import { eachAccount } from '../run/each.js';
import { assertDistinctAccounts } from '../run/read.js';
import { failureOf, openRun, type RunArgs } from '../run/open.js';
import { renderAccountJson, renderAccountText, type AccountView } from '../render/account.js';
import type { Context } from '../io/terminal.js';
import { reportRequests } from './plan.js';

export interface AccountArgs extends RunArgs {
  format: 'text' | 'json';
}

export async function runAccount(args: AccountArgs, ctx: Context): Promise<number> {
  // Only the accounts and their services are needed: an unset ${NAME} of a password does not matter here.
  const run = await openRun(args, ctx, { lenientEnv: true, optionalConfig: true });
  try {
    const outcomes = await eachAccount(run.accounts, (a) => a.connection.installation, async (a) => {
      const [account, used] = await Promise.all([a.client.getAccount(), a.client.countWebsites()]);
      return { account, used };
    });
    if (!run.named && !outcomes[0]!.ok) throw outcomes[0]!.error;
    for (const o of outcomes) if (o.ok) o.item.account = o.value.account;
    assertDistinctAccounts(run.accounts);
    const views: AccountView[] = [
      ...outcomes.map((o) => ({ name: o.item.name, baseUrl: o.item.connection.baseUrl, ...(o.ok ? o.value : { failure: failureOf(o.error, ctx) }) })),
      ...run.skipped.map((a) => ({ name: a.name, baseUrl: a.config.baseUrl ?? '', failure: a.failure })),
    ];
    ctx.stdout.write(args.format === 'json' ? renderAccountJson(views) : renderAccountText(views, ctx.out));
    return views.some((v) => v.failure) ? 1 : 0;
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}
