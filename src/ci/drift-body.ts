/**
 * What a drift issue says, and how it is found again: its marker (first line), its title, its
 * text (the account's markdown plan, its silent websites, or why the check failed; cut honestly
 * at the provider's limit) and the comment that closes it. Pure: checks in, markdown out.
 */
import { markdownCode, markdownText } from '../messages/escape.js';
import type { Failure, Plan } from '../model/types.js';
import { percentOf, type AccountUsage } from '../model/quota.js';
import { findingWords } from '../render/verify.js';
import type { Finding } from '../verify/findings.js';
import { commentIdFor, renderMarkdown, type CutNote } from '../render/markdown.js';
import { failureLines } from '../render/run.js';
import { cutMarkdown } from './cut-markdown.js';

/** The label every drift issue carries: the issues are listed by it. */
export const DRIFT_LABEL = 'sitesync-drift';

/** A managed website with no pageview in the quiet window, and its last day of traffic (null: none ever). */
export interface SilentWebsite {
  domain: string;
  lastDay: string | null;
}

/** One account's drift check, as its issue shows it. */
export interface DriftCheck {
  /** The account's name; '' for the one account of a single-account file. */
  account: string;
  /** The config file, from the top of the repository (`/`-separated). */
  config: string;
  plan?: Plan;
  /** Why the check failed: the plan, or the silent websites' read. */
  failure?: Failure;
  /**
   * With `--quiet-days N`: N, the managed websites with no pageview in those days, the account's
   * month when it is at 80 % or more of the plan's pageviews, and the stats requests it took
   * beyond one a managed website.
   */
  quiet?: { days: number; silent: SilentWebsite[]; quota?: AccountUsage; extra?: number };
  /** With `--verify`: what each managed website's page says of its tracking code. */
  verify?: Finding[];
  /** Without `--verify`: the untracked websites' section an earlier run with it wrote, kept as it was. */
  carriedVerify?: string;
  /**
   * Without `--quiet-days`: the silent websites that the issue lists from an earlier run with it
   * (its section, as it was), which this run could not check and so keeps: a daily check does
   * not close what a weekly one found.
   */
  carried?: string;
}

export type DriftState = 'clean' | 'drift' | 'failed';

/** Failed: the check could not finish. Drift: the plan has changes, or a website is silent. */
export function stateOf(check: DriftCheck): DriftState {
  if (check.failure || !check.plan) return 'failed';
  const untracked = check.verify?.some((f) => f.verdict !== 'tracked') ?? false;
  return check.plan.changes.length > 0 || (check.quiet?.silent.length ?? 0) > 0 || check.quiet?.quota !== undefined || untracked || check.carried !== undefined || check.carriedVerify !== undefined
    ? 'drift'
    : 'clean';
}

/** Which account's issue: `CONFIG#ACCOUNT`, or `CONFIG` for a single-account file. */
export function driftId(check: Pick<DriftCheck, 'account' | 'config'>): string {
  const config = commentIdFor(check.config);
  return check.account ? `${config}#${check.account}` : config;
}

export function driftMarker(check: Pick<DriftCheck, 'account' | 'config'>): string {
  return `<!-- sitesync-drift: ${driftId(check)} -->`;
}

const MARKED = /^<!-- sitesync-drift: (.*?) -->$/;

/** The id that an issue's marker (its first line) carries; undefined when it has none. */
export function driftIdOf(body: string): string | undefined {
  const first = body.replace(/^\uFEFF/, '').trimStart().split(/\r?\n/, 1)[0] ?? '';
  return MARKED.exec(first.trim())?.[1]?.trim();
}

export function issueTitle(check: Pick<DriftCheck, 'account' | 'config'>): string {
  return `sitesync drift: ${check.account || commentIdFor(check.config)}`;
}

/** The line that links the run that found what the issue says; left out when two texts are compared. */
const RUN_LINE = /^_Found by .* of `sitesync ci drift`\._$/m;

function runLine(runUrl: string | undefined): string {
  return `_Found by ${runUrl ? `[this run](${runUrl})` : 'a run'} of \`sitesync ci drift\`._`;
}

/** Whether two issue texts say the same, whichever run found it: then the issue is left as it is. */
export function sameDrift(a: string, b: string): boolean {
  const strip = (text: string) => text.replace(/\r\n/g, '\n').replace(RUN_LINE, '').trim();
  return strip(a) === strip(b);
}

export interface IssueBodyOptions {
  /** The provider's limit on an issue's text. */
  limit: number;
  /** "GitHub", "GitLab": whose limit it is. */
  service: string;
  runUrl?: string;
}

/** Room kept for everything around the plan: the heading, the run line, the notes, the cut note. */
const AROUND_PLAN = 2_000;

/** The issue's text for a drifted or failed account. */
export function issueBody(check: DriftCheck, options: IssueBodyOptions): string {
  const state = stateOf(check);
  const who = check.account ? `account ${markdownCode(check.account)}` : 'the account';
  const file = markdownCode(commentIdFor(check.config));
  const changed = (check.plan?.changes.length ?? 0) > 0;
  const title =
    state === 'failed'
      ? `Drift check failed: ${who} of ${file}`
      : changed
        ? `Drift: ${who} differs from ${file}`
        : check.quiet?.quota && !check.quiet.silent.length
          ? `Drift: the month's pageviews of ${who} of ${file}`
          : !check.quiet?.silent.length && check.carried === undefined && (check.verify?.some((f) => f.verdict !== 'tracked') || check.carriedVerify !== undefined)
            ? `Drift: untracked websites in ${who} of ${file}`
            : `Drift: silent websites in ${who} of ${file}`;
  const head = [
    driftMarker(check),
    `## ${title}`,
    '',
    runLine(options.runUrl),
    '',
  ];
  if (state === 'failed') {
    head.push(
      'The check could not finish for this account, so whether it drifted is not known. This issue stays open until a check succeeds.',
      '',
      '> [!CAUTION]',
      `> ${failureLines(check.failure).map(markdownText).join('<br>')}`,
      '',
    );
  } else {
    head.push(
      changed
        ? 'The account no longer equals the file: someone changed it at the service, or an apply failed half way. To converge, apply the file (`sitesync apply`), or change the file to what the account holds in a pull request.'
        : check.quiet?.quota && !check.quiet.silent.length
          ? "The account equals the file, but it nears or has passed its plan's pageviews for the month (below): then every website of the account stops recording."
          : !check.quiet?.silent.length && check.carried === undefined && (check.verify?.some((f) => f.verdict !== 'tracked') || check.carriedVerify !== undefined)
            ? "The account equals the file, but pages of websites it manages record nothing into it (below): the tracking code is missing, sends elsewhere, or the page is served from another host."
            : 'The account equals the file, but websites it manages recorded no pageview lately (below): check that their pages still carry the tracking snippet.',
      'This issue is updated while the drift lasts, and closed by the first check that finds none.',
      '',
    );
  }
  const silent = [check.verify ? verifySection(check.verify) : (check.carriedVerify ?? ''), check.quiet ? silentSection(check.quiet) : (check.carried ?? '')]
    .filter((part) => part !== '')
    .join('\n');
  const cut: CutNote = { what: 'this issue', whereAll: "The run's log shows the whole plan (`sitesync ci drift` prints it)" };
  const room = Math.max(0, options.limit - head.join('\n').length - silent.length - AROUND_PLAN);
  const plan = check.plan
    ? renderMarkdown(check.plan, room, { section: check.account || undefined, unmarked: true, commentLimit: options.limit, cut })
    : '';
  const body = [...head, ...[plan, silent].filter((part) => part !== '')].join('\n');
  const where = options.runUrl ? `[this run](${options.runUrl})` : "the run's";
  return cutMarkdown(
    `${body.trimEnd()}\n`,
    options.limit,
    (n) =>
      `_…cut: this issue would be ${n.toLocaleString('en-US')} characters, over ${options.service}'s limit of ${options.limit.toLocaleString('en-US')}. The whole plan and every silent website are in ${where} log._`,
  );
}

/** The first line of the silent websites' section: it is the issue's last, and found again by it. */
const SILENT_MARK = /\n<!-- sitesync-silent: \d+ -->\n/;

/**
 * What `--quiet-days` found, under one marker (a run without it keeps the whole as it was): the
 * month's pageviews against the plan, and the websites with no pageview in the window.
 */
function silentSection(quiet: NonNullable<DriftCheck['quiet']>): string {
  if (!quiet.silent.length && !quiet.quota) return '';
  const n = quiet.silent.length;
  const silent = n
    ? [
        `### ${n === 1 ? '1 silent website' : `${n} silent websites`}: no pageview in the last ${quiet.days} days`,
        '',
        'Managed websites that record nothing: a tracking snippet removed by a rebuild of the site, a domain moved elsewhere?',
        '',
        '| website | last pageview |',
        '|---|---|',
        ...quiet.silent.map((s) => `| ${markdownCode(s.domain)} | ${s.lastDay ?? 'never'} |`),
        '',
      ]
    : [];
  return [`<!-- sitesync-silent: ${quiet.days} -->`, ...(quiet.quota ? quotaLines(quiet.quota) : []), ...silent].join('\n');
}

const VERIFY_MARK = '<!-- sitesync-verify -->';

/** What `--verify` found: the managed websites whose page does not record into the account. It goes before the silent section. */
function verifySection(findings: readonly Finding[]): string {
  const untracked = findings.filter((f) => f.verdict !== 'tracked');
  if (!untracked.length) return '';
  return [
    VERIFY_MARK,
    `### ${untracked.length === 1 ? "1 website's page does" : `${untracked.length} websites' pages do`} not carry this installation's tracking code`,
    '',
    '`sitesync verify` fetched `https://DOMAIN/` of each managed website:',
    '',
    '| website | tracking |',
    '|---|---|',
    ...untracked.map((f) => `| ${markdownCode(f.domain)} | ${findingWords(f, markdownCode)} |`),
    '',
  ].join('\n');
}

/** The untracked websites' section of an issue's text, as an earlier run with --verify wrote it; undefined when it has none. */
export function verifySectionOf(body: string): string | undefined {
  const text = body.replace(/\r\n/g, '\n');
  const start = text.indexOf(`\n${VERIFY_MARK}\n`);
  if (start < 0) return undefined;
  const end = SILENT_MARK.exec(text.slice(start + 1));
  const part = end ? text.slice(start + 1, start + 1 + end.index + 1) : text.slice(start + 1);
  return `${part.replace(/\n+_…cut: [^\n]*_\s*$/, '').trimEnd()}\n`;
}

/** The account's month against its plan, the figures and the day it runs out. */
export function quotaSummary(u: AccountUsage): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const figures = `${n(u.used)} of ${n(u.limit ?? 0)} pageviews (${percentOf(u.share ?? 0)}) since ${u.from}`;
  if (u.runsOut === 'reached') return `${figures}: the limit is reached, every website of the account has stopped recording until the month ends`;
  if (u.runsOut) return `${figures}: at this month's pace the limit is reached on ${u.runsOut}, then every website of the account stops recording until the month ends`;
  return `${figures}: at this month's pace not before the month ends`;
}

function quotaLines(u: AccountUsage): string[] {
  return [
    `### The month's pageviews: ${percentOf(u.share ?? 0)} of the plan's limit`,
    '',
    `${quotaSummary(u)} (${u.websites === 1 ? '1 website' : `${u.websites} websites`}, managed or not). Raise the plan's limit, or expect no data until the next month.`,
    '',
  ];
}

/** The silent websites' section of an issue's text, as an earlier run wrote it; undefined when it has none. */
export function silentSectionOf(body: string): string | undefined {
  const text = body.replace(/\r\n/g, '\n');
  const at = SILENT_MARK.exec(text);
  // Without the note of a text that was cut: the new text is cut anew.
  return at ? `${text.slice(at.index + 1).replace(/\n+_…cut: [^\n]*_\s*$/, '').trimEnd()}\n` : undefined;
}

/** The comment that closes the issue of an account found equal to the file again. */
export function closingComment(check: DriftCheck, runUrl: string | undefined): string {
  const who = check.account ? `Account ${markdownCode(check.account)}` : 'The account';
  const quiet =
    (check.quiet ? `, and each of its managed websites recorded a pageview in the last ${check.quiet.days} days` : '') +
    (check.verify ? `, ${check.quiet ? 'and ' : ''}each managed website's page carries its tracking code` : '');
  return `${who} equals ${markdownCode(commentIdFor(check.config))} again${quiet}, as ${runUrl ? `[this run](${runUrl})` : 'a run'} of \`sitesync ci drift\` found: closing.\n`;
}
