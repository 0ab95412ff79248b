/**
 * The body of the plan comment: it starts with the marker that CI finds it by, fits the
 * provider's limit, and says so plainly when the plan step produced nothing (it failed), so an
 * outdated plan never stays on the pull request looking current.
 */
import { closedMarkers, commentIdFor, DEFAULT_COMMENT_ID, MARKER, markerFor, splitApproved } from '../render/markdown.js';
import { cutMarkdown } from './cut-markdown.js';

export { MARKER };

/** The marker on a comment's first line: where it stands, and the id it carries ('' for the plain one). */
function markerOf(body: string): { index: number; end: number; id: string } | undefined {
  const first = body.replace(/^\uFEFF/, '').trimStart().split('\n', 1)[0] ?? '';
  // As /<!-- sitesync-plan(?:: (.*?))? -->/ finds it (`.`: no line break), the earlier of the two forms.
  const withId = closedMarkers(first, '<!-- sitesync-plan: ', /[\n\r\u2028\u2029]/g).next().value;
  const plain = first.indexOf(MARKER);
  if (plain >= 0 && (!withId || plain < withId.index)) return { index: plain, end: plain + MARKER.length, id: '' };
  return withId && { index: withId.index, end: withId.end, id: withId.body };
}

/** The id a comment's marker (on its first line) carries; undefined when it has none. */
export function commentIdOf(body: string): string | undefined {
  const found = markerOf(body);
  return found && (found.id.trim() || DEFAULT_COMMENT_ID);
}

/** Whether a comment is the plan comment of config `id`: its marker on its first line. */
export function isPlanComment(body: string, id: string = DEFAULT_COMMENT_ID): boolean {
  return commentIdOf(body) === commentIdFor(id);
}

export interface BodyOptions {
  /** The provider's limit on a comment's length, in characters. */
  limit: number;
  /** "GitHub", "GitLab": names whose limit it is. */
  service: string;
  /** Where the job's log is, for the "no plan" note. */
  runUrl?: string;
  /** Which config's comment (default: the id the text's own marker carries, else the default config's). */
  id?: string;
}

export function planCommentBody(text: string, options: BodyOptions): string {
  const content = text.replace(/^\uFEFF/, '');
  const marker = markerFor(options.id ?? commentIdOf(content));
  if (content.trim() === '') {
    const log = options.runUrl ? `the [job log](${options.runUrl})` : 'the job log';
    return [
      marker,
      '### sitesync plan failed',
      '',
      `This run produced no plan, so the previous one no longer applies: see ${log}.`,
      '',
    ].join('\n');
  }
  // The text's own marker, if any, gives way to this comment's.
  const own = markerOf(content);
  const start = content.trimStart();
  const marked = own ? `${start.slice(0, own.index)}${marker}${start.slice(own.end)}` : `${marker}\n${content}`;
  if (marked.length <= options.limit) return marked;
  // What the plan approves (apply --approved compares with it) stays whole after the cut.
  const { visible, block } = splitApproved(marked);
  const cut = cutMarkdown(
    visible,
    options.limit - (block ? block.length + 2 : 0),
    (n) =>
      `_…cut: the plan is ${n.toLocaleString('en-US')} characters, over ${options.service}'s limit of ${options.limit.toLocaleString('en-US')} for a comment. The full plan is in ${options.runUrl ? `[this run](${options.runUrl})` : "this run's page"}: its job summary and the plan artifact._`,
  );
  return block ? `${cut}\n${block}\n` : cut;
}
