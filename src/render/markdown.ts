/**
 * The plan as a pull-request comment: the marker first (CI finds the comment by it and updates
 * it in place), a summary line and table, each change's details folded in `<details>`, and the
 * whole kept under 60,000 characters (GitHub's limit is 65,536).
 */
import type { AccountPlan, Change, DeleteChange, Plan } from '../model/types.js';
import { blockOf, receiptOf } from '../planner/receipt.js';
import { moveNote } from '../planner/moves.js';
import { archiveNote, count, GONE, sparkline } from '../planner/traffic-words.js';
import { listDelta } from '../planner/values.js';
import { jsonUnicodeEscapes, markdownCode, markdownText } from '../messages/escape.js';
import {
  DELETE_WARNING,
  formatBefore,
  formatSent,
  isListChange,
  summaryLine,
  unverifiedNote,
  writeOnlyNote,
} from './values.js';
import { MAX_PLAN_COMMENT_CHARACTERS } from '../caps.js';

export const MARKER = '<!-- sitesync-plan -->';

/** The config file whose plan comment carries the plain marker (what sitesync wrote before ids). */
export const DEFAULT_COMMENT_ID = 'sitesync.yaml';

/**
 * The marker of one config's plan comment: its id (the config's path, or `ci comment --id`)
 * inside, so that two configs of one repository keep two comments. The default config keeps
 * the plain marker, so the comments of earlier runs are still found and updated.
 */
export function markerFor(id: string = DEFAULT_COMMENT_ID): string {
  const clean = commentIdFor(id);
  return clean === DEFAULT_COMMENT_ID ? MARKER : `<!-- sitesync-plan: ${clean} -->`;
}

/** An id as a marker holds it: nothing that would end the HTML comment or the line; `./` dropped. */
export function commentIdFor(id: string): string {
  const clean = id.replace(/-->|[\r\n<>]/g, '').trim().replace(/^(\.\/)+/, '');
  return clean || DEFAULT_COMMENT_ID;
}
/**
 * The hidden block a plan comment ends with, after the visible plan: what it approves (each
 * account's changes by digest, and the config files' SHA-256), for `apply --approved` to compare
 * its own plan with. apply never takes a change from it, so nothing written into it can make a
 * write. One line of JSON in which `<`, `>`, `&` and `-` are `\u` escapes: no text of a domain can
 * end the HTML comment or be markup, and a cut keeps it whole or drops it whole.
 */
export const APPROVED_BLOCK = /<!-- sitesync-approved: ([^\n]*?) -->/g;

/**
 * Each match of `OPEN(BODY) -->` in `text`, in order and apart, BODY the shortest text without a
 * character of `breaks` (a global expression): what a lazy expression finds, in one pass. The
 * expression reads to the line's end again from each OPEN without its ` -->`: a stranger's text
 * of a megabyte of them took half a minute, of 16 MiB hours.
 */
export function* closedMarkers(text: string, open: string, breaks: RegExp): Generator<{ index: number; body: string; end: number }> {
  // The next ` -->` and the next line break, each searched again only once passed.
  let close = -2;
  let stop = -2;
  for (let i = text.indexOf(open); i >= 0; i = text.indexOf(open, i + 1)) {
    const at = i + open.length;
    if (close < at) close = text.indexOf(' -->', at);
    if (close < 0) return;
    if (stop !== -1 && stop < at) {
      breaks.lastIndex = at;
      stop = breaks.exec(text)?.index ?? -1;
    }
    if (stop >= 0 && stop < close) continue;
    yield { index: i, body: text.slice(at, close), end: close + 4 };
    // The next match starts after this one.
    i = close + 3;
  }
}

/** The last match of APPROVED_BLOCK in `text`: where it starts, the block, and its JSON. */
export function lastApprovedBlock(text: string): { index: number; block: string; json: string } | undefined {
  let last: { index: number; body: string; end: number } | undefined;
  for (const found of closedMarkers(text, '<!-- sitesync-approved: ', /\n/g)) last = found;
  return last && { index: last.index, block: text.slice(last.index, last.end), json: last.body };
}

/** The approved block of a run's plan, within a third of `limit`: each change listed, or (a very large plan) each account's digest alone. */
export function approvedBlock(accounts: AccountPlan[], configSha256: string, limit: number): string {
  const block = (listed: boolean) =>
    `<!-- sitesync-approved: ${jsonUnicodeEscapes(JSON.stringify(blockOf(receiptOf(accounts, configSha256), listed))).replace(/[<>&-]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)} -->`;
  const full = block(true);
  return full.length <= limit / 3 ? full : block(false);
}

/** A plan comment split into its visible text and the approved block it ends with ('' when it has none): a cut of the text keeps the block. */
export function splitApproved(text: string): { visible: string; block: string } {
  const found = lastApprovedBlock(text);
  if (!found || text.slice(found.index + found.block.length).trim() !== '') return { visible: text, block: '' };
  return { visible: text.slice(0, found.index).replace(/\n+$/, ''), block: found.block };
}

const ICON = { create: '🟢 create', update: '🟡 update', delete: '🔴 delete' } as const;

/** The order changes are listed in when the plan must be cut: what a reviewer must see first. */
const CUT_LAST = { delete: 0, update: 1, create: 2 } as const;

export interface MarkdownOptions {
  /** One account's section of a many-account comment: its name heads it, and no marker. */
  section?: string;
  /** The whole comment's limit, for the cut note (a section gets a share of it as `limit`). */
  commentLimit?: number;
  /** Which config's comment this is (see markerFor). */
  commentId?: string;
  /** What a cut plan says: what was cut to fit, and where the rest is (default: a pull-request comment). */
  cut?: CutNote;
  /** Part of a page that is not the plan comment (a drift issue): no marker. */
  unmarked?: boolean;
}

export interface CutNote {
  /** "this comment", "this page". */
  what: string;
  /** Where every change is. */
  whereAll: string;
}

/** The plan comment's cut note: the action puts the whole plan in the job summary, and the saved plan in an artifact. */
export const COMMENT_CUT: CutNote = {
  what: 'this comment',
  whereAll: "The JSON plan (`--format json`, `--out`) lists them all; in CI, the run's job summary shows the whole plan, and its plan artifact holds it",
};

export function renderMarkdown(plan: Plan, limit = MAX_PLAN_COMMENT_CHARACTERS, options: MarkdownOptions = {}): string {
  const head: string[] = options.section === undefined && !options.unmarked ? [markerFor(options.commentId)] : [];
  const s = plan.summary;
  const changed = s.create + s.update + s.delete > 0;
  const counts = changed ? `${s.create} to create, ${s.update} to update, ${s.delete} to delete` : 'no changes';
  head.push(options.section === undefined ? `### sitesync plan: ${counts}` : `### Account ${markdownCode(options.section)}: ${counts}`);
  const account = accountMarkdown(plan);
  head.push('', `${markdownCode(plan.base_url)}${account ? ` · account ${account}` : ''}`, '');
  head.push('| create | update | delete | unchanged | unmanaged |', '|---:|---:|---:|---:|---:|');
  head.push(`| ${s.create} | ${s.update} | ${s.delete} | ${s.unchanged} | ${s.unmanaged} |`, '');
  if (plan.warnings.length) {
    head.push('> [!WARNING]');
    for (const w of plan.warnings) head.push(`> - ${markdownText(w)}`);
    head.push('');
  }
  const note = unverifiedNote(plan);
  // sitesync's own sentence about field names: nothing in it to escape.
  if (note) head.push(`> [!NOTE]`, `> ${note}`, '');
  // Said once, above the changes, with what the deletes destroy in all.
  if (s.delete > 0) head.push('> [!CAUTION]', `> ${deletesLine(plan)}`, '');
  const foot = ['', `**${summaryLine(plan)}**`, ''];

  const table: string[] = changed ? ['| | website | changes |', '|---|---|---|'] : [];
  const details: string[] = [];
  let blocks = plan.changes.map((c) => ({ action: c.action, row: tableRow(c), detail: detailBlock(c) }));
  const fixed = [...head, ...foot].join('\n').length + 400;
  // What must be cut is cut from the creates first: thousands of new websites (cheap to write)
  // must not push a delete, or a private website made public, out of the reviewer's sight.
  if (fixed + blocks.reduce((n, b) => n + b.row.length + b.detail.length + 2, 0) > limit) {
    blocks = [...blocks].sort((a, b) => CUT_LAST[a.action] - CUT_LAST[b.action]);
  }
  let used = fixed + table.join('\n').length + '<details><summary>Details</summary>\n\n</details>\n'.length;
  let shown = 0;
  for (const block of blocks) {
    const cost = block.row.length + block.detail.length + 2;
    if (used + cost > limit) break;
    table.push(block.row);
    details.push(block.detail);
    used += cost;
    shown++;
  }
  const body = [...table];
  if (details.length) body.push('', '<details><summary>Details</summary>', '', ...details, '</details>');
  if (shown < blocks.length) {
    const cut = blocks.slice(shown);
    const kinds = (['delete', 'update', 'create'] as const).flatMap((action) => {
      const n = cut.filter((b) => b.action === action).length;
      return n ? [`${n} ${n === 1 ? action : `${action}s`}`] : [];
    });
    body.push(
      '',
      `_…and ${cut.length} more changes, cut to keep ${(options.cut ?? COMMENT_CUT).what} under ${(options.commentLimit ?? limit).toLocaleString('en-US')} characters (deletes are listed first, then updates, then creates: those cut are ${kinds.join(', ')}). ${(options.cut ?? COMMENT_CUT).whereAll}._`,
    );
  }
  return `${[...head, ...body, ...foot].join('\n')}`;
}

function tableRow(change: Change): string {
  const fields = change.action === 'delete' ? deleteCell(change) : change.fields.join(', ');
  const what = change.action !== 'update' && change.move ? `${moveNote(change.move)}; ${fields}` : fields;
  return `| ${ICON[change.action]} | ${markdownCode(change.domain)} | ${markdownText(what)} |`;
}

/** A delete's row: what it destroys. */
function deleteCell(change: DeleteChange): string {
  const archived = change.archive === undefined ? '' : `; ${archiveNote(change.archive)}`;
  return `${destroyed(change)}${archived}`;
}

function destroyed(change: DeleteChange): string {
  const t = change.traffic;
  const retired = change.retired ? ' (retired)' : '';
  if (change.gone) return GONE;
  if (t === undefined) return `deleted with its statistics${retired}`;
  if (t === null) return `deleted; traffic unknown (${change.traffic_unknown ?? 'not read'})${retired}`;
  // Recent events (read where there are no recent pageviews) are activity: said with their days.
  const events = t.events_recent ? `${count(t.events_recent)} in the last ${t.recent_days} days` : '';
  if (t.pageviews === 0) return t.events ? `deleted with ${count(t.events)} events (no pageviews${events ? `; ${events}` : ''})${retired}` : `deleted; no pageviews recorded${retired}`;
  const spark = sparkline(t);
  return `deleted with ${count(t.pageviews)} pageviews (${count(t.pageviews_30d)} in the last 30 days${events ? `; events: ${events}` : ''})${spark ? ` ${spark}` : ''}${retired}`;
}

/** The one line above the changes: how many websites go, and the pageviews they take with them. */
function deletesLine(plan: Plan): string {
  const deletes = plan.changes.filter((c): c is DeleteChange => c.action === 'delete');
  const n = deletes.length;
  const websites = n === 1 ? 'a website' : `${n} websites`;
  if (deletes.every((c) => c.traffic === undefined)) return `This plan deletes ${websites}: ${DELETE_WARNING}.`;
  const known = deletes.flatMap((c) => (c.traffic ? [c.traffic] : []));
  const unknown = deletes.filter((c) => c.traffic === null && !c.gone).length;
  const total = known.reduce((sum, t) => sum + t.pageviews, 0);
  const recent = known.reduce((sum, t) => sum + t.pageviews_30d, 0);
  const them = n === 1 ? 'it' : 'they';
  const archived = deletes.filter((c) => c.archive !== undefined);
  const folders = [...new Set(archived.map((c) => markdownCode(c.archive!)))].join(', ');
  const whose = archived.length < n ? `The histories of ${archived.length} of them are` : n === 1 ? 'Its history is' : 'Their histories are';
  const kept = archived.length ? ` ${whose} archived first, to ${folders}.` : '';
  return `This plan deletes ${websites} and the ${count(total)} pageviews ${them} recorded (${count(recent)} in the last 30 days)${unknown ? `; the traffic of ${unknown} could not be read` : ''}. There is no undo.${kept}`;
}

function detailBlock(change: Change): string {
  const lines = [`#### ${ICON[change.action]} ${markdownCode(change.domain)}${change.id !== null ? ` (id ${change.id})` : ''}`, ''];
  if (change.action === 'delete') return lines.join('\n');
  lines.push('| field | before | after |', '|---|---|---|');
  for (const d of change.details) {
    let before = change.action === 'create' ? '' : formatBefore(d);
    let after = formatSent(change, d);
    if (change.action === 'update' && isListChange(d) && !d.write_only) {
      // A list reads as what it gains and loses, not as two whole lists.
      const { added, removed } = listDelta(d.before, d.after);
      before = removed.length ? `removed: ${removed.join(', ')}` : '';
      after = added.length ? `added: ${added.join(', ')}` : '';
    }
    const writeOnly = change.action === 'update' ? writeOnlyNote(d) : undefined;
    const note = writeOnly ? ` _(${writeOnly})_` : '';
    lines.push(`| ${d.field} | ${markdownText(before)} | ${markdownText(after)}${note} |`);
  }
  lines.push('');
  return lines.join('\n');
}

/** `name (`e-mail`)`: the address in code, so GitHub and GitLab do not turn it into a mailto link. */
function accountMarkdown(plan: Plan): string {
  if (!plan.account) return '';
  const { name, email } = plan.account;
  const address = email ? markdownCode(email) : '';
  return name && address ? `${markdownText(name)} (${address})` : name ? markdownText(name) : address;
}
