/**
 * The live account as a config file: valid against the schema, tidy (websites sorted, the
 * service's defaults left out), passwords never exported. Planning against the export finds
 * nothing to change.
 */
import { Document, type YAMLMap, type YAMLSeq } from 'yaml';
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
  const who = account && (account.name || account.email) ? ` (account ${account.name || account.email})` : '';
  header.push(` Exported from ${options.baseUrl}${who}${options.generatedBy ? ` by ${options.generatedBy}` : ''}.`);
  if (needPassword.length) {
    header.push(
      ` Passwords are never exported. These websites are password-protected; to manage their`,
      ` password, add "password: \${NAME}" and set NAME in the environment:`,
      ...needPassword.map((d) => `   - ${d}`),
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
  return doc.toString({ lineWidth: 0 });
}
