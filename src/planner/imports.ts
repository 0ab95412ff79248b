/**
 * Which live websites `sitesync import` adds to the file, and to which account's list: pure,
 * over the file's accounts and what each one's service holds.
 *
 * Messages and notes hold live text raw: it is escaped once, where it is shown (`printable`).
 */
import { domainKey, GlobSet, manageableTraits, parseDomainInput } from '../model/domain.js';
import { SitesyncError } from '../messages/errors.js';
import type { Config, DefaultSettings, FieldName, LiveWebsite } from '../model/types.js';
import { fileEntry, storedName } from '../edit/file-entry.js';

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
  /** `--unmanaged`: the live websites no file entry can name, per account, to list under `ignore` (as export does). */
  ignored?: AccountImport[];
  /** Said to the user, nothing fails for them (websites `--unmanaged` leaves out). */
  notes: string[];
}

/**
 * @param shown the config file as the user named it, for messages.
 * @param shownFile how a file the config includes is named in messages (default: its path as read).
 * @throws SitesyncError naming every domain that cannot be imported, with why.
 */
export function selectImports(accounts: AccountLive[], request: ImportRequest, shown: string, shownFile: (file: string) => string = (file) => file): ImportSelection {
  const views = accounts.map((a) => accountView(a));
  if ('unmanaged' in request) return selectUnmanaged(views);
  const problems: string[] = [];
  const picked = new Map<AccountView, LiveWebsite[]>();
  const multi = accounts.some((a) => a.config.account);
  const where = multi ? (accounts.length > 1 ? 'any of the accounts read' : `account ${accountOf(accounts[0]!.config)}`) : 'the account';
  const seen = new Set<string>();
  let unreadDefault = false;
  for (const input of request.domains) {
    const parsed = parseDomainInput(input);
    if (parsed.domain === undefined) {
      problems.push(`${input}: ${parsed.problem}`);
      continue;
    }
    const key = domainKey(parsed.domain);
    if (seen.has(key)) continue;
    seen.add(key);
    const holders = views.filter((v) => v.byKey.has(key));
    if (holders.length === 0) {
      problems.push(`${input}: no live website of ${where} has this domain`);
      continue;
    }
    if (holders.length > 1) {
      problems.push(`${input}: accounts ${holders.map((h) => accountOf(h.config)).join(' and ')} both hold it; choose one with --account`);
      continue;
    }
    const view = holders[0]!;
    const site = view.byKey.get(key)!;
    const why = whyNotImportable(view, site, shown, shownFile);
    if (why) {
      problems.push(`${input}: ${why}`);
      continue;
    }
    const unread = unreadDefaults(view.config, site);
    if (unread.length) {
      unreadDefault = true;
      problems.push(`${input}: ${unreadDefaultProblem(view.config, unread)}`);
      continue;
    }
    picked.set(view, [...(picked.get(view) ?? []), site]);
  }
  if (problems.length) {
    const error = new SitesyncError(problems.length === 1 ? `${problems[0]}; nothing was imported` : `${problems.length} domains cannot be imported; nothing was imported`);
    if (problems.length > 1) error.details = problems;
    if (unreadDefault) error.details.push(UNREAD_DEFAULT_HINT);
    throw error;
  }
  return { imports: views.filter((v) => picked.has(v)).map((v) => ({ config: v.config, sites: picked.get(v)! })), notes: [] };
}

/**
 * The fields the service did not return for `site` (it never shows them) that the account's
 * `defaults` set. A listed website gets its defaults: the next update sitesync makes to it for
 * any reason would send the default over the value the service holds, which nobody has read,
 * and the file has no way to say "not this field" for one website. Writing the entry anyway
 * would break import's promise to leave the website as it is, so import refuses it and says
 * how to choose: the user knows what the website should hold, sitesync cannot.
 */
export function unreadDefaults(config: Config, site: LiveWebsite): FieldName[] {
  const traits = manageableTraits(storedName(site));
  if (!traits) return [];
  const { unknown } = fileEntry(site, traits, { defaults: config.defaults });
  return unknown.filter((name) => config.defaults[name as keyof DefaultSettings] !== undefined);
}

/** Why websites (`who`: one named, or several) cannot be imported: `fields` the service does not show, the defaults set. */
function unreadDefaultProblem(config: Config, fields: FieldName[], who?: { sites: LiveWebsite[] }): string {
  const names = fields.join(' and ');
  const values = fields.map((f) => `${f}: ${shownValue(config.defaults[f as keyof DefaultSettings])}`).join(', ');
  const sites = who?.sites ?? [];
  const one = sites.length <= 1;
  const subject = !who ? `its ${names}` : one ? `the ${names} of ${quoted(storedName(sites[0]!))}` : `the ${names} of ${sites.length} websites (${sites.slice(0, 3).map((s) => quoted(storedName(s))).join(', ')}${sites.length > 3 ? ', …' : ''})`;
  const consequence = one
    ? 'listed, it would be sent the default with its next update, over the value it holds, which sitesync cannot read'
    : 'listed, they would be sent the default with their next update, over the values they hold, which sitesync cannot read';
  return `the service does not show ${subject}, and the defaults${inAccount(config)} set ${values}: ${consequence}`;
}

/** What the error adds: how to import such a website. */
const UNREAD_DEFAULT_HINT =
  'Say what it should hold: add its entry by hand with the value it should have (sitesync sends it with its next update), or move the field from defaults to the websites that should get it, then import again.';

function shownValue(value: unknown): string {
  return Array.isArray(value) ? `[${value.join(', ')}]` : String(value);
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

function whyNotImportable(view: AccountView, site: LiveWebsite, shown: string, shownFile: (file: string) => string): string | undefined {
  const listed = view.listed.get(site.domain);
  if (listed) return `already listed in ${listed.file ? shownFile(listed.file) : shown}:${listed.pos.line}${inAccount(view.config)}`;
  const ignored = view.ignore.indexOf(site.domain);
  if (ignored >= 0) {
    const pattern = view.config.ignore[ignored]!;
    return `matched by the ignore pattern ${pattern.glob} (${shown}:${pattern.pos.line}); a listed website cannot be ignored: remove the pattern first`;
  }
  if (!manageableTraits(storedName(site))) {
    return `the service stores it as ${quoted(storedName(site))}, which no file entry can name (list it under ignore to leave it alone)`;
  }
  return undefined;
}

function selectUnmanaged(views: AccountView[]): ImportSelection {
  const notes: string[] = [];
  const imports: AccountImport[] = [];
  const ignored: AccountImport[] = [];
  const problems: string[] = [];
  for (const view of views) {
    const sites: LiveWebsite[] = [];
    const odd: LiveWebsite[] = [];
    const unread = new Map<string, LiveWebsite[]>();
    for (const site of view.byKey.values()) {
      if (view.listed.has(site.domain) || view.ignore.matches(site.domain)) continue;
      if (!manageableTraits(storedName(site))) {
        // A name with "*" would, as an ignore pattern, match other websites too: said, not written.
        if (storedName(site).includes('*')) notes.push(`left out ${quoted(storedName(site))} (id ${site.id})${inAccount(view.config)}: no file entry can name it; list it under protect to keep it`);
        else {
          notes.push(`left out ${quoted(storedName(site))} (id ${site.id})${inAccount(view.config)}: no file entry can name it; listed under ignore to leave it alone`);
          odd.push(site);
        }
        continue;
      }
      const fields = unreadDefaults(view.config, site);
      if (fields.length) unread.set(fields.join(','), [...(unread.get(fields.join(',')) ?? []), site]);
      sites.push(site);
    }
    sites.sort((a, b) => (storedName(a) < storedName(b) ? -1 : storedName(a) > storedName(b) ? 1 : 0));
    for (const [fields, held] of unread) problems.push(unreadDefaultProblem(view.config, fields.split(',') as FieldName[], { sites: held }));
    if (sites.length) imports.push({ config: view.config, sites });
    if (odd.length) ignored.push({ config: view.config, sites: odd.sort((a, b) => (storedName(a) < storedName(b) ? -1 : 1)) });
  }
  if (problems.length) {
    const error = new SitesyncError(problems.length === 1 ? `${problems[0]}; nothing was imported` : `websites of ${problems.length} accounts cannot be imported; nothing was imported`);
    error.details = [...(problems.length > 1 ? problems : []), UNREAD_DEFAULT_HINT];
    throw error;
  }
  return { imports, ignored, notes };
}

/** Live text in a message, quoted so that odd white space shows; escaped where it is shown. */
function quoted(text: string): string {
  return `"${text}"`;
}

function accountOf(config: Config): string {
  return config.account?.name ?? '';
}

function inAccount(config: Config): string {
  return config.account ? ` (account ${config.account.name})` : '';
}
