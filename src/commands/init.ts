/**
 * `sitesync init`: an estate under sitesync in one command. A file that names the accounts
 * (name, base_url, api_key_env) gets the rest from the live accounts: a folder per account
 * holding its websites as `export` writes them, each account's `include:`, `ignore:` for what no
 * entry can name, `password_env`; no file: a single-account sitesync.yaml from the flags and
 * SITESYNC_*. Plus .gitignore and, with --ci, the CI recipes. It never replaces a file that is
 * there: run again, it writes nothing and says what it would add.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { accountFolder, accountsToFill, adoptAccounts, passwordPrefix, passwordVariable, withEmptyWebsites, withPasswordEnv, type Adoption } from '../edit/adopt.js';
import { readFileCollecting } from '../config/parse.js';
import { readFileText, rewrite, withEdits, type FileText } from '../edit/file.js';
import { loadWorkspace } from '../config/load.js';
import { WORK_TREE } from '../config/source.js';
import { storedName } from '../edit/file-entry.js';
import { recipesFor, type CiProvider } from '../ci/recipes.js';
import { FILE_EXISTS, withFileLocks, writeFailure, writeNew } from '../io/files.js';
import { packageVersion, schemaReference, shownPath } from '../io/paths.js';
import type { Context } from '../io/context.js';
import { ConfigError } from '../messages/errors.js';
import { printable } from '../messages/escape.js';
import type { Config, LiveWebsite, Workspace } from '../model/types.js';
import { selectImports } from '../planner/imports.js';
import { renderExport, renderIncludedExport } from '../render/export.js';
import { readingProgress } from '../render/progress.js';
import { websitesCount } from '../render/counts.js';
import { connectRun, openRun, type ReadAccount, type Run } from '../run/open.js';
import { readEvery } from '../run/read.js';
import { reportRequests } from '../run/requests.js';
import { config, defineCommand, type CommandArgs } from './define.js';

const options = {
  config: { ...config, describe: 'The config file: one that names the accounts (name, base_url, api_key_env), or none yet' },
  ci: { type: 'string', choices: ['github', 'gitlab'], requiresArg: true, describe: 'Also write the CI recipes, their path filters covering the included files' },
} as const;

export const initCommand = defineCommand({
  path: ['init'],
  describe: "Put live accounts under sitesync: a folder of websites per account, its include:, ignore:, password_env, .gitignore",
  options,
  online: true,
  examples: [
    ['$0 init', 'In a folder whose sitesync.yaml names the accounts: write the rest from the live accounts'],
    ['$0 init --ci github', 'Also the GitHub workflows (.github/workflows/), filtered on the included files'],
    ['SITESYNC_BASE_URL=https://stats.example.com SITESYNC_API_KEY=… $0 init', 'No sitesync.yaml yet: one account, in a single-account file'],
  ],
  run: runInit,
});

/** A file init would write, as the user knows it. */
interface NewFile {
  path: string;
  text: string;
  /** What it holds, for the report. */
  what: string;
}

/** The config file's edit: the accounts init fills. */
interface MainEdit {
  read: FileText;
  adoptions: Adoption[];
  /** Each adoption's included file (the edit is made only for those written). */
  files: Map<string, NewFile>;
}

async function runInit(args: CommandArgs<typeof options>, ctx: Context): Promise<number> {
  const file = resolve(ctx.cwd, args.config);
  const folder = dirname(file);
  const shownOf = (path: string) => (path === file ? args.config : shownPath(path, ctx.cwd));
  const generatedBy = `sitesync init ${packageVersion()} on ${new Date().toISOString().slice(0, 10)}`;
  const files: NewFile[] = [];
  const notes: string[] = [];
  let edit: MainEdit | undefined;
  let mainText: string;
  let run: Run;

  if (!(await exists(file))) {
    // No file: the one account of the flags and SITESYNC_*, as export writes it.
    run = await openRun(args, ctx, { lenientEnv: true, noConfig: true });
    const [one] = await readAll(run, ctx);
    const prefix = passwordPrefix(undefined);
    const text = renderExport(one!.live, one!.account, {
      baseUrl: one!.connection.baseUrl,
      generatedBy,
      schema: schemaReference(folder),
      passwordVariable: (domain) => passwordVariable(prefix, domain),
    });
    mainText = withPasswordEnv(text, file, `${prefix}_*`);
    files.push({ path: file, text: mainText, what: `${websitesCount(listedIn(mainText))} of the account` });
  } else {
    const read = await readFileText(file);
    const fill = accountsToFill(read.text);
    const workspace = await loadForInit(file, ctx, fill);
    run = await connectRun(workspace, workspace.configs, args, ctx, args.config);
    const accounts = await readAll(run, ctx);
    edit = { read, adoptions: [], files: new Map() };
    for (const account of accounts) {
      const name = account.config.account?.name;
      if (name !== undefined && fill.includes(name)) {
        const own = accountFolder(name);
        const path = join(folder, own, 'websites.yaml');
        if (await exists(path)) {
          notes.push(`account ${name} left as is: ${shownOf(path)} is there already (not written by this run); name it under include: yourself, or move it away and run init again`);
          continue;
        }
        const prefix = passwordPrefix(name);
        const rendered = renderIncludedExport(account.live, account.account, {
          baseUrl: account.connection.baseUrl,
          generatedBy,
          schema: schemaReference(dirname(path)),
          defaults: account.config.defaults,
          passwordVariable: (domain) => passwordVariable(prefix, domain),
        });
        const adoption: Adoption = { account: name, include: `${own}/*.yaml`, passwordEnv: `${prefix}_*`, leftAlone: rendered.leftAlone };
        const included: NewFile = { path, text: rendered.text, what: `${websitesCount(listedIn(rendered.text))} of account ${name}` };
        edit.adoptions.push(adoption);
        edit.files.set(name, included);
        files.push(included);
      } else {
        notes.push(...unmanagedNotes(account.config, account.live, args.config));
      }
    }
    mainText = edit.adoptions.length ? adoptAccounts(read.text, file, edit.adoptions) : read.text;
    if (!edit.adoptions.length && !fill.length) {
      notes.unshift(`${args.config}: every account has its websites already (init fills an account that has neither websites: nor include:)`);
    }
  }

  const gitignore = join(folder, '.gitignore');
  if (!(await exists(gitignore))) files.push({ path: gitignore, text: GITIGNORE, what: 'node_modules/ and the lock files of edits' });
  if (args.ci) files.push(...(await ciFiles(args.ci as CiProvider, mainText, run.workspace, folder)));

  const report = await writeAll(files, edit, file, ctx, shownOf);
  for (const line of report) ctx.stdout.write(`${printable(line)}\n`);
  for (const note of notes) ctx.stderr.write(`${ctx.err.dim(`Note: ${printable(note)}`)}\n`);
  if (report.some((l) => l.startsWith('Wrote') || l.startsWith('Edited'))) {
    const c = args.config === 'sitesync.yaml' ? '' : ` -c ${args.config}`;
    ctx.stdout.write(`Check it with: sitesync validate${c} && sitesync plan${c} --prune (nothing to change, nothing to delete)\n`);
  } else {
    ctx.stdout.write('Nothing written: every file init writes is there already.\n');
  }
  return 0;
}

const GITIGNORE = ['# sitesync: the installed package, and the lock files of edits in progress (never committed)', 'node_modules/', '.*.sitesync-lock', ''].join('\n');

/**
 * The workspace of a file whose accounts init fills: such an account (no websites:, no include:)
 * is not yet valid, so it is read as if it held `websites: []`; any other problem of the file is
 * an error as for every command, at its own line.
 */
async function loadForInit(file: string, ctx: Context, fill: string[]): Promise<Workspace> {
  try {
    return await loadWorkspace(file, ctx.env, { lenientEnv: true });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const empty = (message: string) => fill.some((name) => message.startsWith(`account ${name} lists no websites`));
    const rest = error.diagnostics.filter((d) => !(d.file === file && empty(d.message)));
    if (rest.some((d) => d.severity === 'error') || rest.length === error.diagnostics.length) throw error;
  }
  const overlay = withEmptyWebsites(await WORK_TREE.read(file, 'config file'), fill);
  return loadWorkspace(file, ctx.env, { lenientEnv: true, source: withEdits(new Map([[file, overlay]])) });
}

async function readAll(run: Run, ctx: Context): Promise<ReadAccount[]> {
  try {
    const progress = readingProgress(ctx);
    return await readEvery(run, ctx, 'written', progress.update).finally(progress.done);
  } finally {
    reportRequests(run, ctx);
    await run.close();
  }
}

/** An account set up already: the live websites its files do not list, and the command that adds them. */
function unmanagedNotes(config: Config, live: LiveWebsite[], shown: string): string[] {
  const { imports, notes } = selectImports([{ config, live }], { unmanaged: true }, shown);
  const sites = imports.flatMap((i) => i.sites);
  const who = config.account ? `account ${config.account.name}` : shown;
  const flag = config.account ? ` --account ${config.account.name}` : '';
  const c = shown === 'sitesync.yaml' ? '' : ` -c ${shown}`;
  return [
    ...(sites.length ? [`${who}: ${websitesCount(sites.length)} no file lists: ${sites.map(storedName).join(', ')}. Add them with: sitesync import --unmanaged${c}${flag}`] : []),
    ...notes,
  ];
}

async function ciFiles(provider: CiProvider, mainText: string, workspace: Workspace, folder: string): Promise<NewFile[]> {
  const includes = readFileCollecting(mainText, workspace.file, { env: {}, lenientEnv: true }).parsed.includes.map((i) => i.glob);
  const keyVariables = workspace.multi ? workspace.configs.map((c) => c.account!.apiKeyEnv) : undefined;
  const archives = [...new Set(workspace.configs.flatMap((c) => (c.archive ? [relative(folder, c.archive.dir) || '.'] : [])))];
  return recipesFor(provider, { includes, keyVariables, archives }).map((r) => ({ path: join(folder, r.path), text: r.text, what: `the ${provider === 'github' ? 'GitHub workflow' : 'GitLab pipeline'}` }));
}

/**
 * Writes the new files (none replaced: one that is there is left as is, and said) and then the
 * config file's edit, for the accounts whose folder was written, holding the lock of each.
 */
async function writeAll(files: NewFile[], edit: MainEdit | undefined, file: string, ctx: Context, shownOf: (path: string) => string): Promise<string[]> {
  const paths = [...files.map((f) => f.path), ...(edit?.adoptions.length ? [file] : [])];
  const report: string[] = [];
  // The locks go beside the files: their folders first.
  for (const path of paths) await mkdir(dirname(path), { recursive: true });
  await withFileLocks(
    paths,
    async () => {
      const kept = new Set<NewFile>();
      for (const f of files) {
        try {
          await writeNew(f.path, f.text);
          kept.add(f);
          report.push(`Wrote ${shownOf(f.path)}: ${f.what}`);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== FILE_EXISTS) throw writeFailure(error, 'init', shownOf(f.path));
          report.push(`Left as is: ${shownOf(f.path)} (there already)`);
        }
      }
      if (!edit?.adoptions.length) return;
      const adopted = edit.adoptions.filter((a) => kept.has(edit.files.get(a.account)!));
      if (!adopted.length) return;
      const after = edit.read.bom + adoptAccounts(edit.read.text, file, adopted);
      await rewrite(file, edit.read.bom + edit.read.text, after, {
        changed: `${shownOf(file)}: another program changed the file while the accounts were read; the folders were written, the file was not. Run init again`,
        failed: (error) => writeFailure(error, '-c', shownOf(file)),
      });
      const lists = adopted.some((a) => a.leftAlone.length) ? ', ignore (what no file entry can hold)' : '';
      report.push(`Edited ${shownOf(file)}: include, password_env${lists} for ${adopted.length === 1 ? 'account' : 'accounts'} ${adopted.map((a) => a.account).join(', ')}`);
    },
    { shown: shownOf },
  );
  return report;
}

/** How many websites a file written by init lists. */
function listedIn(text: string): number {
  const websites = (parse(text) as { websites?: unknown[] } | null)?.websites;
  return Array.isArray(websites) ? websites.length : 0;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
