/**
 * A config's problems for machines: GitHub's workflow commands, which put each one on the pull
 * request's line, or JSON. Pure: problems in, text out.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { formatDiagnostic, type Diagnostic } from '../messages/errors.js';
import { jsonUnicodeEscapes, printable } from '../messages/escape.js';
import type { Colors } from '../io/context.js';

/** The file as the repository names it: relative to the working directory, with `/`. */
function shownFile(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return (rel && !rel.startsWith('..') ? rel : file).split(sep).join('/');
}

/** GitHub's escaping of a workflow command's message. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** …and of a property's value, where `:` and `,` separate too. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One `::error file=F,line=L,col=C::message` (or `::warning`) per problem, shown as data as everywhere else. */
export function renderGithubAnnotations(problems: Diagnostic[], cwd: string): string {
  return problems
    .map((d) => {
      const where = [`file=${escapeProperty(printable(shownFile(d.file, cwd)))}`];
      if (d.line > 0) where.push(`line=${d.line}`, `col=${d.col}`);
      return `::${d.severity === 'error' ? 'error' : 'warning'} ${where.join(',')}::${escapeData(printable(d.message))}\n`;
    })
    .join('');
}

/** `{ valid, errors, warnings }`, each problem as `{ file, line, col, message }`. */
export function renderDiagnosticsJson(problems: Diagnostic[], cwd: string, extra: Record<string, unknown> = {}): string {
  const item = (d: Diagnostic) => ({ file: shownFile(d.file, cwd), line: d.line, col: d.col, message: d.message });
  const errors = problems.filter((d) => d.severity === 'error');
  const out = { valid: errors.length === 0, errors: errors.map(item), warnings: problems.filter((d) => d.severity !== 'error').map(item), ...extra };
  return `${jsonUnicodeEscapes(JSON.stringify(out, null, 2))}\n`;
}

/**
 * A warning as a person reads it: its file as they gave it (relative to the working folder `cwd`
 * when inside it), and the account it belongs to when the message does not say
 * (`clients/acme/websites.yaml:2:13: warning (account acme): …`).
 */
export function formatWarning(d: Diagnostic, cwd: string): string {
  const file = isAbsolute(d.file) ? shownFile(d.file, cwd) : d.file;
  const where = d.line > 0 ? `${file}:${d.line}:${d.col}` : file;
  const named = d.account === undefined || d.message.startsWith(`accounts.${d.account}.`) || d.message.startsWith(`accounts.${d.account}:`);
  return `${where}: warning${named ? '' : ` (account ${d.account})`}: ${d.message}`;
}

/**
 * Warnings (and errors) for a person, one `FILE:LINE:COL: message` line each, each said once;
 * warnings as formatWarning names them.
 */
export function renderWarnings(problems: Diagnostic[], c: Colors, cwd: string): string {
  const lines = problems.map((d) => (d.severity === 'error' ? c.red : c.yellow)(printable(d.severity === 'error' ? formatDiagnostic(d) : formatWarning(d, cwd))));
  return [...new Set(lines)].map((line) => `${line}\n`).join('');
}
