/**
 * A many-account run's plan: a section per account (its plan as the one-account renderers show
 * it, or why it failed), then the total. Pure: sections in, text out.
 */
import pc from 'picocolors';
import type { Plan, Summary } from '../model.js';
import type { Colors } from '../terminal.js';
import { jsonUnicodeEscapes, markdownCode, markdownText, printable } from './escape.js';
import { jsonPlan } from './json.js';
import { markerFor, MAX_MARKDOWN, renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

export interface AccountSection {
  /** The account's name in the file. */
  name: string;
  baseUrl: string;
  plan?: Plan;
  /** Why the account could not be planned: the message, then its details. */
  failure?: string[];
}

export interface Total extends Summary {
  accounts: number;
  failed: string[];
}

export function totalOf(sections: AccountSection[]): Total {
  const total: Total = { create: 0, update: 0, delete: 0, unchanged: 0, unmanaged: 0, accounts: sections.length, failed: [] };
  for (const { name, plan } of sections) {
    if (!plan) {
      total.failed.push(name);
      continue;
    }
    for (const key of ['create', 'update', 'delete', 'unchanged', 'unmanaged'] as const) total[key] += plan.summary[key];
  }
  return total;
}

export function totalLine(total: Total): string {
  const n = total.accounts;
  const failed = total.failed.length ? ` ${total.failed.length} of ${n} failed: ${total.failed.join(', ')}.` : '';
  return `Total for ${n} account${n === 1 ? '' : 's'}: ${total.create} to create, ${total.update} to update, ${total.delete} to delete (${total.unchanged} unchanged, ${total.unmanaged} unmanaged).${failed}`;
}

export function renderAccountsText(sections: AccountSection[], colors: Colors = pc.createColors(false)): string {
  const c = colors;
  const out: string[] = [];
  for (const section of sections) {
    out.push(c.bold(c.cyan(`━━ account ${printable(section.name)} ━━`)), '');
    if (section.plan) out.push(renderText(section.plan, c));
    else out.push(`${failureText(section, c)}\n`);
  }
  out.push(c.bold(totalLine(totalOf(sections))), '');
  return out.join('\n');
}

function failureText(section: AccountSection, c: Colors): string {
  return failureBlock(`${section.name} (${section.baseUrl}) could not be planned`, section.failure ?? [], c).trimEnd();
}

/**
 * An account's failure as every command shows it: `✗ TITLE: message` in red, then its details
 * indented, each line as data (the message may quote the service). An empty title: the message alone.
 */
export function failureBlock(title: string, lines: string[], c: Colors): string {
  const [message = 'failed', ...details] = lines;
  const head = c.red(`✗ ${title ? `${printable(title)}: ` : ''}${printable(message)}`);
  return `${[head, ...details.map((d) => `    ${printable(d)}`)].join('\n')}\n`;
}

/**
 * One comment for the whole run: the marker, the total and a table of accounts, then each
 * account's section. Over the limit, each section is cut to its share (a small plan keeps all
 * it needs; the rest is shared by the large ones), with the note each cut section carries.
 */
export function renderAccountsMarkdown(sections: AccountSection[], limit = MAX_MARKDOWN, commentId?: string): string {
  const total = totalOf(sections);
  const changed = total.create + total.update + total.delete > 0;
  const head = [
    markerFor(commentId),
    `### sitesync plan, ${total.accounts} accounts: ${changed ? `${total.create} to create, ${total.update} to update, ${total.delete} to delete` : 'no changes'}${total.failed.length ? ` · ${total.failed.length} failed` : ''}`,
    '',
    '| account | service | create | update | delete | unchanged | unmanaged |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const s of sections) {
    const p = s.plan?.summary;
    const cells = p ? [p.create, p.update, p.delete, p.unchanged, p.unmanaged].join(' | ') : '**failed** | | | |';
    head.push(`| ${markdownCode(s.name)} | ${markdownCode(s.baseUrl)} | ${cells} |`);
  }
  head.push('');
  const foot = ['', `**${markdownText(totalLine(total))}**`, ''];
  const fixed = [...head, ...foot].join('\n').length + sections.length * 2;
  const bodies = shareOut(sections, Math.max(0, limit - fixed), limit);
  return [...head, ...bodies.flatMap((b) => [b, '']), ...foot].join('\n');
}

/** Each section rendered within its share of `budget`: the smallest first, leftovers passed on. */
function shareOut(sections: AccountSection[], budget: number, commentLimit: number): string[] {
  const render = (s: AccountSection, room: number) =>
    s.plan
      ? renderMarkdown(s.plan, room, { section: s.name, commentLimit })
      : `### Account ${markdownCode(s.name)}: failed\n\n> [!CAUTION]\n> ${(s.failure ?? ['failed']).map(markdownText).join('<br>')}\n`;
  const full = sections.map((s) => render(s, Number.MAX_SAFE_INTEGER));
  const order = full.map((text, i) => ({ i, size: text.length })).sort((a, b) => a.size - b.size);
  const out = [...full];
  let left = budget;
  order.forEach(({ i, size }, k) => {
    const share = Math.floor(left / (order.length - k));
    if (size > share) out[i] = render(sections[i]!, share);
    left -= out[i]!.length;
  });
  return out;
}

/** The JSON plan of a many-account file: `accounts`, each one account's plan (or its failure), and the total. */
export function renderAccountsJson(sections: AccountSection[]): string {
  const total = totalOf(sections);
  const out = {
    format_version: 1,
    summary: { create: total.create, update: total.update, delete: total.delete, unchanged: total.unchanged, unmanaged: total.unmanaged },
    failed: total.failed,
    accounts: sections.map((s) =>
      s.plan
        ? { name: s.name, status: 'planned', ...jsonPlan(s.plan) }
        : { name: s.name, status: 'failed', base_url: s.baseUrl, error: (s.failure ?? []).join('\n') },
    ),
  };
  return `${jsonUnicodeEscapes(JSON.stringify(out, null, 2))}\n`;
}
