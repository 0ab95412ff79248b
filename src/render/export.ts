/**
 * The live account as a config file: valid against the schema, tidy (websites sorted, the
 * service's defaults left out), passwords never exported. Planning against the export finds
 * nothing to change and, with prune, deletes nothing: every live website is either listed as
 * the service stores it, or left alone under `ignore` when no file entry can name it (a comment
 * says which, and why).
 */
import { Document, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { compileGlob, manageableTraits } from '../model/domain.js';
import { fileEntry, quoted, storedName as stored, yamlWithControlsEscaped } from '../edit/file-entry.js';
import type { Adoption } from '../edit/adopt.js';
import { printable } from '../messages/escape.js';
import { literal } from '../config/interpolate.js';
import type { Account, DefaultSettings, LiveWebsite } from '../model/types.js';

/** Where editors find the schema when sitesync is installed in the config repository. */
export const INSTALLED_SCHEMA = './node_modules/sitesync/schemas/sitesync.schema.json';

export interface ExportOptions {
  baseUrl: string;
  includeFavorite?: boolean;
  /** For the header line; left out when undefined (tests). */
  generatedBy?: string;
  /** The `$schema` path, relative to the exported file. Default: `INSTALLED_SCHEMA`. */
  schema?: string;
  /**
   * The variable each password-protected website's password would read (init): its entry gets
   * a commented `password: ${NAME}` to uncomment. Without it, a note says how to add one.
   */
  passwordVariable?: (domain: string) => string;
  /** The defaults the entries get where they go (init: the account's, from the config file): a value equal to one is left out. */
  defaults?: DefaultSettings;
}

interface Listed {
  site: LiveWebsite;
  entry: Record<string, unknown>;
  notes: string[];
  /** The variable of the `password:` line a password-protected website's note shows (init). */
  placeholder?: string;
}

interface LeftAlone {
  site: LiveWebsite;
  /** `protect` when an `ignore` pattern for it would also match a listed website (a `*`). */
  list: 'ignore' | 'protect';
}

export function renderExport(live: LiveWebsite[], account: Account | null, options: ExportOptions): string {
  return yamlWithControlsEscaped(exportDocument(live, account, options));
}

/** One account of a file with accounts: its key's variable, as the file names it. */
export interface ExportedAccount {
  name: string;
  apiKeyEnv: string;
  baseUrl: string;
  live: LiveWebsite[];
  account: Account | null;
}

/**
 * Several accounts as one file in the `accounts:` form: each account as `renderExport` writes
 * one, with `base_url` and `api_key_env` (the NAME of the key's variable, never a key) instead
 * of `api:`, and its notes above its name.
 */
export function renderAccountsExport(accounts: ExportedAccount[], options: Omit<ExportOptions, 'baseUrl'>): string {
  const doc = new Document({ version: 1, accounts: {} });
  const map = doc.get('accounts', true) as YAMLMap;
  for (const a of accounts) {
    const one = exportDocument(a.live, a.account, { ...options, baseUrl: a.baseUrl });
    const body = one.contents as YAMLMap;
    body.delete('version');
    body.delete('api');
    body.items.unshift(doc.createPair('base_url', literal(a.baseUrl)), doc.createPair('api_key_env', a.apiKeyEnv));
    const key = doc.createNode(a.name) as Scalar;
    // The account's notes, without the schema line that heads the whole file.
    key.commentBefore = (one.commentBefore ?? '').split('\n').slice(1).join('\n');
    map.items.push(doc.createPair(key, body));
  }
  doc.commentBefore = ` yaml-language-server: $schema=${options.schema ?? INSTALLED_SCHEMA}`;
  return yamlWithControlsEscaped(doc);
}

/**
 * One account's websites as a file the account includes (`websites:` only, as `include:` wants
 * it), and what the account itself must say in the config file: the names no entry can hold,
 * under `ignore` or `protect`, each with its note.
 */
export interface IncludedExport {
  text: string;
  leftAlone: Adoption['leftAlone'];
}

export function renderIncludedExport(live: LiveWebsite[], account: Account | null, options: ExportOptions): IncludedExport {
  const doc = exportDocument(live, account, options);
  const leftAlone: IncludedExport['leftAlone'] = [];
  for (const list of ['protect', 'ignore'] as const) {
    const seq = doc.get(list, true) as YAMLSeq<Scalar> | undefined;
    for (const item of seq?.items ?? []) leftAlone.push({ list, name: String(item.value), note: item.commentBefore ?? '' });
    doc.delete(list);
  }
  doc.delete('api');
  return { text: yamlWithControlsEscaped(doc), leftAlone };
}

function exportDocument(live: LiveWebsite[], account: Account | null, options: ExportOptions): Document {
  const { listed, leftAlone, twins } = sortOut(live);
  const websites: Listed[] = [];
  const needPassword: string[] = [];
  const unreadable = new Set<string>();
  for (const site of listed) {
    const variable = site.privacy === 2 ? options.passwordVariable?.(site.domain) : undefined;
    const { entry, notes, unknown } = fileEntry(site, manageableTraits(stored(site))!, {
      includeFavorite: options.includeFavorite,
      defaults: options.defaults,
      passwordVariable: variable,
    });
    for (const name of unknown) unreadable.add(name);
    if (site.privacy === 2) needPassword.push(stored(site));
    websites.push({ site, entry, notes, placeholder: variable });
  }

  const body: Record<string, unknown> = { version: 1, api: { base_url: literal(options.baseUrl) } };
  for (const list of ['protect', 'ignore'] as const) {
    const names = leftAlone.filter((a) => a.list === list).map((a) => literal(stored(a.site)));
    if (names.length) body[list] = names;
  }
  body.websites = websites.map((w) => w.entry);
  const doc = new Document(body);

  const header = [` yaml-language-server: $schema=${options.schema ?? INSTALLED_SCHEMA}`];
  const who = account && (account.name || account.email) ? ` (account ${printable(account.name || account.email)})` : '';
  header.push(` Exported from ${options.baseUrl}${who}${options.generatedBy ? ` by ${options.generatedBy}` : ''}.`);
  if (needPassword.length) {
    header.push(
      ` Passwords are never exported. These websites are password-protected; to manage their`,
      options.passwordVariable
        ? ` password, set the variable its entry's note names and add the "password:" line it shows:`
        : ` password, add "password: \${NAME}" and set NAME in the environment:`,
      ...needPassword.map((d) => `   - ${printable(d)}`),
      ` Checked with --trusted-config (as CI plans a pull request), NAME must match password_env on the`,
      ` base branch first: ${options.passwordVariable ? 'the password_env this file was written with lets these names through' : 'list it there (e.g. ACME_*) in a pull request of its own, merged before the one that adds the password'}.`,
    );
  }
  if (unreadable.size) {
    header.push(
      ` This service does not return ${[...unreadable].join(', ')}: they could not be exported. Add them here`,
      ' where you want to manage them. sitesync sends such a field only where the file sets it: on create,',
      ' with another change to the website, when it differs from --baseline, or with --resend-write-only.',
      ' Left out, it never overwrites what the service holds.',
    );
  }
  for (const twin of twins) {
    header.push(
      ` The service also holds ${quoted(stored(twin.site))} (id ${twin.site.id}), the same website to sitesync as`,
      `   ${quoted(stored(twin.kept))} (id ${twin.kept.id}), which this file names: sitesync leaves id ${twin.site.id} alone.`,
    );
  }
  doc.commentBefore = header.join('\n');

  for (const list of ['protect', 'ignore'] as const) {
    const seq = doc.get(list, true) as YAMLSeq<Scalar> | undefined;
    const alone = leftAlone.filter((a) => a.list === list);
    seq?.items.forEach((item, i) => {
      item.commentBefore = leftAloneNote(alone[i]!);
    });
  }
  const seq = doc.get('websites', true) as YAMLSeq<YAMLMap> | undefined;
  seq?.items.forEach((item, i) => {
    const placeholder = websites[i]!.placeholder;
    // Above the entry, as every note is (a comment after its last line would be fmt's to move).
    const notes = placeholder ? [...websites[i]!.notes, `  password: \${${placeholder}}`] : websites[i]!.notes;
    if (notes.length) item.commentBefore = notes.map((n) => ` ${n}`).join('\n');
    // A blank line between websites, as `sitesync fmt` lays them out: an export passes `fmt --check`.
    item.spaceBefore = i > 0;
  });
  if (websites.length === 0) doc.set('websites', []);
  return doc;
}

/**
 * Splits the live websites: those a file entry can name (one per key: the oldest), those left
 * alone under `ignore` or `protect`, and the twins that share a listed website's key.
 */
function sortOut(live: LiveWebsite[]): {
  listed: LiveWebsite[];
  leftAlone: LeftAlone[];
  twins: { site: LiveWebsite; kept: LiveWebsite }[];
} {
  const byName = (a: LiveWebsite, b: LiveWebsite) => {
    const x = stored(a);
    const y = stored(b);
    return x < y ? -1 : x > y ? 1 : a.id - b.id;
  };
  const oldest = new Map<string, LiveWebsite>();
  for (const site of [...live].sort((a, b) => a.id - b.id)) if (!oldest.has(site.domain)) oldest.set(site.domain, site);
  const listed: LiveWebsite[] = [];
  const odd: LiveWebsite[] = [];
  const twins: { site: LiveWebsite; kept: LiveWebsite }[] = [];
  for (const site of [...live].sort(byName)) {
    const kept = oldest.get(site.domain)!;
    if (kept !== site) twins.push({ site, kept });
    else if (manageableTraits(stored(site))) listed.push(site);
    else odd.push(site);
  }
  // An `ignore` pattern is a glob: one holding a `*` may match listed websites too, which the
  // file cannot have. `protect` keeps such a website from being deleted without that clash.
  const leftAlone = odd.map((site): LeftAlone => {
    const glob = compileGlob(stored(site));
    return { site, list: listed.some((l) => glob.test(l.domain)) ? 'protect' : 'ignore' };
  });
  return { listed, leftAlone, twins };
}

/** The note above a name listed under `ignore` because no file entry can hold it (export, init, import --unmanaged). */
export function ignoredNote(site: LiveWebsite): string {
  return `${quoted(stored(site))} (id ${site.id}) is no host name a file entry can hold: left alone, never updated or deleted`;
}

function leftAloneNote(alone: LeftAlone): string {
  const name = quoted(stored(alone.site));
  if (alone.list === 'ignore') return ` ${ignoredNote(alone.site)}`;
  return [
    ` ${name} (id ${alone.site.id}) is no host name a file entry can hold, and as an ignore pattern`,
    ` its "*" would also match listed websites: protected instead, so never deleted (nor is what else it matches)`,
  ].join('\n');
}
