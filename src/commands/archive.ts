/** `sitesync archive DOMAIN|GLOB…`: each matching live website's whole history, written to files. Writes nothing to the service. */
import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { SitesyncError, UsageError } from '../messages/errors.js';
import { printable } from '../messages/escape.js';
import { GlobSet, globProblem } from '../model/domain.js';
import type { Context } from '../io/context.js';
import { assertPatternsMatch } from '../planner/plan.js';
import { archivedLine } from '../render/archive.js';
import { ProgressLine, readingProgress } from '../render/progress.js';
import { archiveWebsite } from '../run/archive.js';
import { failureOf, openRun } from '../run/open.js';
import { readEvery } from '../run/read.js';
import { reportRequests } from '../run/requests.js';
import { accountsFile, defineCommand, type CommandArgs } from './define.js';

/** Where archives go without -o and without archive: in the file. */
export const DEFAULT_ARCHIVE_DIR = 'sitesync-archive';

const options = {
  ...accountsFile,
  output: { alias: 'o', type: 'string', requiresArg: true, describe: `The folder the archives go in (default: the file's archive:, else ${DEFAULT_ARCHIVE_DIR})` },
} as const;

const positionals = {
  websites: { type: 'string', array: true, describe: 'Live websites to archive: domains, or patterns (* within a label)' },
} as const;

export const archiveCommand = defineCommand({
  path: ['archive'],
  describe: "Write live websites' whole history (every statistic) to archive files; writes nothing to the service",
  positionals,
  options,
  online: true,
  examples: [
    ['$0 archive old.example.com', 'Its history to sitesync-archive/old.example.com-ID-DATE.json (and .csv)'],
    ["$0 archive '*.campaign-2024.example.com' -o archives", 'Every website the pattern matches, into archives/'],
    ['$0 archive -c sitesync.yaml --account acme shop.acme.example', 'A website of one account of a file with accounts'],
  ],
  run: runArchive,
});

async function runArchive(args: CommandArgs<typeof options, typeof positionals>, ctx: Context): Promise<number> {
  const patterns = args.websites ?? [];
  if (patterns.length === 0) throw new UsageError("name the websites to archive: sitesync archive old.example.com '*.campaign.example.com'");
  for (const p of patterns) {
    const problem = globProblem(p);
    if (problem) throw new UsageError(problem);
  }
  const flagDir = args.output === undefined ? undefined : resolve(ctx.cwd, args.output);
  // Before reading anything: a folder that cannot hold the archives should fail at once.
  if (flagDir && (await stat(flagDir).catch(() => undefined))?.isDirectory() === false) throw new SitesyncError(`-o ${args.output}: this is a file, not a folder`);
  const run = await openRun(args, ctx, { lenientEnv: true, optionalConfig: true });
  const failures: string[] = [];
  let written = 0;
  try {
    const progress = readingProgress(ctx);
    // The named websites are found by the service's search, as plan --target finds them.
    const accounts = await readEvery(run, ctx, 'archived', progress.update, patterns).finally(progress.done);
    assertPatternsMatch({ targets: patterns }, accounts.map((a) => a.live.map((w) => w.domain)), run.named ? 'in any account' : 'in the account');
    const chosen = new GlobSet(patterns);
    for (const a of accounts) {
      const dir = flagDir ?? a.config.archive?.dir ?? resolve(ctx.cwd, DEFAULT_ARCHIVE_DIR);
      for (const website of a.live.filter((w) => chosen.matches(w.domain))) {
        const label = `${run.named ? `[${a.name}] ` : ''}${website.domain}`;
        const line = new ProgressLine(ctx.stderr, `${printable(label)}:`, Boolean(ctx.stderr.isTTY) && !ctx.verbose, 'pages');
        try {
          const done = await archiveWebsite(
            a.client,
            { website, dir, baseUrl: a.connection.baseUrl, account: a.account, configAccount: run.named ? a.name : null, cwd: ctx.cwd },
            (read, estimate) => line.update({ done: read, total: estimate, failed: 0 }),
          );
          line.done();
          ctx.stdout.write(`${archivedLine(label, done, ctx.out)}\n`);
          written++;
        } catch (error) {
          line.done();
          if (!(error instanceof SitesyncError) || error.name === 'InterruptedError') throw error;
          const { message } = failureOf(error, ctx);
          failures.push(`${label}: ${message}`);
          ctx.stderr.write(`${ctx.err.red(`✗ ${printable(label)}: ${printable(message)}`)}\n`);
        }
      }
    }
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
  const summary = `Archived ${written} website${written === 1 ? '' : 's'}${failures.length ? `; ${failures.length} could not be archived` : ''}.`;
  ctx.stdout.write(`${failures.length ? ctx.out.red(summary) : ctx.out.green(summary)}\n`);
  return failures.length ? 1 : 0;
}
