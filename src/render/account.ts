/** `sitesync account`: who is behind each key, the plan, and websites used of the limit. Pure. */
import { jsonUnicodeEscapes, printable } from '../messages/escape.js';
import type { Account, Failure } from '../model/types.js';
import type { Colors } from '../io/terminal.js';
import { failureBlock, failureLines, sectionHeader } from './run.js';

/** One account as the service shows it, or why it could not be read. */
export interface AccountView {
  /** '' for the one account of a single-account file. */
  name: string;
  baseUrl: string;
  account?: Account;
  /** How many websites it holds. */
  used?: number;
  failure?: Failure;
}

/** Named accounts each under a header; the unnamed account of a single-account file, its rows alone. */
export function renderAccountText(views: AccountView[], c: Colors): string {
  return views
    .map((v) => {
      const body = v.account ? rows(v, c) : failureBlock('', failureLines(v.failure), c);
      return v.name ? `${sectionHeader(v.name, c)}\n${body}\n` : body;
    })
    .join('');
}

function rows({ baseUrl, account, used }: AccountView, c: Colors): string {
  const limit = account!.websiteLimit === null ? `${used} (unlimited)` : `${used} of ${account!.websiteLimit}`;
  const lines: [string, string][] = [
    ['Account', account!.email ? `${account!.name} <${account!.email}>` : account!.name],
    ['Plan', account!.plan || '(unknown)'],
    ['Websites', limit],
    ['Pageviews', pageviewsLine(account!)],
    ['Reports', reportsLine(account!)],
    ['Service', baseUrl],
  ];
  // The name, e-mail and plan come from the service: shown as data.
  return lines.map(([k, v]) => `${c.bold(k.padEnd(9))} ${printable(v)}\n`).join('');
}

function pageviewsLine(a: Account): string {
  if (a.pageviewLimit === undefined) return '(not said)';
  return a.pageviewLimit === null ? 'unlimited' : `${a.pageviewLimit.toLocaleString('en-US')} a month (then every website stops recording until the next month)`;
}

function reportsLine(a: Account): string {
  if (a.emailReports === undefined || a.emailReports === null) return '(not said)';
  return a.emailReports ? 'e-mail reports' : 'no e-mail reports (email: true sends nothing)';
}

/** `{"accounts": [...]}`, one entry per account (`name` null for a single-account file's). */
export function renderAccountJson(views: AccountView[]): string {
  const accounts = views.map((v) => {
    const head = { name: v.name || null, base_url: v.baseUrl };
    if (!v.account) return { ...head, status: 'failed', error: failureLines(v.failure).join('\n') };
    const a = v.account;
    return { ...head, status: 'ok', id: a.id, account_name: a.name, email: a.email, plan: a.plan, website_limit: a.websiteLimit ?? -1, websites: v.used, ...features(a) };
  });
  return `${jsonUnicodeEscapes(JSON.stringify({ accounts }, null, 2))}\n`;
}

/** The plan's features as the service says them (-1 unlimited, as it writes it); left out when it does not say. */
function features(a: Account): Record<string, unknown> {
  return {
    ...(a.pageviewLimit === undefined ? {} : { pageview_limit: a.pageviewLimit ?? -1 }),
    ...(a.emailReports === undefined || a.emailReports === null ? {} : { email_reports: a.emailReports }),
  };
}
