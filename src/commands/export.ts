/** `sitesync export`: the live account as a valid config file. */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { writeAtomic } from '../files.js';
import { packageVersion, schemaPath } from '../paths.js';
import { renderAccountsExport, renderExport } from '../render/export.js';
import { accountName, onEveryAccount, workspaceFor, type FileAccountArgs } from './accounts.js';
import type { Context } from '../terminal.js';
import { openSession, readLiveState, type GlobalArgs } from './session.js';
import { assertOutputFile, writeFailure } from './shared.js';

export interface ExportArgs extends GlobalArgs, FileAccountArgs {
  output?: string;
  includeFavorite?: boolean;
  force?: boolean;
}

export async function runExport(args: ExportArgs, ctx: Context): Promise<number> {
  const file = args.output === undefined ? undefined : resolve(ctx.cwd, args.output);
  // Before reading the account: a run that cannot write its file should fail at once.
  if (file) await assertOutputFile(file, args.output!, '--output', args.force === true);
  const generatedBy = `sitesync ${packageVersion()} on ${new Date().toISOString().slice(0, 10)}`;
  const schema = schemaReference(args.output ? dirname(resolve(ctx.cwd, args.output)) : ctx.cwd);
  const fromFile = await workspaceFor(args, ctx);
  let text: string;
  let count: number;
  if (fromFile?.workspace.multi) {
    // Every account or none: a file with an account missing would, with prune, plan its websites away.
    const accounts = await onEveryAccount(fromFile.workspace, fromFile.shown, args, ctx, 'exported', async (session, config) => ({
      name: accountName(config),
      apiKeyEnv: config.account!.apiKeyEnv,
      baseUrl: session.baseUrl,
      // No progress line per account: several are read at once.
      account: await session.client.getAccount(),
      live: await session.client.listWebsites(),
    }));
    count = accounts.reduce((n, a) => n + a.live.length, 0);
    text = renderAccountsExport(accounts, { includeFavorite: args.includeFavorite, generatedBy, schema });
    return write(file, text, count, args, ctx);
  }
  const session = await openSession(args, ctx, fromFile?.workspace.configs[0]?.baseUrl);
  try {
    const { account, live } = await readLiveState(session, ctx);
    count = live.length;
    text = renderExport(live, account, {
      baseUrl: session.baseUrl,
      includeFavorite: args.includeFavorite,
      generatedBy,
      schema,
    });
  } finally {
    await session.client.close();
  }
  return write(file, text, count, args, ctx);
}

async function write(file: string | undefined, text: string, count: number, args: ExportArgs, ctx: Context): Promise<number> {
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
