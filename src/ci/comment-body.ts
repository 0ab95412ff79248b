/**
 * The body of the plan comment: it starts with the marker that CI finds it by, fits the
 * provider's limit, and says so plainly when the plan step produced nothing (it failed), so an
 * outdated plan never stays on the pull request looking current.
 */
import { MARKER } from '../render/markdown.js';
import { cutMarkdown } from './cut.js';

export { MARKER };

/** Whether a comment is the plan comment: the marker on its first line. */
export function isPlanComment(body: string): boolean {
  const first = body.replace(/^\uFEFF/, '').trimStart().split('\n', 1)[0] ?? '';
  return first.includes(MARKER);
}

export interface BodyOptions {
  /** The provider's limit on a comment's length, in characters. */
  limit: number;
  /** "GitHub", "GitLab": names whose limit it is. */
  service: string;
  /** Where the job's log is, for the "no plan" note. */
  runUrl?: string;
}

export function planCommentBody(text: string, options: BodyOptions): string {
  const content = text.replace(/^\uFEFF/, '');
  if (content.trim() === '') {
    const log = options.runUrl ? `the [job log](${options.runUrl})` : 'the job log';
    return [
      MARKER,
      '### sitesync plan failed',
      '',
      `This run produced no plan, so the previous one no longer applies: see ${log}.`,
      '',
    ].join('\n');
  }
  const marked = isPlanComment(content) ? content : `${MARKER}\n${content}`;
  return cutMarkdown(
    marked,
    options.limit,
    (n) =>
      `_…cut: the plan is ${n.toLocaleString('en-US')} characters, over ${options.service}'s limit of ${options.limit.toLocaleString('en-US')} for a comment. The full plan is in ${options.runUrl ? `[this run](${options.runUrl})` : "this run's page"}: its job summary and the plan artifact._`,
  );
}
