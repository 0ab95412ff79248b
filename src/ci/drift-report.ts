/**
 * What `ci drift` prints after the plan: the silent websites of each account, then what became
 * of each account's issue, and the problems to stderr. Pure: checks and outcomes in, text out.
 */
import { printable } from '../messages/escape.js';
import { howMany } from '../render/counts.js';
import { failureBlock, failureLines } from '../render/run.js';
import type { Colors } from '../io/context.js';
import { commentIdFor } from '../render/markdown.js';
import { findingWords } from '../render/verify.js';
import { DRIFT_LABEL, quotaSummary, stateOf, type DriftCheck } from './drift-body.js';
import type { IssueOutcome } from './drift.js';

/** The account as the lines name it: its name, or the config file of a single-account file. */
function nameOf(check: DriftCheck): string {
  return printable(check.account || commentIdFor(check.config));
}

/** Each account's silent websites, named in the log as in the issue; those an issue keeps from an earlier run, said so. */
export function silentText(checks: DriftCheck[], c: Colors): string {
  const withSilent = checks.filter((check) => check.quiet?.silent.length);
  const carried = checks.filter((check) => check.carried !== undefined);
  const out: string[] = [];
  if (withSilent.length) {
    const days = withSilent[0]!.quiet!.days;
    const lines = withSilent.map(
      (check) => `  ${nameOf(check)}: ${check.quiet!.silent.map((s) => `${printable(s.domain)} (${s.lastDay ? `last pageview ${s.lastDay}` : 'never a pageview'})`).join(', ')}`,
    );
    out.push('', c.bold(c.yellow(`Silent websites: no pageview in the last ${days} days`)), ...lines);
  }
  for (const check of checks) {
    const q = check.quiet?.quota;
    if (q) out.push('', c.bold(c.yellow(`${nameOf(check)}: the month's pageviews near the plan's limit`)), `  ${quotaSummary(q)}`);
  }
  for (const check of checks) {
    const untracked = (check.verify ?? []).filter((f) => f.verdict !== 'tracked');
    if (untracked.length) {
      out.push('', c.bold(c.yellow(`${nameOf(check)}: pages without this installation's tracking code`)), ...untracked.map((f) => `  ${printable(f.domain)}: ${findingWords(f, printable)}`));
    }
  }
  const extra = checks.reduce((n, check) => n + (check.quiet?.extra ?? 0), 0);
  if (extra) {
    out.push('', c.dim(`--quiet-days: ${extra} stats ${extra === 1 ? 'request' : 'requests'} beyond one a managed website, for the month's pageviews (websites the file does not manage, or a month that reaches before the latest days read)`));
  }
  if (carried.length) {
    out.push(
      '',
      c.yellow(`Silent websites found by an earlier run with --quiet-days, not checked by this one, keep the issue of: ${carried.map(nameOf).join(', ')}`),
    );
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

const DONE: Record<'opened' | 'updated' | 'unchanged' | 'closed', string> = {
  opened: 'opened the issue',
  updated: 'updated the issue',
  unchanged: 'the issue is up to date',
  closed: 'commented on and closed the issue',
};

const STATE = { clean: 'no drift', drift: 'drift', failed: 'the check failed' } as const;

/** One line per account: its state, and what was done to its issue. */
export function outcomesText(outcomes: IssueOutcome[], service: string, c: Colors): string {
  const lines = outcomes.map((o) => {
    const state = stateOf(o.check);
    const said = state === 'clean' ? c.green(STATE[state]) : state === 'drift' ? c.yellow(STATE[state]) : c.red(STATE[state]);
    const done =
      o.action === 'none' ? '' : o.action === 'failed' ? `; ${c.red('the issue could not be kept')}` : `; ${DONE[o.action]}: ${printable(o.issue.url)}`;
    return `  ${nameOf(o.check)}: ${said}${done}`;
  });
  return `\n${c.bold(`Drift issues on ${service} (label ${DRIFT_LABEL}):`)}\n${lines.join('\n')}\n`;
}

/** The run's problems, for stderr: accounts not checked, issues not kept, labels dropped. */
export function problemsText(checks: DriftCheck[], outcomes: IssueOutcome[], service: string, c: Colors): string {
  const out: string[] = [];
  for (const o of outcomes) {
    if (o.action === 'failed') out.push(failureBlock(`the drift issue of ${nameOf(o.check)}`, failureLines(o.failure), c));
    if (o.action === 'opened' && o.unlabelled) {
      out.push(
        `${c.yellow('Warning:')} ${service} opened ${printable(o.issue.url)} without the label ${DRIFT_LABEL} (the token may not set labels): the next run will not find it and opens another. Give the job \`permissions: issues: write\`.\n`,
      );
    }
  }
  const failed = checks.filter((check) => stateOf(check) === 'failed');
  // An account with a plan whose silent websites could not be read: the plan text does not say.
  for (const check of failed) if (check.plan) out.push(failureBlock(nameOf(check), failureLines(check.failure), c));
  if (failed.length) out.push(c.red(`Error: ${howMany(failed.length, checks.length)} could not be checked: ${failed.map(nameOf).join(', ')}\n`));
  return out.join('');
}
