/**
 * The body of the plan comment: it starts with the marker that CI finds it by, fits the
 * provider's limit, and says so plainly when the plan step produced nothing (it failed), so an
 * outdated plan never stays on the pull request looking current.
 */
import { commentIdFor, DEFAULT_COMMENT_ID, MARKER, markerFor, splitApproved } from '../render/markdown.js';
import { cutMarkdown } from './cut-markdown.js';

export { MARKER };

const MARKED = /<!-- sitesync-plan(?:: (.*?))? -->/;

/** The id a comment's marker (on its first line) carries; undefined when it has none. */
export function commentIdOf(body: string): string | undefined {
  const first = body.replace(/^\uFEFF/, '').trimStart().split('\n', 1)[0] ?? '';
  const id = markedId(first);
  return id === undefined ? undefined : id.trim() || DEFAULT_COMMENT_ID;
}

/**
 * What MARKED finds in `line` (one line), in one pass: the text of its `(.*?)`, '' without one,
 * undefined when there is no marker. The expression itself reads to the line's end from each
 * `<!-- sitesync-plan` without its ` -->`: anyone's comment of a million characters took a minute.
 */
function markedId(line: string): string | undefined {
  const open = '<!-- sitesync-plan';
  // The next ` -->` and the next character `.` does not match, each searched again only once passed.
  let close = -2;
  let stop = -2;
  for (let i = line.indexOf(open); i >= 0; i = line.indexOf(open, i + 1)) {
    const at = i + open.length;
    if (line.startsWith(': ', at)) {
      if (close !== -1 && close < at + 2) close = line.indexOf(' -->', at + 2);
      if (stop !== -1 && stop < at + 2) {
        LINE_END.lastIndex = at + 2;
        stop = LINE_END.exec(line)?.index ?? -1;
      }
      if (close >= 0 && (stop < 0 || stop > close)) return line.slice(at + 2, close);
    }
    if (line.startsWith(' -->', at)) return '';
  }
  return undefined;
}

const LINE_END = /[\n\r\u2028\u2029]/g;

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
  const own = commentIdOf(content) !== undefined;
  const marked = own ? content.trimStart().replace(MARKED, marker) : `${marker}\n${content}`;
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
