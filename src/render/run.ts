/**
 * A run's plan, for one account or many: the accounts' plans as the one-account renderers show
 * them, or why an account has none. The one account of a single-account file is unnamed and
 * shown without an account header; named accounts get a section each, then the total. Pure:
 * plans in, text out.
 */
import pc from 'picocolors';
import { jsonUnicodeEscapes, markdownCode, markdownText, printable } from '../messages/escape.js';
import type { AccountPlan, Failure, Summary } from '../model/types.js';
import type { Colors } from '../io/terminal.js';
import { accountsCount, websitesCount } from './counts.js';
import { jsonChange } from './json.js';
import { approvedBlock, markerFor, renderMarkdown, type CutNote } from './markdown.js';
import { renderText } from './text.js';
import { MAX_PLAN_COMMENT_CHARACTERS } from '../caps.js';

export interface Total extends Summary {
  accounts: number;
  failed: string[];
}

export function totalOf(accounts: AccountPlan[]): Total {
  const total: Total = { create: 0, update: 0, delete: 0, unchanged: 0, unmanaged: 0, accounts: accounts.length, failed: [] };
  for (const { name, plan } of accounts) {
    if (!plan) {
      total.failed.push(name);
      continue;
    }
    for (const key of ['create', 'update', 'delete', 'unchanged', 'unmanaged'] as const) total[key] += plan.summary[key];
  }
  return total;
}

export function totalLine(total: Total): string {
  const failed = total.failed.length ? ` ${total.failed.length} of ${total.accounts} failed: ${total.failed.join(', ')}.` : '';
  return `Total for ${accountsCount(total.accounts)}: ${total.create} to create, ${total.update} to update, ${total.delete} to delete (${total.unchanged} unchanged, ${total.unmanaged} unmanaged).${failed}`;
}

/**
 * How an account of a run is shown: in full (its changes or failure); as one line when its plan
 * changes nothing (`acme: no changes (120 websites)`), its warnings, if any, said beneath that
 * line (a warning is no reason to list a quiet account's plan); or, holding no website the plan
 * covers (out of a `--target`'s reach) and with nothing to say, named in one line with the others
 * like it. An agency's plan of thirty accounts shows what changes, not thirty headers. A run of
 * one account shows it in full.
 */
function accountShape(a: AccountPlan, accounts: readonly AccountPlan[]): 'full' | 'quiet' | 'untouched' {
  const p = a.plan;
  if (accounts.length < 2 || !p || p.changes.length > 0) return 'full';
  return p.summary.unchanged + p.summary.unmanaged > 0 || p.warnings.length > 0 ? 'quiet' : 'untouched';
}

/** `acme: no changes (120 websites, 2 unmanaged)`: a quiet account's one line, not yet escaped. */
function quietLine(a: AccountPlan): string {
  const s = a.plan!.summary;
  return `${a.name}: no changes (${websitesCount(s.unchanged)}${s.unmanaged ? `, ${s.unmanaged} unmanaged` : ''})`;
}

/** The one line for the accounts the plan holds no website of, not yet escaped; undefined without any. */
function untouchedLine(accounts: readonly AccountPlan[], name: (a: AccountPlan) => string): string | undefined {
  const untouched = accounts.filter((a) => accountShape(a, accounts) === 'untouched');
  return untouched.length ? `${accountsCount(untouched.length)} with no website in this plan: ${untouched.map(name).join(', ')}.` : undefined;
}

/**
 * Named accounts each get a section (or a line: see accountShape) and the run a total; the
 * unnamed account of a single-account file is its plan alone.
 */
export function renderRunText(accounts: AccountPlan[], colors: Colors = pc.createColors(false)): string {
  const c = colors;
  const out: string[] = [];
  let quiet: string[] = [];
  const flushQuiet = () => {
    if (quiet.length) out.push(`${quiet.join('\n')}\n`);
    quiet = [];
  };
  for (const a of accounts) {
    if (!a.name) {
      out.push(a.plan ? renderText(a.plan, c) : failureBlock('', failureLines(a.failure), c));
      continue;
    }
    const shape = accountShape(a, accounts);
    if (shape === 'quiet') quiet.push([printable(quietLine(a)), ...a.plan!.warnings.map((w) => c.yellow(`  ! ${printable(w)}`))].join('\n'));
    if (shape !== 'full') continue;
    flushQuiet();
    out.push(sectionHeader(a.name, c), '');
    if (a.plan) out.push(renderText(a.plan, c));
    else out.push(`${failureBlock(`${a.name} (${a.baseUrl}) could not be planned`, failureLines(a.failure), c).trimEnd()}\n`);
  }
  flushQuiet();
  const untouched = untouchedLine(accounts, (a) => a.name);
  if (untouched) out.push(`${printable(untouched)}\n`);
  if (accounts.some((a) => a.name)) out.push(c.bold(totalLine(totalOf(accounts))), '');
  return out.join('\n');
}

/** The header of a named account's section. */
export function sectionHeader(name: string, c: Colors): string {
  return c.bold(c.cyan(`━━ account ${printable(name)} ━━`));
}

export function failureLines(failure: Failure | undefined): string[] {
  return failure ? [failure.message, ...failure.details] : ['failed'];
}

/**
 * A failure as every command shows it: `✗ TITLE: message` in red, then its details indented,
 * each line as data (the message may quote the service). An empty title: the message alone.
 */
export function failureBlock(title: string, lines: string[], c: Colors): string {
  const [message = 'failed', ...details] = lines;
  const head = c.red(`✗ ${title ? `${printable(title)}: ` : ''}${printable(message)}`);
  return `${[head, ...details.map((d) => `    ${printable(d)}`)].join('\n')}\n`;
}

/**
 * The run's pull-request comment. One unnamed account: its plan. Named accounts: the marker,
 * the total and a table of accounts, then each account's section; over the limit, each section
 * is cut to its share (a small plan keeps all it needs; the rest is shared by the large ones).
 */
export function renderRunMarkdown(accounts: AccountPlan[], options: RunMarkdownOptions = {}): string {
  const { limit = MAX_PLAN_COMMENT_CHARACTERS, configSha256 } = options;
  if (configSha256 === undefined) return runMarkdown(accounts, options);
  // The approved block after the visible plan, inside the limit: the plan is cut to make room for it.
  const block = approvedBlock(accounts, configSha256, limit);
  return `${runMarkdown(accounts, { ...options, limit: limit - block.length - 1, commentLimit: limit })}\n${block}`;
}

export interface RunMarkdownOptions {
  limit?: number;
  commentId?: string;
  cut?: CutNote;
  /** The SHA-256 of the config files planned from: the comment ends with the hidden approved block (markdown.ts). */
  configSha256?: string;
}

function runMarkdown(accounts: AccountPlan[], options: RunMarkdownOptions & { commentLimit?: number }): string {
  const { limit = MAX_PLAN_COMMENT_CHARACTERS, commentId, cut, commentLimit = limit } = options;
  // The unnamed account of a single-account file: its plan alone.
  if (!accounts.some((a) => a.name)) return accounts.map((a) => (a.plan ? renderMarkdown(a.plan, limit, { commentId, cut, commentLimit }) : failedMarkdown(a, commentId))).join('\n');
  const total = totalOf(accounts);
  const changed = total.create + total.update + total.delete > 0;
  const head = [
    markerFor(commentId),
    `### sitesync plan, ${accountsCount(total.accounts)}: ${changed ? `${total.create} to create, ${total.update} to update, ${total.delete} to delete` : 'no changes'}${total.failed.length ? ` · ${total.failed.length} failed` : ''}`,
    '',
  ];
  // A row per account the plan reaches (a quiet account's one line), a section per account shown in full.
  const rows = accounts.filter((a) => accountShape(a, accounts) !== 'untouched');
  if (rows.length) head.push('| account | service | create | update | delete | unchanged | unmanaged |', '|---|---|---:|---:|---:|---:|---:|');
  for (const a of rows) {
    const p = a.plan?.summary;
    const cells = p ? [p.create, p.update, p.delete, p.unchanged, p.unmanaged].join(' | ') : '**failed** | | | |';
    head.push(`| ${markdownCode(a.name)} | ${markdownCode(a.baseUrl)} | ${cells} |`);
  }
  if (rows.length) head.push('');
  // A quiet account's warnings, beneath the table: its plan is not shown, what it says is.
  const warned = rows.filter((a) => accountShape(a, accounts) === 'quiet' && a.plan!.warnings.length > 0);
  if (warned.length) {
    head.push('> [!WARNING]');
    for (const a of warned) for (const w of a.plan!.warnings) head.push(`> - ${markdownCode(a.name)}: ${markdownText(w)}`);
    head.push('');
  }
  const untouched = untouchedLine(accounts, (a) => markdownCode(a.name));
  if (untouched) head.push(untouched, '');
  const full = accounts.filter((a) => accountShape(a, accounts) === 'full');
  const foot = ['', `**${markdownText(totalLine(total))}**`, ''];
  const fixed = [...head, ...foot].join('\n').length + full.length * 2;
  const bodies = shareOut(full, Math.max(0, limit - fixed), commentLimit, cut);
  return [...head, ...bodies.flatMap((b) => [b, '']), ...foot].join('\n');
}

/** Each section rendered within its share of `budget`: the smallest first, leftovers passed on. */
function shareOut(accounts: AccountPlan[], budget: number, commentLimit: number, cut: CutNote | undefined): string[] {
  const render = (a: AccountPlan, room: number) => (a.plan ? renderMarkdown(a.plan, room, { section: a.name, commentLimit, cut }) : failedMarkdown(a));
  const full = accounts.map((a) => render(a, Number.MAX_SAFE_INTEGER));
  const order = full.map((text, i) => ({ i, size: text.length })).sort((a, b) => a.size - b.size);
  const out = [...full];
  let left = budget;
  order.forEach(({ i, size }, k) => {
    const share = Math.floor(left / (order.length - k));
    if (size > share) out[i] = render(accounts[i]!, share);
    left -= out[i]!.length;
  });
  return out;
}

/** An account that could not be planned, as a markdown section (with the comment's marker, for the unnamed account alone). */
function failedMarkdown(a: AccountPlan, commentId?: string): string {
  const head = a.name ? `### Account ${markdownCode(a.name)}: failed` : `${markerFor(commentId)}\n### sitesync plan: failed`;
  return `${head}\n\n> [!CAUTION]\n> ${failureLines(a.failure).map(markdownText).join('<br>')}\n`;
}

/** The version of the JSON plan and the saved plan: 2 since one shape holds one account or many. */
export const FORMAT_VERSION = 2;

/**
 * The JSON plan, one shape for one account or many: the totals, every change (each naming its
 * account; `null` for the one account of a single-account file), and each account with its
 * service, identity, summary, checks and failure.
 */
export function runJson(accounts: AccountPlan[], options: { keepSeen?: boolean } = {}) {
  const total = totalOf(accounts);
  return {
    format_version: FORMAT_VERSION,
    summary: { create: total.create, update: total.update, delete: total.delete, unchanged: total.unchanged, unmanaged: total.unmanaged },
    changes: accounts.flatMap((a) => (a.plan?.changes ?? []).map((change) => ({ account: a.name || null, ...jsonChange(change, options.keepSeen === true) }))),
    accounts: accounts.map((a) => ({
      name: a.name || null,
      base_url: a.baseUrl,
      account: a.plan?.account ?? null,
      summary: a.plan?.summary ?? null,
      failure: a.failure ? failureLines(a.failure).join('\n') : null,
      warnings: a.plan?.warnings ?? [],
      unverified: a.plan?.unverified ?? [],
      safety: a.plan?.safety ?? null,
      limit: a.plan?.limit ?? null,
    })),
  };
}

export function renderRunJson(accounts: AccountPlan[]): string {
  // JSON already escapes C0; DEL, C1 and bidi controls too, so the output is safe to `cat`.
  return `${jsonUnicodeEscapes(JSON.stringify(runJson(accounts), null, 2))}\n`;
}

const KIND_WORDS: Record<string, [string, string]> = {
  account: ['account', 'account'],
  count: ['count', 'counts'],
  listing: ['listing page', 'listing pages'],
  search: ['search page', 'search pages'],
  show: ['website shown', 'websites shown'],
  statistics: ['statistics', 'statistics'],
  archive: ['archive page', 'archive pages'],
  write: ['write', 'writes'],
};

/** `--verbose`: how many requests an account's run made, and what for: "[acme] 5 requests: 1 account, 1 count, 1 search page, 2 statistics". */
export function requestsLine(name: string, total: number, byKind: Partial<Record<string, number>>): string {
  const parts = Object.entries(KIND_WORDS).flatMap(([kind, [one, many]]) => {
    const n = byKind[kind] ?? 0;
    return n ? [`${n} ${n === 1 ? one : many}`] : [];
  });
  return `${name ? `[${printable(name)}] ` : ''}${total} request${total === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}
