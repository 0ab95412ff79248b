/** `sitesync export`: the live accounts as a valid config file. */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { readEvery } from '../run/read.js';
import { openRun } from '../run/open.js';
import { reportRequests } from '../run/requests.js';
import { assertOutputFile, writeAtomic, writeFailure } from '../io/files.js';
import { packageVersion, schemaPath } from '../io/paths.js';
import { renderAccountsExport, renderExport } from '../render/export.js';
import { readingProgress } from '../render/progress.js';
import type { Context } from '../io/terminal.js';
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
  const run = await openRun(args, ctx, { lenientEnv: true, optionalConfig: true });
  let text: string;
  let count: number;
  try {
    // Every account or none: a file with an account missing would, with prune, plan its websites away.
    const progress = readingProgress(ctx);
    await readEvery(run, ctx, 'exported', progress.update).finally(progress.done);
    const options = {
      includeFavorite: args.includeFavorite,
      generatedBy: `sitesync ${packageVersion()} on ${new Date().toISOString().slice(0, 10)}`,
      schema: schemaReference(file ? dirname(file) : ctx.cwd),
    };
    count = run.accounts.reduce((n, a) => n + a.live!.length, 0);
    text = run.named
      ? renderAccountsExport(
          run.accounts.map((a) => ({ name: a.name, apiKeyEnv: a.config.account!.apiKeyEnv, baseUrl: a.connection.baseUrl, account: a.account!, live: a.live! })),
          options,
        )
      : renderExport(run.accounts[0]!.live!, run.accounts[0]!.account!, { ...options, baseUrl: run.accounts[0]!.connection.baseUrl });
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
 * The schema of this sitesync, relative to the folder of the exported file, as the
 * yaml-language-server comment wants it. Installed in the config repository, that is
 * `./node_modules/sitesync/schemas/sitesync.schema.json`, the same for every clone.
 */
function schemaReference(folder: string): string {
  const path = relative(folder, schemaPath()).split(sep).join('/');
  return path.startsWith('.') || isAbsolute(path) ? path : `./${path}`;
}
