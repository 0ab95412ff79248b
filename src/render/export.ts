/**
 * The live account as a config file: valid against the schema, tidy (websites sorted, the
 * service's defaults left out), passwords never exported. Planning against the export finds
 * nothing to change.
 */
import { Document, Scalar, visit, type YAMLMap, type YAMLSeq } from 'yaml';
import { printable } from './escape.js';
import { PRIVACY_NAMES, SERVICE_DEFAULTS, type Account, type LiveWebsite } from '../model.js';

export interface ExportOptions {
  baseUrl: string;
  includeFavorite?: boolean;
  /** For the header line; left out when undefined (tests). */
  generatedBy?: string;
}

export function renderExport(live: LiveWebsite[], account: Account | null, options: ExportOptions): string {
  const sites = [...live].sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : a.id - b.id));
  const seen = new Set<string>();
  const websites: Record<string, unknown>[] = [];
  const needPassword: string[] = [];
  let unreadableParams = false;
  for (const site of sites) {
    if (seen.has(site.domain)) continue;
    seen.add(site.domain);
    const entry: Record<string, unknown> = { domain: site.domain };
    if (site.privacy !== undefined && site.privacy !== SERVICE_DEFAULTS.privacy) entry.privacy = PRIVACY_NAMES[site.privacy];
    if (site.email !== undefined && site.email !== SERVICE_DEFAULTS.email) entry.email = true;
    if (site.exclude_bots !== undefined && site.exclude_bots !== SERVICE_DEFAULTS.exclude_bots) entry.exclude_bots = false;
    if (site.exclude_params === undefined) unreadableParams = true;
    else if (site.exclude_params.length) entry.exclude_params = site.exclude_params;
    if (site.exclude_ips?.length) entry.exclude_ips = site.exclude_ips;
    if (options.includeFavorite && site.favorite) entry.favorite = true;
    if (site.privacy === 2) needPassword.push(site.domain);
    websites.push(entry);
  }

  const doc = new Document({ version: 1, api: { base_url: options.baseUrl }, websites });
  const header = [' yaml-language-server: $schema=./schemas/sitesync.schema.json'];
  const who = account && (account.name || account.email) ? ` (account ${printable(account.name || account.email)})` : '';
  header.push(` Exported from ${options.baseUrl}${who}${options.generatedBy ? ` by ${options.generatedBy}` : ''}.`);
  if (needPassword.length) {
    header.push(
      ` Passwords are never exported. These websites are password-protected; to manage their`,
      ` password, add "password: \${NAME}" and set NAME in the environment:`,
      ...needPassword.map((d) => `   - ${printable(d)}`),
    );
  }
  if (unreadableParams) {
    header.push(
      ' This service does not return exclude_params: they could not be exported. Add them here;',
      ' sitesync sends the file\'s value (empty if unset) with every update it makes to a website.',
    );
  }
  doc.commentBefore = header.join('\n');
  const seq = doc.get('websites', true) as YAMLSeq | undefined;
  for (const item of (seq?.items ?? []) as YAMLMap[]) {
    const domain = item.get('domain') as string;
    if (needPassword.includes(domain)) item.commentBefore = ' password-protected: add password: ${NAME} to manage its password';
  }
  if (websites.length === 0) doc.set('websites', []);
  return withControlsEscaped(doc);
}

/** Control characters, DEL, C1 and bidi controls: never raw in the file, which is also printed. */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'g');

/**
 * The document as text, with every value from the service that holds a control character
 * (a domain with an ESC sequence, a list entry) written double-quoted with `\u` escapes,
 * which YAML reads back as the same characters: the file round-trips and is safe to print.
 */
function withControlsEscaped(doc: Document): string {
  let quoted = false;
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && (UNPRINTABLE.test(node.value) || /[\t\n]/.test(node.value))) {
        node.type = Scalar.QUOTE_DOUBLE;
        quoted = true;
      }
    },
  });
  const text = doc.toString({ lineWidth: 0 });
  if (!quoted) return text;
  // Only double-quoted scalars can still hold such a character (comments are made printable).
  return text.replace(UNPRINTABLE_ALL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
