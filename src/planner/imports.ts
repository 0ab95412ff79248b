/**
 * Which live websites `sitesync import` adds to the file, and to which account's list: pure,
 * over the file's accounts and what each one's service holds.
 */
import { domainKey, GlobSet, manageableTraits, parseDomainInput } from '../domain.js';
import { SitesyncError } from '../errors.js';
import type { Config, LiveWebsite } from '../model.js';
import { printable } from '../escape.js';
import { printable as quoted, storedName } from '../config/file-entry.js';

export interface AccountLive {
  config: Config;
  live: LiveWebsite[];
}

/** What to import: these domains, or every live website the file leaves unmanaged. */
export type ImportRequest = { domains: string[] } | { unmanaged: true };

export interface AccountImport {
  config: Config;
  /** In the order asked for (DOMAINs), or by name (`--unmanaged`). */
  sites: LiveWebsite[];
}

export interface ImportSelection {
  imports: AccountImport[];
  /** Said to the user, nothing fails for them (websites `--unmanaged` leaves out). */
  notes: string[];
}

/**
 * @param shown the config file as the user named it, for messages.
 * @throws SitesyncError naming every domain that cannot be imported, with why.
 */
export function selectImports(accounts: AccountLive[], request: ImportRequest, shown: string): ImportSelection {
  const views = accounts.map((a) => accountView(a));
  if ('unmanaged' in request) return selectUnmanaged(views);
  const problems: string[] = [];
  const picked = new Map<AccountView, LiveWebsite[]>();
  const multi = accounts.some((a) => a.config.account);
  const where = multi ? (accounts.length > 1 ? 'any of the accounts read' : `account ${accountOf(accounts[0]!.config)}`) : 'the account';
  const seen = new Set<string>();
  for (const input of request.domains) {
    const parsed = parseDomainInput(input);
    if (parsed.domain === undefined) {
      problems.push(`${printable(input)}: ${parsed.problem}`);
      continue;
    }
    const key = domainKey(parsed.domain);
    if (seen.has(key)) continue;
    seen.add(key);
    const holders = views.filter((v) => v.byKey.has(key));
    if (holders.length === 0) {
      problems.push(`${printable(input)}: no live website of ${where} has this domain`);
      continue;
    }
    if (holders.length > 1) {
      problems.push(`${printable(input)}: accounts ${holders.map((h) => accountOf(h.config)).join(' and ')} both hold it; choose one with --account`);
      continue;
    }
    const view = holders[0]!;
    const site = view.byKey.get(key)!;
    const why = whyNotImportable(view, site, shown);
    if (why) {
      problems.push(`${printable(input)}: ${why}`);
      continue;
    }
    picked.set(view, [...(picked.get(view) ?? []), site]);
  }
  if (problems.length) {
    const error = new SitesyncError(problems.length === 1 ? `${problems[0]}; nothing was imported` : `${problems.length} domains cannot be imported; nothing was imported`);
    if (problems.length > 1) error.details = problems;
    throw error;
  }
  return { imports: views.filter((v) => picked.has(v)).map((v) => ({ config: v.config, sites: picked.get(v)! })), notes: [] };
}

interface AccountView {
  config: Config;
  /** One live website per key: the oldest, the one a file entry names (as export lists it). */
  byKey: Map<string, LiveWebsite>;
  listed: Map<string, Config['websites'][number]>;
  ignore: GlobSet;
}

function accountView({ config, live }: AccountLive): AccountView {
  const byKey = new Map<string, LiveWebsite>();
  for (const site of [...live].sort((a, b) => a.id - b.id)) if (!byKey.has(site.domain)) byKey.set(site.domain, site);
  return {
    config,
    byKey,
    listed: new Map(config.websites.map((w) => [w.domain, w])),
    ignore: new GlobSet(config.ignore.map((p) => p.glob)),
  };
}

function whyNotImportable(view: AccountView, site: LiveWebsite, shown: string): string | undefined {
  const listed = view.listed.get(site.domain);
  if (listed) return `already listed in ${listed.file ?? shown}:${listed.pos.line}${inAccount(view.config)}`;
  const ignored = view.ignore.indexOf(site.domain);
  if (ignored >= 0) {
    const pattern = view.config.ignore[ignored]!;
    return `matched by the ignore pattern ${printable(pattern.glob)} (${shown}:${pattern.pos.line}); a listed website cannot be ignored: remove the pattern first`;
  }
  if (!manageableTraits(storedName(site))) {
    return `the service stores it as ${quoted(storedName(site))}, which no file entry can name (list it under ignore to leave it alone)`;
  }
  return undefined;
}

function selectUnmanaged(views: AccountView[]): ImportSelection {
  const notes: string[] = [];
  const imports: AccountImport[] = [];
  for (const view of views) {
    const sites: LiveWebsite[] = [];
    for (const site of view.byKey.values()) {
      if (view.listed.has(site.domain) || view.ignore.matches(site.domain)) continue;
      if (!manageableTraits(storedName(site))) {
        notes.push(`left out ${quoted(storedName(site))} (id ${site.id})${inAccount(view.config)}: no file entry can name it; list it under ignore to leave it alone`);
        continue;
      }
      sites.push(site);
    }
    sites.sort((a, b) => (storedName(a) < storedName(b) ? -1 : storedName(a) > storedName(b) ? 1 : 0));
    if (sites.length) imports.push({ config: view.config, sites });
  }
  return { imports, notes };
}

function accountOf(config: Config): string {
  return config.account?.name ?? '';
}

function inAccount(config: Config): string {
  return config.account ? ` (account ${config.account.name})` : '';
}
