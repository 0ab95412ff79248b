/** `sitesync account`: who is behind each key, the plan, and websites used of the limit. Pure. */
import { jsonUnicodeEscapes, printable } from '../messages/escape.js';
import type { Account, Failure } from '../model/types.js';
import { percentOf, type AccountUsage } from '../model/quota.js';
import type { Colors } from '../io/context.js';
import { failureBlock, failureLines, sectionHeader } from './run.js';

/** One account as the service shows it, or why it could not be read. */
export interface AccountView {
  /** '' for the one account of a single-account file. */
  name: string;
  baseUrl: string;
  account?: Account;
  /** How many websites it holds. */
  used?: number;
  /** With `--usage`: the month's pageviews against the plan. */
  usage?: AccountUsage;
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

function rows({ baseUrl, account, used, usage }: AccountView, c: Colors): string {
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
  const shown = lines.map(([k, v]) => `${c.bold(k.padEnd(9))} ${printable(v)}\n`).join('');
  return usage ? `${shown}${usageLines(usage, c)}` : shown;
}

/** The month so far: a figure, a share of the plan, and what happens at this pace. */
function usageLines(u: AccountUsage, c: Colors): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const pad = ' '.repeat(10);
  const sites = u.websites === 1 ? '1 website' : `${n(u.websites)} websites`;
  if (u.limit === null) return `${c.bold('Month'.padEnd(9))} ${n(u.used)} pageviews since ${u.from} (${sites}); the plan has no monthly limit\n`;
  const head = `${c.bold('Month'.padEnd(9))} ${n(u.used)} of ${n(u.limit)} pageviews (${percentOf(u.share!)}) since ${u.from} (${sites})\n`;
  const stop = 'every website of the account stops recording until the month ends';
  if (u.runsOut === 'reached') return `${head}${pad}${c.red(`The limit is reached: ${stop} (the service answers its tracker 403).`)}\n`;
  if (u.runsOut) {
    const paint = u.share! >= 0.8 ? c.red : c.yellow;
    return `${head}${pad}${paint(`At this month's pace the limit is reached on ${u.runsOut}: then ${stop}.`)}\n`;
  }
  return `${head}${pad}At this month's pace the limit is not reached before the month ends.\n`;
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
    return { ...head, status: 'ok', id: a.id, account_name: a.name, email: a.email, plan: a.plan, website_limit: a.websiteLimit ?? -1, websites: v.used, ...features(a), ...(v.usage ? { usage: usageJson(v.usage) } : {}) };
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

/** The month so far: `runs_out` a day, "reached", or null (unlimited, or not this month). */
function usageJson(u: AccountUsage): Record<string, unknown> {
  return {
    from: u.from,
    today: u.today,
    pageviews: u.used,
    limit: u.limit ?? -1,
    percent: u.share === null ? null : Math.round(u.share * 1000) / 10,
    runs_out: u.runsOut,
    websites: u.websites,
  };
}
