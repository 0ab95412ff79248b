/** The plan for a terminal or a log: one block per change, then the summary line. */
import pc from 'picocolors';
import { FIELD } from '../model/fields.js';
import type { Change, FieldChange, Plan } from '../model/types.js';
import type { Colors } from '../io/context.js';
import { listDelta } from '../planner/values.js';
import { printable } from '../messages/escape.js';
import { moveNote } from '../planner/moves.js';
import { archiveNote, count, describeTraffic, sparkline } from '../planner/traffic-words.js';
import {
  accountLabel,
  changeTitle,
  formatBefore,
  formatSent,
  isListChange,
  summaryLine,
  unverifiedNote,
  writeOnlyNote,
} from './values.js';

const SYMBOL = { create: '+', update: '~', delete: '-' } as const;

export function renderText(plan: Plan, colors: Colors = pc.createColors(false)): string {
  const c = colors;
  const paint = { create: c.green, update: c.yellow, delete: c.red } as const;
  const lines: string[] = [];
  const account = accountLabel(plan);
  lines.push(c.bold(`sitesync plan for ${plan.base_url}${account ? ` (account: ${account})` : ''}`), '');

  for (const change of plan.changes) {
    const color = paint[change.action];
    const where = change.line !== undefined ? c.dim(`  (${change.file ? `${printable(change.file)}:` : 'line '}${change.line})`) : '';
    lines.push(`${color(`${SYMBOL[change.action]} ${changeTitle(change)}`)}${where}`);
    lines.push(...changeBody(change, c).map((l) => `    ${l}`), '');
  }

  if (plan.changes.length === 0) lines.push('No changes: the account matches the file.', '');
  if (plan.warnings.length) {
    lines.push(c.yellow('Warnings:'));
    for (const w of plan.warnings) lines.push(c.yellow(`  ! ${printable(w)}`));
    lines.push('');
  }
  const note = unverifiedNote(plan);
  if (note) lines.push(c.dim(`Note: ${note}`), '');
  lines.push(c.bold(summaryLine(plan)));
  return `${lines.join('\n')}\n`;
}

function changeBody(change: Change, c: Colors): string[] {
  const move = change.action !== 'update' && change.move ? [c.cyan(printable(moveNote(change.move)))] : [];
  return [...move, ...fieldsBody(change, c)];
}

function fieldsBody(change: Change, c: Colors): string[] {
  if (change.action === 'delete') {
    const spark = sparkline(change.traffic);
    return [
      c.red(`! ${printable(describeTraffic(change))}${change.retired ? ' (retired: deleted with its history)' : ''}`),
      ...(spark ? [`${c.dim('last 30 days')} ${spark} ${c.dim(`(most ${count(Math.max(...change.traffic!.daily_30d))} a day)`)}`] : []),
      ...(change.archive !== undefined ? [c.cyan(printable(archiveNote(change.archive)))] : []),
    ];
  }
  const width = Math.max(...change.details.map((d) => d.field.length), 8) + 2;
  const out: string[] = [];
  for (const d of change.details) {
    const label = d.field.padEnd(width);
    const writeOnly = change.action === 'update' ? writeOnlyNote(d) : undefined;
    const note = writeOnly ? c.dim(`  (${writeOnly})`) : '';
    if (change.action === 'create') {
      const extra = !FIELD[d.field].onCreate ? c.dim('  (set by an update after the store)') : '';
      out.push(`${label}${printable(formatSent(change, d))}${extra}`);
    } else if (isListChange(d) && !d.write_only) {
      const { added, removed } = listDelta(d.before, d.after);
      const entries = [...added.map((x) => c.green(`+ ${printable(x)}`)), ...removed.map((x) => c.red(`- ${printable(x)}`))];
      out.push(`${label}${entries[0] ?? ''}`);
      for (const entry of entries.slice(1)) out.push(`${' '.repeat(width)}${entry}`);
    } else {
      out.push(`${label}${arrow(change, d, c)}${note}`);
    }
  }
  return out;
}

function arrow(change: Change, d: FieldChange, c: Colors): string {
  return `${printable(formatBefore(d))} ${c.dim('→')} ${printable(formatSent(change, d))}`;
}
