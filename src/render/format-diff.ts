/** What `sitesync fmt --check` shows: a unified diff of a file against its formatted text. */
import { createTwoFilesPatch } from 'diff';
import type { Colors } from '../io/context.js';
import { MAX_DIFF_EDITS } from '../caps.js';

export function renderFormatDiff(shown: string, before: string, after: string, c: Colors): string {
  const patch = createTwoFilesPatch(shown, shown, before, after, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS }) ?? tooManyChanges(shown);
  // The first two lines ("Index: FILE" and a rule of "=") repeat the name: the ---/+++ lines say it.
  return patch
    .split('\n')
    .slice(2)
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---')) return c.bold(line);
      if (line.startsWith('@@')) return c.cyan(line);
      if (line.startsWith('+')) return c.green(line);
      if (line.startsWith('-')) return c.red(line);
      return line;
    })
    .join('\n');
}

/** In place of a diff of more than MAX_DIFF_EDITS changed lines: its header, and what to do. */
function tooManyChanges(shown: string): string {
  return `Index: ${shown}\n===\n--- ${shown}\n+++ ${shown}\n(more than ${MAX_DIFF_EDITS.toLocaleString('en-US')} lines change: the diff is not shown; sitesync fmt writes them, and git diff shows them)\n`;
}
