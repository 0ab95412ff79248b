/**
 * What apply prints as it goes and when it is done: one line per change, then the failures, the
 * counts and what to do next. Pure: results in, text out.
 */
import { markdownCode, markdownText, printable } from '../messages/escape.js';
import type { AccountOutcome, Change, ChangeResult, ExecuteResult } from '../model/types.js';
import type { Colors } from '../io/context.js';
import { accountsCount } from './counts.js';
import { failureBlock, failureLines, sectionHeader } from './run.js';
import { changeTitle } from './values.js';

/** One change's outcome, as it is logged while apply runs (no newline). */
export function resultLine(r: ChangeResult, c: Colors): string {
  const title = changeTitle(r.change);
  if (r.status === 'failed') return c.red(`✗ ${title}: ${withoutPrefix(r.error ?? 'failed', r.change)}`);
  if (r.status === 'gone') return `${c.dim('·')} ${title}: ${r.note ?? 'already gone'} ${c.dim(`${r.ms}ms`)}`;
  return `${c.green('✓')} ${title}${r.note ? c.dim(` (${r.note})`) : ''} ${c.dim(`${r.ms}ms`)}`;
}

/** The failure's message without the "create x.com: " that the line already says, shown as data. */
export function withoutPrefix(message: string, change: Change): string {
  const prefix = `${change.action} ${change.domain}: `;
  return printable(message.startsWith(prefix) ? message.slice(prefix.length) : message);
}

/** The failures, the counts, and how to finish: what apply prints when it is done. */
export function renderApplySummary({ results }: ExecuteResult, c: Colors): string {
  const done = (action: string) => results.filter((r) => r.status === 'done' && r.change.action === action).length;
  const failed = results.filter((r) => r.status === 'failed');
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const gone = results.filter((r) => r.status === 'gone').length;
  let out = '';
  if (failed.length) {
    out += `\n${c.red(`Failed (${failed.length}):`)}\n`;
    for (const r of failed) out += c.red(`  ✗ ${changeTitle(r.change)}: ${withoutPrefix(r.error ?? 'failed', r.change)}\n`);
  }
  const line = `Applied: ${done('create')} created, ${done('update')} updated, ${done('delete')} deleted${gone ? `, ${gone} already gone` : ''}, ${failed.length} failed${skipped ? `, ${skipped} not started (interrupted)` : ''}.`;
  out += `\n${failed.length || skipped ? c.bold(c.red(line)) : c.bold(c.green(line))}\n`;
  // A re-run finishes what failed on the way (5xx, network, interrupted), never what was refused.
  const refused = failed.filter((r) => r.refused).length;
  if (failed.length > refused || skipped) out += 'Run sitesync apply again to finish: it picks up where this run stopped.\n';
  if (refused) {
    const what = refused === 1 ? 'the change' : `the ${refused} changes`;
    out += `The service refused ${what} marked above: applying again as is fails the same way. Change what its message names (the listed fields in the file, or the domain), then run sitesync plan.\n`;
  }
  return out;
}

/**
 * What apply says when it is done: an unnamed account's summary as it is; named accounts each
 * under their header (applied, or why not), then the total. `outcomes` holds every account of the
 * run; one with neither an outcome nor a failure had nothing to apply.
 */
export function renderApplyResults(outcomes: AccountOutcome[], c: Colors): string {
  if (!outcomes.some((o) => o.name)) return outcomes.map((o) => (o.outcome ? renderApplySummary(o.outcome, c) : '')).join('');
  let out = '';
  const counts = { done: 0, failed: 0 };
  const notApplied: string[] = [];
  const unfinished: string[] = [];
  const acted = outcomes.filter((o) => o.outcome || o.failure);
  for (const o of acted) {
    out += `\n${sectionHeader(o.name, c)}\n`;
    if (o.outcome) {
      out += renderApplySummary(o.outcome, c);
      for (const r of o.outcome.results) {
        if (r.status === 'failed') counts.failed++;
        else if (r.status !== 'skipped') counts.done++;
      }
      if (o.outcome.interrupted || o.outcome.results.some((r) => r.status === 'failed')) unfinished.push(o.name);
    } else {
      notApplied.push(o.name);
      out += failureBlock('not applied', failureLines(o.failure), c);
    }
  }
  const untouched = outcomes.length - acted.length;
  const changes = (n: number) => `${n} change${n === 1 ? '' : 's'}`;
  const line = [
    `Total for ${accountsCount(outcomes.length)}: ${changes(counts.done)} applied, ${counts.failed} failed`,
    untouched ? ` (${untouched} had nothing to apply)` : '',
    notApplied.length ? `; not applied: ${notApplied.join(', ')}` : '',
    unfinished.length ? `; did not finish: ${unfinished.join(', ')}` : '',
    '.',
  ].join('');
  const bad = notApplied.length + unfinished.length > 0;
  return `${out}\n${bad ? c.bold(c.red(line)) : c.bold(c.green(line))}\n`;
}

/**
 * What apply did, as markdown (`apply --report`, which the action posts on the merged pull
 * request): the outcome, a row per account with its counts, each failure and refusal with the
 * service's or the check's own words (escaped: they may quote the service), and the total.
 */
export function renderApplyMarkdown(all: AccountOutcome[]): string {
  const named = all.some((o) => o.name);
  const outcomes = all.filter((o) => o.outcome || o.failure);
  const done = (o: AccountOutcome, action: string) => o.outcome?.results.filter((r) => r.status === 'done' && r.change.action === action).length ?? 0;
  const failedOf = (o: AccountOutcome) => o.outcome?.results.filter((r) => r.status === 'failed') ?? [];
  const bad = outcomes.some((o) => o.failure || o.outcome?.interrupted || failedOf(o).length > 0);
  const lines = [`### sitesync apply: ${bad ? 'failed' : 'done'}`, ''];
  if (outcomes.length === 0) return [...lines, 'Nothing to apply.', ''].join('\n');
  lines.push(`| ${named ? 'account | ' : ''}created | updated | deleted | failed | |`, `|${named ? '---|' : ''}---:|---:|---:|---:|---|`);
  for (const o of outcomes) {
    const state = o.failure ? '**not applied**' : o.outcome?.interrupted ? '**interrupted**' : failedOf(o).length ? '**failed**' : 'done';
    lines.push(`| ${named ? `${markdownCode(o.name)} | ` : ''}${done(o, 'create')} | ${done(o, 'update')} | ${done(o, 'delete')} | ${failedOf(o).length} | ${state} |`);
  }
  const problems = outcomes.flatMap((o) => {
    const who = named ? `${markdownCode(o.name)}: ` : '';
    if (o.failure) return [`- ${who}not applied: ${markdownText(o.failure.message)}`, ...o.failure.details.map((d) => `  - ${markdownText(d)}`)];
    return failedOf(o).map((r) => {
      // Raw text, escaped once for markdown (changeTitle and withoutPrefix escape for a terminal).
      const prefix = `${r.change.action} ${r.change.domain}: `;
      const message = r.error ?? 'failed';
      const id = r.change.id !== null ? ` (id ${r.change.id})` : '';
      return `- ${who}${r.change.action} ${markdownCode(r.change.domain)}${id}: ${markdownText(message.startsWith(prefix) ? message.slice(prefix.length) : message)}`;
    });
  });
  if (problems.length) lines.push('', ...problems);
  const archived = outcomes.flatMap((o) => (o.outcome?.results ?? []).filter((r) => r.archive).map((r) => `- ${named ? `${markdownCode(o.name)}: ` : ''}${markdownCode(r.change.domain)} (id ${r.change.id}): ${markdownCode(r.archive!)} and its \`.csv\``));
  if (archived.length) lines.push('', `Archived before ${archived.length === 1 ? 'its delete' : 'their deletes'}:`, ...archived);
  if (named) {
    const total = (action: string) => outcomes.reduce((n, o) => n + done(o, action), 0);
    lines.push('', `**Total for ${accountsCount(all.length)}: ${total('create')} created, ${total('update')} updated, ${total('delete')} deleted, ${outcomes.reduce((n, o) => n + failedOf(o).length, 0)} failed.**`);
  }
  return `${lines.join('\n')}\n`;
}
