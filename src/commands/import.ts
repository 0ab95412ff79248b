/** `sitesync import DOMAIN… | --unmanaged`: adds live websites to the config file, in place. */
import { resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { insertWebsites, type NewWebsiteEntry } from '../edit/insert-websites.js';
import { placeImports, type FileEdit as PlacedEdit } from '../edit/import-placement.js';
import { readFileText, rewrite, withEdits, type FileText } from '../edit/file.js';
import { loadWorkspace } from '../config/load.js';
import { manageableTraits } from '../model/domain.js';
import { ConfigError, formatDiagnostic, SitesyncError, UsageError } from '../messages/errors.js';
import { namesDescriptor, withFileLocks, writeFailure } from '../io/files.js';
import { shownPath } from '../io/paths.js';
import type { Config, FieldName, LiveWebsite, Workspace } from '../model/types.js';
import { selectImports, type AccountImport, type ImportRequest } from '../planner/imports.js';
import { printable } from '../messages/escape.js';
import { fileEntry, storedName } from '../edit/file-entry.js';
import { readEvery } from '../run/read.js';
import { openRun, runWarnings, type ReadAccount } from '../run/open.js';
import { reportRequests } from '../run/requests.js';
import { accountName, selectAccounts } from '../run/select.js';
import { websitesCount } from '../render/counts.js';
import { readingProgress } from '../render/progress.js';
import type { Context, Env } from '../io/context.js';
import { renderWarnings } from '../render/diagnostics.js';
import { ignoredNote } from '../render/export.js';
import { literal } from '../config/interpolate.js';
import { account, config, defineCommand, type CommandArgs } from './define.js';

/** One file's edit: the accounts whose entries go into it, and where in it; in the config file, also the names each account lists under `ignore`. */
type FileEdit = PlacedEdit<AccountImport> & { ignore?: { account?: string; sites: LiveWebsite[] }[] };

const options = {
  config,
  unmanaged: { type: 'boolean', describe: 'Add every live website the file does not list and does not ignore' },
  'dry-run': { type: 'boolean', describe: 'Print the change to the file as a diff; write nothing' },
  into: {
    type: 'string',
    requiresArg: true,
    describe: "The file the entries go into: the config file or one its account includes (default: where the account's websites are)",
  },
  account,
} as const;

const positionals = {
  domains: { type: 'string', array: true, describe: 'Live websites to add (as the service or the file would write them)' },
} as const;

type ImportArgs = CommandArgs<typeof options, typeof positionals>;

export const importCommand = defineCommand({
  path: ['import'],
  describe: 'Add live websites to the config file, in place, keeping everything else in it',
  positionals,
  options,
  online: true,
  examples: [
    ['$0 import shop.example.com', 'Start managing a website that was added by hand'],
    ['$0 import shop.globex.example --into clients/globex/websites.yaml', 'Into one of the files an account includes'],
    ['$0 import --unmanaged --dry-run', 'Show what adding every unmanaged website would change'],
    ['$0 import --unmanaged --account acme', 'In a file with accounts: the unmanaged websites of acme'],
  ],
  run: runImport,
});

async function runImport(args: ImportArgs, ctx: Context): Promise<number> {
  const request = importRequest(args);
  const file = resolve(ctx.cwd, args.config);
  // The entries go into the file in place, which standard input is not (and a pipe is read once).
  if (namesDescriptor(file)) {
    throw new SitesyncError(`-c ${args.config}: import adds the websites to the config file in place; name the file itself, not standard input`);
  }
  // Passwords are not sent: an unset ${NAME} does not stop an import.
  const run = await openRun(args, ctx, { lenientEnv: true });
  let read: ReadAccount[];
  try {
    ctx.stderr.write(renderWarnings(runWarnings(run), ctx.err, ctx.cwd));
    const progress = readingProgress(ctx);
    // Named domains are read by a search each (as plan --target reads them), not the whole account.
    read = await readEvery(run, ctx, 'imported', progress.update, 'domains' in request ? request.domains : []).finally(progress.done);
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
  const live = new Map(read.map((a) => [accountName(a.config), a.live]));
  const shownOf = (path: string) => (path === file ? args.config : shownPath(path, ctx.cwd));
  const into = args.into === undefined ? undefined : { path: resolve(ctx.cwd, args.into), shown: args.into };
  const choose = async (workspace: Workspace) => {
    const accounts = selectAccounts(workspace, args.account, args.config).map((config) => ({ config, live: live.get(accountName(config)) ?? [] }));
    const selection = selectImports(accounts, request, args.config, shownOf);
    const edits: FileEdit[] = placeImports(workspace, selection.imports, into, shownOf);
    // What no entry can name goes under the account's ignore, as export writes it: else prune would delete it later.
    for (const { config, sites } of selection.ignored ?? []) {
      let main = edits.find((e) => e.path === workspace.file);
      if (!main) edits.push((main = { path: workspace.file, shown: shownOf(workspace.file), imports: [] }));
      (main.ignore ??= []).push({ account: config.account?.name, sites });
    }
    return { ...selection, edits };
  };

  // Chosen first against the files as they were read, to know which files to lock.
  const first = await choose(run.workspace);
  if (first.edits.length && args.dryRun) {
    sayNotes(first.notes, ctx);
    for (const { edit, read, after } of await editedFiles(first.edits, await readEach(first.edits), file, ctx)) {
      ctx.stdout.write(createTwoFilesPatch(edit.shown, edit.shown, read.bom + read.text, after, undefined, undefined, { context: 3 }));
    }
    return 0;
  }
  const done = first.edits.length ? await writeEdits(first.edits, async () => choose(await loadWorkspace(file, ctx.env, { lenientEnv: true })), file, ctx, shownOf) : first;
  sayNotes(done.notes, ctx);
  if (done.edits.length === 0) {
    ctx.stdout.write(`${printable(`Nothing to import: every live website is listed in ${args.config} or ignored.`)}\n`);
    return 0;
  }
  for (const edit of done.edits) {
    for (const { account } of edit.imports) {
      const n = account.sites.length;
      const name = account.config.account ? ` (account ${account.config.account.name})` : '';
      ctx.stdout.write(`${printable(`Imported ${websitesCount(n)} into ${edit.shown}${name}: ${account.sites.map(storedName).join(', ')}`)}\n`);
    }
  }
  ctx.stdout.write(`Check it with: sitesync plan${args.config === 'sitesync.yaml' ? '' : ` -c ${args.config}`}\n`);
  return 0;
}

/** Notes hold live text raw: escaped here, once. */
function sayNotes(notes: string[], ctx: Context): void {
  for (const note of notes) ctx.stderr.write(`${ctx.err.dim(`Note: ${printable(note)}`)}\n`);
}

/**
 * Writes the edits holding the lock of every file they touch: one run at a time edits a file.
 * Another import (or fmt, or a person) may have changed the files since they were read, so the
 * websites are chosen again (`chooseNow`) against the files as they are now, and added to what
 * they hold: no run's entries are lost, and one that can no longer apply (its domain was
 * imported meanwhile) fails, naming it.
 */
async function writeEdits<T extends { edits: FileEdit[] }>(
  planned: FileEdit[],
  chooseNow: () => Promise<T>,
  file: string,
  ctx: Context,
  shownOf: (path: string) => string,
): Promise<T> {
  return withFileLocks(
    planned.map((e) => e.path),
    async () => {
      const reads = await readEach(planned);
      const now = await chooseNow();
      const moved = now.edits.find((e) => !reads.has(e.path));
      if (moved) {
        throw new SitesyncError(`${moved.shown}: the files changed while the service was read, and the websites now go into this file`, { nothingWritten: { after: '. Run import again' } });
      }
      // Every file edited in memory (and checked) before any is written.
      const written: string[] = [];
      for (const { edit, read, after } of await editedFiles(now.edits, reads, file, ctx)) {
        await writeEdit(edit, read, after, written, file);
        written.push(edit.shown);
      }
      return now;
    },
    { shown: shownOf },
  );
}

function importRequest(args: ImportArgs): ImportRequest {
  const domains = args.domains ?? [];
  if (args.unmanaged && domains.length) throw new UsageError('give DOMAINs or --unmanaged, not both');
  if (args.unmanaged) return { unmanaged: true };
  if (!domains.length) throw new UsageError('say what to import: one or more DOMAINs, or --unmanaged');
  return { domains };
}

/** Each file as read, by its path. */
async function readEach(edits: FileEdit[]): Promise<Map<string, FileText>> {
  return new Map(await Promise.all(edits.map(async (edit) => [edit.path, await readFileText(edit.path)] as const)));
}

/** Each file's text with the accounts' entries added, in its line ending and with its byte-order mark; checked together as the loader reads them. */
async function editedFiles(edits: FileEdit[], reads: Map<string, FileText>, file: string, ctx: Context): Promise<{ edit: FileEdit; read: FileText; after: string }[]> {
  const edited = edits.map((edit) => {
    let text = reads.get(edit.path)!.text;
    try {
      for (const { account, inAccount } of edit.imports) {
        text = insertWebsites(text, inAccount, newEntries(account.sites, account.config));
      }
      for (const { account, sites } of edit.ignore ?? []) {
        text = insertWebsites(text, account, sites.map((site) => ({ entry: literal(storedName(site)), notes: [ignoredNote(site)] })), 'ignore');
      }
    } catch (error) {
      if (error instanceof SitesyncError) error.message = `${edit.shown}: ${error.message}`;
      throw error;
    }
    return { edit, read: reads.get(edit.path)!, text };
  });
  await checkEdited(file, edited, ctx.env);
  return edited.map(({ edit, read, text }) => ({ edit, read, after: read.bom + text }));
}

/**
 * The guard against a bug in sitesync: the config, with the edited files' texts in place of
 * theirs, must load with every check of the loader (a domain listed twice, across files too).
 */
export async function checkEdited(file: string, edited: { edit: { path: string; shown: string }; text: string }[], env: Env): Promise<void> {
  try {
    await loadWorkspace(file, env, { lenientEnv: true, source: withEdits(new Map(edited.map(({ edit, text }) => [edit.path, text]))) });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const { edit } = edited.find((e) => error.diagnostics.some((d) => d.file === e.edit.path)) ?? edited[0]!;
    const wrapped = new SitesyncError(`${edit.shown}: the file with the websites added would not be a valid config (a bug in sitesync)`, { nothingWritten: true });
    wrapped.details = error.diagnostics.map(formatDiagnostic);
    throw wrapped;
  }
}

/** Writes one file, if it still holds what was read (another program may write it without the lock). */
async function writeEdit(edit: FileEdit, read: FileText, after: string, written: string[], file: string): Promise<void> {
  const also = written.length ? ` to it; ${written.join(', ')} ${written.length === 1 ? 'was' : 'were'} written already` : '';
  await rewrite(edit.path, read.bom + read.text, after, {
    changed: new SitesyncError(`${edit.shown}: another program changed the file while the websites were added`, { nothingWritten: { after: `${also}. Run import again` } }),
    failed: (error) => {
      const failure = writeFailure(error, edit.path === file ? '-c' : 'import into', edit.shown);
      if (also) failure.message += also;
      return failure;
    },
  });
}

/**
 * The entries live websites get in the file: what differs from the account's defaults, with
 * notes. The fields the service does not return are said once, above the first entry, not on
 * each of hundreds.
 */
function newEntries(sites: LiveWebsite[], config: Config): NewWebsiteEntry[] {
  const unknown = new Set<FieldName>();
  const entries = sites.map((site) => {
    const made = fileEntry(site, manageableTraits(storedName(site))!, { defaults: config.defaults });
    for (const field of made.unknown) unknown.add(field);
    return made;
  });
  const which = entries.length === 1 ? '' : ` for these ${entries.length} imported websites`;
  if (unknown.size) entries[0]?.notes.unshift(`not returned by the service, not written${which}: ${[...unknown].join(', ')}`);
  return entries;
}

