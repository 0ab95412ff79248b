/**
 * One issue per drifted account: opened on drift, its text edited while the drift changes (no
 * write while it does not), commented on and closed once the account equals the file again, and
 * kept open saying why when the check failed. Found by its label and the marker on its first
 * line, among the token's own issues only: anyone can paste the marker into an issue, and a
 * person's (or another bot's) issue is never edited or closed. Provider-neutral; the requests
 * are a few per run: one listing, then one write per account whose state changed.
 */
import { closingComment, DRIFT_LABEL, driftId, driftIdOf, issueBody, issueTitle, sameDrift, silentSectionOf, stateOf, verifySectionOf, type DriftCheck } from './drift-body.js';
import type { Failure } from '../model/types.js';
import type { Issue, IssueTracker } from './issues.js';
import { own } from './plan-comment.js';

export type IssueOutcome =
  | { check: DriftCheck; action: 'opened' | 'updated' | 'unchanged' | 'closed'; issue: Issue; unlabelled?: boolean }
  | { check: DriftCheck; action: 'none' }
  | { check: DriftCheck; action: 'failed'; failure: Failure };

/**
 * Keeps each account's issue (the outcomes' checks include the silent websites carried over from
 * an issue when the run did not check them), one account after another (providers ask for writes in series); one account's failure does not stop the others. */
export async function keepDriftIssues(tracker: IssueTracker, checks: DriftCheck[], describe: (error: unknown) => Failure): Promise<IssueOutcome[]> {
  const open = await tracker.listOpen(DRIFT_LABEL);
  let self: Promise<string | undefined> | undefined;
  const outcomes: IssueOutcome[] = [];
  for (const check of checks) {
    try {
      const marked = open.filter((issue) => driftIdOf(issue.body) === driftId(check));
      // Who the token is, asked only when some issue carries the marker.
      const existing = marked.length ? own(marked, await (self ??= tracker.whoAmI())) : undefined;
      // A run without --quiet-days cannot see silent websites, one without --verify untracked ones: those the issue lists stay in it.
      const carried = !check.quiet && existing ? silentSectionOf(existing.body) : undefined;
      const carriedVerify = !check.verify && existing ? verifySectionOf(existing.body) : undefined;
      outcomes.push(await keepOne(tracker, { ...check, ...(carried ? { carried } : {}), ...(carriedVerify ? { carriedVerify } : {}) }, existing));
    } catch (error) {
      outcomes.push({ check, action: 'failed', failure: describe(error) });
    }
  }
  return outcomes;
}

async function keepOne(tracker: IssueTracker, check: DriftCheck, existing: Issue | undefined): Promise<IssueOutcome> {
  if (stateOf(check) === 'clean') {
    if (!existing) return { check, action: 'none' };
    await tracker.comment(existing.number, closingComment(check, tracker.runUrl));
    await tracker.close(existing.number);
    return { check, action: 'closed', issue: existing };
  }
  const body = issueBody(check, { limit: tracker.maxBody, service: tracker.service, runUrl: tracker.runUrl });
  if (!existing) {
    const issue = await tracker.create(issueTitle(check), body, DRIFT_LABEL);
    // GitHub drops the labels of a token that may not set them, silently: the next run would not find the issue.
    return { check, action: 'opened', issue, unlabelled: !issue.labels.includes(DRIFT_LABEL) };
  }
  // The same drift, found by another run: nothing to write, nobody notified.
  if (sameDrift(existing.body, body)) return { check, action: 'unchanged', issue: existing };
  return { check, action: 'updated', issue: await tracker.edit(existing.number, body) };
}
