/** `sitesync import DOMAIN… | --unmanaged`: adds live websites to the config file, in place. */
import { resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { insertWebsites, type NewWebsiteEntry } from '../config/insert-websites.js';
import { readTextFile } from '../config/read.js';
import { parseConfig } from '../config/parse.js';
import { manageableTraits } from '../domain.js';
import { SitesyncError, UsageError } from '../errors.js';
import { namesDescriptor, writeAtomic } from '../files.js';
import type { Config, LiveWebsite } from '../model.js';
import { selectImports, type AccountLive, type ImportRequest } from '../planner/imports.js';
import { printable } from '../escape.js';
import { fileEntry, storedName } from '../config/file-entry.js';
import { readEvery } from '../accounts/read.js';
import { openRun, type RunArgs } from '../accounts/run.js';
import { readingProgress } from '../render/progress.js';
import type { Context } from '../terminal.js';
import { renderWarnings } from '../render/diagnostics.js';
import { writeFailure } from '../files.js';

export interface ImportArgs extends RunArgs {
  config: string;
  domains?: string[];
  unmanaged?: boolean;
  dryRun?: boolean;
}

export async function runImport(args: ImportArgs, ctx: Context): Promise<number> {
  const request = importRequest(args);
  const file = resolve(ctx.cwd, args.config);
  // The entries go into the file in place, which standard input is not (and a pipe is read once).
  if (namesDescriptor(file)) {
    throw new SitesyncError(`-c ${args.config}: import adds the websites to the config file in place; name the file itself, not standard input`);
  }
  // The text the entries go into, as it was when the file was read (checked again before writing).
  const read = await readTextFile(file);
  // Passwords are not sent: an unset ${NAME} does not stop an import.
  const run = await openRun(args, ctx, { lenientEnv: true });
  const { workspace } = run;
  try {
    ctx.stderr.write(renderWarnings(workspace.warnings, ctx.err));
    const progress = readingProgress(ctx);
    await readEvery(run, ctx, 'imported', progress.update).finally(progress.done);
  } finally {
    await run.close();
  }
  const accounts = run.accounts.map((a) => ({ config: a.config, live: a.live! }));
  const { imports, notes } = selectImports(accounts, request, args.config);
  for (const note of notes) ctx.stderr.write(`${ctx.err.dim(`Note: ${printable(note)}`)}\n`);
  if (imports.length === 0) {
    ctx.stdout.write(`Nothing to import: every live website is listed in ${args.config} or ignored.\n`);
    return 0;
  }

  const before = await readTextFile(file);
  if (before !== read) throw new SitesyncError(`${args.config} changed while the service was read; nothing was written. Run import again`);
  let after = before;
  for (const { config, sites } of imports) {
    after = insertWebsites(after, { account: config.account?.name }, sites.map((site) => newEntry(site, config)));
  }
  // The result must also be a valid config (a file with accounts is checked by the data check alone until its reader lands).
  if (!workspace.multi) parseConfig(after, file, { env: ctx.env, lenientEnv: true });

  if (args.dryRun) {
    ctx.stdout.write(createTwoFilesPatch(args.config, args.config, before, after, undefined, undefined, { context: 3 }));
    return 0;
  }
  await writeAtomic(file, after).catch((error: unknown) => {
    throw writeFailure(error, '-c', args.config);
  });
  for (const { config, sites } of imports) {
    const n = sites.length;
    const account = config.account ? ` (account ${config.account.name})` : '';
    ctx.stdout.write(`Imported ${n} website${n === 1 ? '' : 's'} into ${args.config}${account}: ${sites.map((s) => printable(storedName(s))).join(', ')}\n`);
  }
  ctx.stdout.write(`Check it with: sitesync plan${args.config === 'sitesync.yaml' ? '' : ` -c ${args.config}`}\n`);
  return 0;
}

function importRequest(args: ImportArgs): ImportRequest {
  const domains = args.domains ?? [];
  if (args.unmanaged && domains.length) throw new UsageError('give DOMAINs or --unmanaged, not both');
  if (args.unmanaged) return { unmanaged: true };
  if (!domains.length) throw new UsageError('say what to import: one or more DOMAINs, or --unmanaged');
  return { domains };
}

/** The entry a live website gets in the file: what differs from the account's defaults, with notes. */
function newEntry(site: LiveWebsite, config: Config): NewWebsiteEntry {
  const { entry, notes, unknown } = fileEntry(site, manageableTraits(storedName(site))!, { defaults: config.defaults });
  if (unknown.length) notes.push(`not returned by the service, not written: ${unknown.join(', ')}`);
  return { entry, notes };
}
