/**
 * How field values read in every output: names for privacy, true/false for flags, lists joined.
 * List entries and domains may come from the service. Values stay raw here (messages quote them
 * too) and each output escapes them once, where it writes them: `printable` on a terminal,
 * `markdownText` in a comment. Titles and labels, written only to a terminal, are escaped here.
 */
import { printable } from '../messages/escape.js';
import { FIELD, fieldOf } from '../model/fields.js';
import type { Change, FieldChange, FieldValue, PasswordSource, Plan, WriteOnlyReason } from '../model/types.js';

/** A value as its field's row shows it (`domain` and other names: as text), not yet escaped. */
export function formatValue(field: string, value: FieldValue | null | undefined): string {
  const row = fieldOf(field);
  if (value === null || value === undefined) return row?.unset ?? '(unknown)';
  const shown = row?.show?.(value);
  if (shown !== undefined) return shown;
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(none)';
  return String(value);
}

/**
 * The value a change sends for a field, as every output shows it: a password as where it comes
 * from, `(sensitive, from ${ACME_SHOP_PW})` — the variable's name, never a value (a renderer is
 * never handed one).
 */
export function formatSent(change: Change, d: FieldChange): string {
  const from = change.action === 'delete' ? undefined : change.password_from;
  return d.field === 'password' && d.after === '(sensitive)' && from ? passwordShown(from) : formatValue(d.field, d.after);
}

/** `(sensitive, from ${NAME})`, or that the password is written in clear in the file. */
export function passwordShown(from: PasswordSource): string {
  const names = from.variables.map((name) => `\${${name}}`).join(' and ');
  if (!names) return '(sensitive, written in clear in the file)';
  return `(sensitive, from ${names}${from.clear ? ' and text written in clear in the file' : ''})`;
}

/** The "before" side of a field change: unknown when the service does not show it. */
export function formatBefore(d: FieldChange): string {
  if (d.write_only && !FIELD[d.field].writeOnly) return '(not shown by the service)';
  return formatValue(d.field, d.before);
}

export const WRITE_ONLY_REASONS: Record<WriteOnlyReason, string> = {
  create: 'sent on create',
  missing: 'the service has none',
  baseline: 'changed since the baseline',
  resend: '--resend-write-only',
  'with-update': 'sent with this update',
};

/** Why a write-only field is sent, and whether that replaces a value nobody can see. */
export function writeOnlyNote(d: FieldChange): string | undefined {
  if (!d.write_only) return undefined;
  const why = `write-only: ${WRITE_ONLY_REASONS[d.write_only]}`;
  return d.overwrites_unread ? `${why}; overwrites a value sitesync cannot read` : why;
}

/** `Plan: 1 to create, 2 to update, 0 to delete (5 unchanged, 1 unmanaged).` */
export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete (${s.unchanged} unchanged, ${s.unmanaged} unmanaged).`;
}

export function accountLabel(plan: Plan): string {
  if (!plan.account) return '';
  const { name, email } = plan.account;
  return printable(name && email ? `${name} <${email}>` : name || email);
}

export const DELETE_WARNING = 'deleting a website destroys its collected statistics';

/** Whether a list change is better shown as added/removed entries. */
export function isListChange(d: FieldChange): d is FieldChange & { before: string[]; after: string[] } {
  return Array.isArray(d.before) && Array.isArray(d.after);
}

export function changeTitle(change: Change): string {
  const id = change.id !== null ? ` (id ${change.id})` : '';
  return `${change.action} ${printable(change.domain)}${id}`;
}

/** The plan's one note about fields it could not verify, or undefined. */
export function unverifiedNote(plan: Plan): string | undefined {
  if (plan.unverified.length === 0) return undefined;
  const fields = plan.unverified.map((f) => (FIELD[f].writeOnly ? `${f} (write-only)` : `${f} (not returned by this service)`));
  return `not verifiable: ${fields.join(', ')}. sitesync sends them only where the file sets them: on create, with other updates, when they differ from --baseline, and with --resend-write-only.`;
}
