/**
 * `sitesync verify`: does each managed website's page carry this installation's tracking code,
 * served from the website's own host? Exit 0 every website tracked, 2 some not, 1 a usage or
 * config error. Reads clients' pages only: nothing is sent to the service.
 */
import type { Context } from '../io/context.js';
import { UsageError } from '../messages/errors.js';
import { renderVerifyJson, renderVerifyMarkdown, renderVerifyText } from '../render/verify.js';
import { openRun } from '../run/open.js';
import { pageFetcher, parseConnectTo } from '../verify/fetch.js';
import { DEFAULT_DEADLINE_S, verifyAccounts } from '../verify/run.js';
import { accountsFile, defineCommand, planning, type CommandArgs } from './define.js';

export const verifyOptions = {
  'connect-to': {
    type: 'string',
    array: true,
    requiresArg: true,
    describe: "HOST1:PORT1:HOST2:PORT2, as curl's: connect to HOST2:PORT2 for HOST1:PORT1 (check a site before its DNS moves); the certificate is still checked for HOST1 (repeatable)",
  },
  deadline: { type: 'number', default: DEFAULT_DEADLINE_S, requiresArg: true, describe: "Seconds for each website's page, its redirects included" },
} as const;

const options = {
  ...accountsFile,
  target: planning.target,
  exclude: planning.exclude,
  ...verifyOptions,
  format: { choices: ['text', 'json', 'markdown'], default: 'text', describe: 'Output format' },
} as const;

export const verifyCommand = defineCommand({
  path: ['verify'],
  describe:
    "Check that each managed website's page (https://DOMAIN/, at most 5 redirects) carries the account's tracking code, sending to its installation, served from the website's own host. At most 8 pages at once; nothing is sent to the service. Exit 0 every website tracked, 2 some not, 1 a usage or config error",
  options,
  online: true,
  examples: [
    ['$0 verify', 'Every managed website of sitesync.yaml'],
    ['$0 verify --target "*.shop.example" --format markdown', 'Some websites, as a table for a pull request'],
    ['$0 verify --connect-to shop.example.com:443:203.0.113.7:443', 'The new server, before the DNS moves to it'],
  ],
  run: runVerify,
});

/** The flags' connect-to mappings and deadline, checked (a usage error before anything is fetched). */
export function verifySettings(args: { connectTo?: string[]; deadline?: number }) {
  const deadline = args.deadline ?? DEFAULT_DEADLINE_S;
  if (!(deadline > 0 && deadline <= 600)) throw new UsageError('--deadline must be a number of seconds, more than 0 and at most 600');
  return { connectTo: (args.connectTo ?? []).map(parseConnectTo), deadlineMs: deadline * 1000 };
}

async function runVerify(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  const settings = verifySettings(args);
  // Passwords are never sent here: an unset ${NAME} of one does not matter.
  const run = await openRun(args, ctx, { lenientEnv: true });
  const fetcher = pageFetcher(ctx.env, settings.connectTo);
  try {
    const accounts = run.accounts.map((a) => ({ name: a.name, config: a.config, baseUrl: a.connection.baseUrl }));
    const findings = await verifyAccounts(accounts, fetcher, { targets: args.target, excludes: args.exclude, deadlineMs: settings.deadlineMs });
    const format = args.format;
    ctx.stdout.write(format === 'json' ? renderVerifyJson(findings) : format === 'markdown' ? renderVerifyMarkdown(findings) : renderVerifyText(findings, ctx.out));
    return findings.every((f) => f.verdict === 'tracked') ? 0 : 2;
  } finally {
    await fetcher.close();
    await run.close();
  }
}
