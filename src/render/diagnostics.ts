/**
 * A config's problems for machines: GitHub's workflow commands, which put each one on the pull
 * request's line, or JSON. Pure: problems in, text out.
 */
import { relative, sep } from 'node:path';
import { formatDiagnostic, type Diagnostic } from '../messages/errors.js';
import { jsonUnicodeEscapes, printable } from '../messages/escape.js';
import type { Colors } from '../io/terminal.js';

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

/** Warnings (and errors) for a person, one `FILE:LINE:COL: message` line each. */
export function renderWarnings(problems: Diagnostic[], c: Colors): string {
  return problems.map((d) => `${(d.severity === 'error' ? c.red : c.yellow)(printable(formatDiagnostic(d)))}\n`).join('');
}
