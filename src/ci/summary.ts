/**
 * The job summary: GitHub shows the markdown appended to $GITHUB_STEP_SUMMARY on the run's page.
 * Elsewhere (GitLab, a terminal) there is no such file, and the text goes to stdout, into the log.
 */
import { appendFile } from 'node:fs/promises';
import { SitesyncError } from '../messages/errors.js';
import { cutMarkdown } from './cut-markdown.js';

/**
 * GitHub takes at most 1 MiB per step; a UTF-16 unit is at most 3 bytes of UTF-8, so this many
 * characters always fit.
 */
export const SUMMARY_LIMIT = 300_000;

export function summarySection(text: string, title?: string): string {
  const content = cutMarkdown(
    text.replace(/^\uFEFF/, '').trimEnd(),
    SUMMARY_LIMIT,
    (n) => `_…cut: ${n.toLocaleString('en-US')} characters is more than a job summary holds._`,
  );
  return `${title ? `## ${title}\n\n` : ''}${content}\n\n`;
}

/** Appends to the summary file; returns false when there is none (the caller prints instead). */
export async function appendJobSummary(file: string | undefined, section: string): Promise<boolean> {
  if (!file) return false;
  try {
    await appendFile(file, section, 'utf8');
  } catch (error) {
    throw new SitesyncError(`cannot write the job summary to ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return true;
}
