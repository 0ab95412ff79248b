/** `sitesync export`: the live accounts as a valid config file. */
import { fstat, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SitesyncError } from '../messages/errors.js';
import { readEvery } from '../run/read.js';
import { openRun } from '../run/open.js';
import { reportRequests } from '../run/requests.js';
import { assertOutputFile, namesDescriptor, writeAtomic, writeFailure } from '../io/files.js';
import { packageVersion, schemaReference } from '../io/paths.js';
import { renderAccountsExport, renderExport } from '../render/export.js';
import { readingProgress } from '../render/progress.js';
import type { Context } from '../io/context.js';
import { accountsFile, defineCommand, type CommandArgs } from './define.js';

const options = {
  ...accountsFile,
  output: { alias: 'o', type: 'string', requiresArg: true, describe: 'Write here instead of stdout' },
  'include-favorite': { type: 'boolean', describe: 'Also export the favorite flags' },
  force: { type: 'boolean', describe: 'Overwrite the --output file if it exists (without it, an existing file is refused)' },
} as const;

export const exportCommand = defineCommand({
  path: ['export'],
  describe: 'Write the live account as a config file',
  options,
  online: true,
  examples: [
    ['$0 export -o sitesync.yaml', 'Start managing an existing account'],
    ['$0 export -o sitesync.yaml --force', 'Replace an earlier export'],
    ['$0 export -c sitesync.yaml --account acme', 'One account of a file with accounts, in the accounts: form'],
  ],
  run: runExport,
});

async function runExport(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  const file = args.output === undefined ? undefined : resolve(ctx.cwd, args.output);
  // Before reading the accounts: a run that cannot write its file should fail at once.
  if (file) await assertOutputFile(file, args.output!, '--output', args.force === true);
  const emptied = await emptiedConfig(args, ctx);
  const run = await openRun(args, ctx, { lenientEnv: true, optionalConfig: true, noConfig: emptied });
  let text: string;
  let count: number;
  try {
    // Every account or none: a file with an account missing would, with prune, plan its websites away.
    const progress = readingProgress(ctx);
    const accounts = await readEvery(run, ctx, 'exported', progress.update).finally(progress.done);
    const options = {
      includeFavorite: args.includeFavorite,
      generatedBy: `sitesync ${packageVersion()} on ${new Date().toISOString().slice(0, 10)}`,
      schema: schemaReference(file ? dirname(file) : ctx.cwd),
    };
    count = accounts.reduce((n, a) => n + a.live.length, 0);
    text = run.named
      ? renderAccountsExport(
          accounts.map((a) => ({ name: a.name, apiKeyEnv: a.config.account!.apiKeyEnv, baseUrl: a.connection.baseUrl, account: a.account, live: a.live })),
          options,
        )
      : renderExport(accounts[0]!.live, accounts[0]!.account, { ...options, baseUrl: accounts[0]!.connection.baseUrl });
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
  if (!file) {
    ctx.stdout.write(text);
    return 0;
  }
  await writeAtomic(file, text).catch((error: unknown) => {
    throw writeFailure(error, '--output', args.output!);
  });
  ctx.stderr.write(`Wrote ${count} website${count === 1 ? '' : 's'} to ${args.output}. Check it with: sitesync plan -c ${args.output}\n`);
  return 0;
}

/**
 * `export > sitesync.yaml`: the shell empties the file before sitesync starts, and an empty file
 * that is this run's own standard output is its output, not a config: the one account then
 * comes from the flags and SITESYNC_* (true). Where they name none, or the file is empty
 * without being the output (an earlier `>` emptied it), what it held is lost here: the error
 * says so, and how to get it back.
 */
async function emptiedConfig(args: CommandArgs<typeof options>, ctx: Context): Promise<boolean> {
  const shown = args.config ?? 'sitesync.yaml';
  const path = resolve(ctx.cwd, shown);
  if (namesDescriptor(path)) return false;
  const file = await stat(path).catch(() => undefined);
  if (!file?.isFile() || file.size !== 0) return false;
  const output = ctx.stdout.fd === undefined ? undefined : await new Promise<Stats | undefined>((done) => fstat(ctx.stdout.fd!, (error, s) => done(error ? undefined : s)));
  const isOutput = output !== undefined && output.dev === file.dev && output.ino === file.ino;
  if (isOutput && args.config === undefined && !args.account?.length && (args.baseUrl !== undefined || ctx.env.SITESYNC_BASE_URL)) return true;
  const error = new SitesyncError(
    isOutput
      ? `${shown} is empty: the shell emptied it for "> ${shown}" before sitesync started, so there was no config left to read`
      : `${shown} is empty: an earlier "sitesync export > ${shown}" (or another ">") may have emptied it`,
  );
  error.details = [
    `If it held your config, get it back with: git checkout -- ${shown}`,
    `Then write the export to a file with -o, which replaces it only when the export is complete: sitesync export -o ${isOutput ? 'websites.yaml' : 'FILE'}`,
  ];
  throw error;
}
