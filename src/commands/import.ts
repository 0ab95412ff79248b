/**
 * `sitesync import DOMAIN… | --unmanaged [--dry-run]`: live websites the file does not list, added
 * to it in place — at the end of `websites:` of the account that holds them, in the file's own
 * style, every comment and line of the rest kept — so that the file then plans clean for them.
 */
import { relative, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { loadWorkspace } from '../config/load.js';
import { readTextFile } from '../config/read.js';
import { insertWebsites, type NewEntry } from '../config/insert-websites.js';
import { domainKey, GlobSet } from '../domain.js';
import { SitesyncError, UsageError } from '../errors.js';
import { writeAtomic } from '../files.js';
import type { Config, LiveWebsite } from '../model.js';
import { printable } from '../render/escape.js';
import { websiteEntry } from '../render/export.js';
import type { Context } from '../terminal.js';
import { accountName, failureLines, onEachAccount, selectAccounts, type FileAccountArgs } from './accounts.js';
import { openSession, type GlobalArgs } from './session.js';
import { writeFailure } from './shared.js';

export interface ImportArgs extends GlobalArgs, FileAccountArgs {
  domains?: string[];
  unmanaged?: boolean;
  dryRun?: boolean;
  includeFavorite?: boolean;
}

interface Found {
  config: Config;
  site: LiveWebsite;
}

export async function runImport(args: ImportArgs, ctx: Context): Promise<number> {
  const wanted = args.domains ?? [];
  if (!wanted.length && !args.unmanaged) throw new UsageError('say which websites: sitesync import DOMAIN…, or --unmanaged for every live website the file does not list');
  if (wanted.length && args.unmanaged) throw new UsageError('give DOMAIN… or --unmanaged, not both');
  const shown = args.config ?? 'sitesync.yaml';
  const file = resolve(ctx.cwd, shown);
  // Only the file's accounts and websites are needed here: an unset ${NAME} of a password does not matter.
  const workspace = await loadWorkspace(file, ctx.env, { lenientEnv: true });
  const configs = selectAccounts(workspace, args.account, shown);

  // Every selected account's live websites.
  const live = new Map<Config, LiveWebsite[]>();
  if (workspace.multi) {
    const outcomes = await onEachAccount(workspace, shown, args, ctx, (session) => session.client.listWebsites());
    const failed = outcomes.filter((o) => !o.ok);
    if (failed.length) {
      const error = new SitesyncError(`nothing was imported: ${failed.length} account${failed.length === 1 ? '' : 's'} could not be read`);
      error.details = failed.flatMap((o) => failureLines((o as { error: unknown }).error, ctx).map((l, i) => (i ? `  ${l}` : `${accountName(o.config)}: ${l}`)));
      throw error;
    }
    for (const o of outcomes) if (o.ok) live.set(o.config, o.value);
  } else {
    const session = await openSession(args, ctx, configs[0]!.baseUrl);
    try {
      live.set(configs[0]!, await session.client.listWebsites());
    } finally {
      await session.client.close();
    }
  }

  const found = args.unmanaged ? unmanaged(configs, live) : named(wanted, configs, live, shown);
  if (found.length === 0) {
    ctx.stderr.write(`Nothing to import: every live website is listed in ${shown} (or ignored).\n`);
    return 0;
  }

  // The main file gets the entries, under the account that holds each website.
  let text = await readTextFile(file);
  const original = text;
  for (const config of configs) {
    const mine = found.filter((f) => f.config === config);
    if (!mine.length) continue;
    const entries: NewEntry[] = mine.map(({ site }) => {
      const one = websiteEntry(site, { includeFavorite: args.includeFavorite, defaults: config.defaults });
      const notes = [...one.notes];
      if (one.unreadable.length) notes.push(`not returned by the service, so not written: ${one.unreadable.join(', ')}`);
      return { entry: one.entry, notes };
    });
    const path = config.account ? ['accounts', config.account.name, 'websites'] : ['websites'];
    text = insertWebsites(text, path, entries, shown);
  }
  const where = (f: Found) => (f.config.account ? ` (account ${f.config.account.name})` : '');
  if (args.dryRun) {
    ctx.stdout.write(createTwoFilesPatch(shown, shown, original, text, '', '', { context: 3 }));
    ctx.stderr.write(`Would import ${found.length} website${found.length === 1 ? '' : 's'} into ${shown}; nothing was written.\n`);
    return 0;
  }
  await writeAtomic(file, text).catch((error: unknown) => {
    throw writeFailure(error, 'import', shown);
  });
  for (const f of found) ctx.stderr.write(`${ctx.err.green('+')} ${printable(f.site.stored ?? f.site.domain)}${where(f)}\n`);
  ctx.stderr.write(`Imported ${found.length} website${found.length === 1 ? '' : 's'} into ${relative(ctx.cwd, file) || shown}. Check it with: sitesync plan${shown === 'sitesync.yaml' ? '' : ` -c ${shown}`}\n`);
  return 0;
}

/** The websites named, each found in exactly one selected account and not yet in the file. */
function named(wanted: string[], configs: Config[], live: Map<Config, LiveWebsite[]>, shown: string): Found[] {
  const problems: string[] = [];
  const out: Found[] = [];
  for (const name of wanted) {
    const key = domainKey(name);
    const holders = configs.flatMap((config) => (live.get(config) ?? []).filter((s) => s.domain === key).slice(0, 1).map((site) => ({ config, site })));
    if (holders.length === 0) {
      problems.push(`${name}: no ${configs.length > 1 ? 'account' : 'live website of the account'} holds it`);
      continue;
    }
    if (holders.length > 1) {
      problems.push(`${name}: held by the accounts ${holders.map((h) => accountName(h.config)).join(' and ')}; say which with --account`);
      continue;
    }
    const [holder] = holders;
    if (holder!.config.websites.some((w) => w.domain === key)) {
      problems.push(`${name}: ${shown} lists it already`);
      continue;
    }
    if (!out.some((f) => f.site === holder!.site)) out.push(holder!);
  }
  if (problems.length) {
    const error = new SitesyncError(problems.length === 1 ? `${problems[0]}; nothing was imported` : `${problems.length} websites cannot be imported; nothing was imported`);
    if (problems.length > 1) error.details = problems;
    throw error;
  }
  return out;
}

/** Every live website the file neither lists nor ignores. */
function unmanaged(configs: Config[], live: Map<Config, LiveWebsite[]>): Found[] {
  return configs.flatMap((config) => {
    const listed = new Set(config.websites.map((w) => w.domain));
    const ignore = new GlobSet(config.ignore.map((p) => p.glob));
    const seen = new Set<string>();
    return (live.get(config) ?? [])
      .filter((site) => {
        if (listed.has(site.domain) || ignore.matches(site.domain) || seen.has(site.domain)) return false;
        seen.add(site.domain);
        return true;
      })
      .sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0))
      .map((site) => ({ config, site }));
  });
}
