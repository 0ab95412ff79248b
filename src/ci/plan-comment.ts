/**
 * One plan comment per pull/merge request: find the one marked by an earlier run and update
 * it, or post it. Provider-neutral; github.ts and gitlab.ts speak the APIs.
 */
import { commentIdOf, isPlanComment, planCommentBody } from './comment-body.js';

export interface ThreadComment {
  id: number;
  body: string;
  /** The author's login. */
  author: string;
  /** A link to the comment, for the one line the command prints. */
  url: string;
  /** The provider's global id of the comment (GitHub's node_id), where it has one. */
  nodeId?: string;
}

/** The comments of one pull/merge request, as the provider's API gives them. */
export interface CommentThread {
  /** "GitHub", "GitLab". */
  readonly service: string;
  /** "pull request #7 of octo/config", "merge request !3 of project 42": for messages. */
  readonly where: string;
  /** "comment", "note". */
  readonly noun: string;
  /** The provider's limit on a comment's length. */
  readonly maxBody: number;
  /** Where the job's log is, when the CI says. */
  readonly runUrl?: string;
  /** The login the token writes as, when the provider can say. */
  whoAmI(): Promise<string | undefined>;
  /** Every comment, oldest first. */
  list(): Promise<ThreadComment[]>;
  create(body: string): Promise<ThreadComment>;
  /** Undefined when the comment is gone (deleted since it was listed). */
  update(id: number, body: string): Promise<ThreadComment | undefined>;
  /**
   * Who last edited the comment, null when nobody has; absent where only its author can edit it
   * (GitLab, for whoever holds no key). Throws when the provider will not say.
   */
  lastEditor?(comment: ThreadComment): Promise<string | null>;
}

export type UpsertOutcome = 'posted' | 'updated' | 'unchanged';

export interface UpsertResult {
  outcome: UpsertOutcome;
  comment: ThreadComment;
}

export async function upsertPlanComment(thread: CommentThread, text: string, id?: string): Promise<UpsertResult> {
  const body = planCommentBody(text, { limit: thread.maxBody, service: thread.service, runUrl: thread.runUrl, id });
  const existing = await findPlanComment(thread, commentIdOf(body));
  if (existing) {
    // Same text: no write, so the comment does not show as edited and nobody is notified.
    if (existing.body === body) return { outcome: 'unchanged', comment: existing };
    const updated = await thread.update(existing.id, body);
    if (updated) return { outcome: 'updated', comment: updated };
  }
  return { outcome: 'posted', comment: await thread.create(body) };
}

/** The plan comment of config `id` in the thread that the token's own user wrote; never a person's, nor another bot's. */
export async function findPlanComment(thread: CommentThread, id?: string): Promise<ThreadComment | undefined> {
  const [self, comments] = await Promise.all([thread.whoAmI(), thread.list()]);
  return pickPlanComment(comments, self, id);
}

/**
 * The plan comment that an apply after the merge compares with (`ci approved`): the token's own,
 * as the token last wrote it. On GitHub anyone who may write to the repository may edit any
 * comment, the bot's too, and the author stays the bot: one edited by someone else since shows
 * what they wrote, no approval. A string says why there is none.
 */
export async function findApprovedComment(thread: CommentThread, id?: string): Promise<ThreadComment | string> {
  const [self, comments] = await Promise.all([thread.whoAmI(), thread.list()]);
  const comment = pickPlanComment(comments, self, id);
  // A person's comment with the marker is no approval: anyone may paste one.
  if (!comment) return `${thread.where} has no sitesync plan ${thread.noun} written by this token: it was merged without a plan to compare with`;
  const editor = await thread.lastEditor?.(comment);
  if (editor && !sameUser(editor, self!)) {
    return `${thread.where}: its sitesync plan ${thread.noun} was last edited by ${editor}, not by this token's user (${self}): it is not the plan sitesync posted, and approves nothing`;
  }
  return comment;
}

/** One user by two names: GitHub's REST API calls a bot `NAME[bot]`, its GraphQL API `NAME`; logins ignore case. */
function sameUser(a: string, b: string): boolean {
  const plain = (login: string) => login.toLowerCase().replace(/\[bot\]$/, '');
  return plain(a) === plain(b);
}

/**
 * The marked comment to update: the token's own. Never a person's: anyone can paste the marker,
 * and a plan updated into a pull request author's comment would be theirs to edit into another
 * plan; nor another bot's, which may carry text a person wrote.
 */
export function pickPlanComment(comments: ThreadComment[], self?: string, id?: string): ThreadComment | undefined {
  return own(
    comments.filter((c) => isPlanComment(c.body, id)),
    self,
  );
}

/**
 * Of marked comments or issues, the first that the token's user (`self`) wrote. When who the
 * token is cannot be known, none: a new one is written rather than anyone's taken over.
 */
export function own<T extends { author: string }>(marked: T[], self: string | undefined): T | undefined {
  return self === undefined ? undefined : marked.find((c) => c.author === self);
}
