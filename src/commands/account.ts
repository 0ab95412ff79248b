/** `sitesync account`: the account behind each key (one, or each account of a file with accounts). */
import type { Context } from '../io/context.js';
import { renderAccountJson, renderAccountText, type AccountView } from '../render/account.js';
import { eachAccount } from '../run/per-installation.js';
import { throwIfLoneFailed } from '../run/failures.js';
import { failureOf, openRun } from '../run/open.js';
import { assertDistinctAccounts } from '../run/read.js';
import { reportRequests } from '../run/requests.js';
import { readUsage } from '../run/usage.js';
import { accountsFile, defineCommand, type CommandArgs } from './define.js';

const options = {
  ...accountsFile,
  format: { choices: ['text', 'json'], default: 'text', describe: 'Output format' },
  usage: {
    type: 'boolean',
    describe:
      "Also this month's pageviews against the plan's monthly limit, and the day they would run out at this pace. Costs one stats request per website of the account (managed or not), paced like the rest: at the service's 60 requests a minute, 300 websites take about 5 minutes",
  },
} as const;

export const accountCommand = defineCommand({
  path: ['account'],
  describe: 'Show the account that owns the API key',
  options,
  online: true,
  examples: [
    ['$0 account', 'Check the key and see the website limit'],
    ['$0 account -c sitesync.yaml', 'Every account of a file with accounts: checks each key'],
    ['$0 account --usage', "This month's pageviews of the plan's limit: when would every website stop recording?"],
  ],
  run: runAccount,
});

async function runAccount(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  // Only the accounts and their services are needed: an unset ${NAME} of a password does not matter here.
  const run = await openRun(args, ctx, { lenientEnv: true, optionalConfig: true });
  try {
    const outcomes = await eachAccount(run.accounts, (a) => a.connection.installation, async (a) => {
      if (args.usage) {
        const account = await a.client.getAccount();
        // The listing that the month's sum needs counts the websites too.
        const usage = await readUsage(a.client, account, new Date());
        return { account, used: usage.websites, usage };
      }
      const [account, used] = await Promise.all([a.client.getAccount(), a.client.countWebsites()]);
      return { account, used };
    });
    const failed = outcomes.flatMap((o) => (o.ok ? [] : [{ name: o.item.name, failure: failureOf(o.error, ctx), error: o.error }]));
    // Named accounts: each shown, a failed one with its reason. The lone account's failure is the command's error.
    throwIfLoneFailed(run, [], failed);
    assertDistinctAccounts(outcomes.map((o) => (o.ok ? { ...o.item, account: o.value.account } : o.item)));
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
