/** What a drift issue says and how it is found again, and which issue is kept: pure, no network. */
import { describe, expect, it } from 'vitest';
import { driftId, driftIdOf, driftMarker, issueBody, issueTitle, sameDrift, silentSectionOf, stateOf, type DriftCheck } from '../../src/ci/drift-body.js';
import { keepDriftIssues } from '../../src/ci/drift.js';
import type { Issue, IssueTracker } from '../../src/ci/issues.js';
import type { Plan } from '../../src/model/types.js';

function plan(creates: string[]): Plan {
  return {
    base_url: 'https://analytics.example.com',
    account: { id: 1, name: 'Acme', email: 'ops@acme.example' },
    summary: { create: creates.length, update: 0, delete: 0, unchanged: 0, unmanaged: 0 },
    changes: creates.map((domain) => ({ action: 'create', domain, id: null, before: null, after: { privacy: 0 }, fields: ['privacy'], details: [{ field: 'privacy', before: null, after: 0 }] })) as unknown as Plan['changes'],
    warnings: [],
    unverified: [],
    safety: { managed: 0, deletes: 0, percent: 0, max_delete_percent: 30, min_existing: 10, exceeded: false, empty_file: false },
    limit: { limit: null, live: 0, after: creates.length, exceeded: false },
  };
}

const options = { limit: 65_536, service: 'GitHub', runUrl: 'https://github.com/o/r/actions/runs/1' };

describe('the drift issue', () => {
  it('is marked CONFIG#ACCOUNT (CONFIG alone for a single-account file), found again by its first line only', () => {
    expect(driftMarker({ config: 'sitesync.yaml', account: 'acme' })).toBe('<!-- sitesync-drift: sitesync.yaml#acme -->');
    expect(driftMarker({ config: './sites/eu.yaml', account: '' })).toBe('<!-- sitesync-drift: sites/eu.yaml -->');
    // Nothing of a config path can end the comment or the line.
    expect(driftId({ config: 'a-->b\n<c>.yaml', account: 'x' })).toBe('abc.yaml#x');
    expect(driftIdOf('<!-- sitesync-drift: sitesync.yaml#acme -->\n## Drift')).toBe('sitesync.yaml#acme');
    expect(driftIdOf('\uFEFF  <!-- sitesync-drift: sitesync.yaml -->\r\ntext')).toBe('sitesync.yaml');
    expect(driftIdOf('I saw this: <!-- sitesync-drift: sitesync.yaml -->')).toBeUndefined();
    expect(driftIdOf('text\n<!-- sitesync-drift: sitesync.yaml -->')).toBeUndefined();
    expect(issueTitle({ config: 'sitesync.yaml', account: 'acme' })).toBe('sitesync drift: acme');
    expect(issueTitle({ config: 'sitesync.yaml', account: '' })).toBe('sitesync drift: sitesync.yaml');
  });

  it('drift is a change or a silent website; a failure wins over both', () => {
    const check = (p: Plan | undefined, silent = 0, failed = false): DriftCheck => ({
      account: 'a',
      config: 'sitesync.yaml',
      plan: p,
      failure: failed ? { message: 'no', details: [] } : undefined,
      quiet: { days: 7, silent: Array.from({ length: silent }, (_, i) => ({ domain: `s${i}.example`, lastDay: null })) },
    });
    expect(stateOf(check(plan([])))).toBe('clean');
    expect(stateOf(check(plan(['a.example'])))).toBe('drift');
    expect(stateOf(check(plan([]), 1))).toBe('drift');
    expect(stateOf(check(plan(['a.example']), 1, true))).toBe('failed');
    expect(stateOf(check(undefined))).toBe('failed');
  });

  it('the same drift found by another run is the same text; another drift is not', () => {
    const check: DriftCheck = { account: 'acme', config: 'sitesync.yaml', plan: plan(['a.example']) };
    const one = issueBody(check, options);
    expect(sameDrift(one, issueBody(check, { ...options, runUrl: 'https://github.com/o/r/actions/runs/2' }))).toBe(true);
    expect(sameDrift(one, issueBody(check, { ...options, runUrl: undefined }))).toBe(true);
    expect(sameDrift(one, issueBody({ ...check, plan: plan(['b.example']) }, options))).toBe(false);
    expect(sameDrift(one, issueBody({ ...check, quiet: { days: 7, silent: [{ domain: 'a.example', lastDay: '2026-01-02' }] } }, options))).toBe(false);
  });

  it('a silent website is shown as data: a hostile domain neither links, mentions nor breaks the table', () => {
    const body = issueBody(
      { account: 'acme', config: 'sitesync.yaml', plan: plan([]), quiet: { days: 14, silent: [{ domain: 'x|@team <b>', lastDay: null }] } },
      options,
    );
    expect(body).toContain('| <code>x\\|@&#8203;team &lt;b&gt;</code> | never |');
  });

  it('a failure is quoted as data, with its details', () => {
    const body = issueBody({ account: '', config: 'sitesync.yaml', failure: { message: 'the service said *no* <script>', details: ['try @ops'] } }, options);
    expect(body).toContain('## Drift check failed: the account of `sitesync.yaml`');
    expect(body).toContain('> [!CAUTION]\n> the service said \\*no\\* &lt;script&gt;<br>try @&#8203;ops');
  });

  it('stays within the limit, the whole text cut honestly when the silent list alone is too long', () => {
    const silent = Array.from({ length: 5000 }, (_, i) => ({ domain: `silent-${i}.example.com`, lastDay: '2026-01-01' }));
    const body = issueBody({ account: 'acme', config: 'sitesync.yaml', plan: plan([]), quiet: { days: 7, silent } }, { ...options, limit: 20_000 });
    expect(body.length).toBeLessThanOrEqual(20_000);
    expect(body.split('\n')[0]).toBe('<!-- sitesync-drift: sitesync.yaml#acme -->');
    expect(body).toContain("over GitHub's limit of 20,000. The whole plan and every silent website are in [this run](https://github.com/o/r/actions/runs/1) log._");
  });
});

/** An in-memory tracker that records what it was asked to do. */
/** `self`: who the token is, as the provider says ('bot' writes the issues here); undefined when it cannot say. */
function tracker(open: Issue[], self: string | undefined = 'bot'): IssueTracker & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    service: 'Test',
    maxBody: 65_536,
    runUrl: 'https://ci.example/run/1',
    whoAmI: async () => {
      calls.push('whoAmI');
      return self;
    },
    listOpen: async () => {
      calls.push('list');
      return open;
    },
    create: async (title, body, label) => {
      calls.push(`create ${title}`);
      return { number: 99, title, body, author: 'bot', labels: [label], url: 'u/99' };
    },
    edit: async (number, body) => {
      calls.push(`edit ${number}`);
      return { ...open.find((i) => i.number === number)!, body };
    },
    comment: async (number) => void calls.push(`comment ${number}`),
    close: async (number) => void calls.push(`close ${number}`),
  };
}

const issue = (number: number, body: string, author: string): Issue => ({ number, title: 't', body, author, labels: ['sitesync-drift'], url: `u/${number}` });

describe('silent websites found by a run with --quiet-days', () => {
  const quiet = { days: 7, silent: [{ domain: 'moved.example', lastDay: '2026-01-02' }] };
  const found: DriftCheck = { account: 'acme', config: 'sitesync.yaml', plan: plan([]), quiet };

  it('are the last section of the text, found again as written', () => {
    const body = issueBody(found, options);
    const section = silentSectionOf(body)!;
    expect(section.split('\n').slice(0, 2)).toEqual(['<!-- sitesync-silent: 7 -->', '### 1 silent website: no pageview in the last 7 days']);
    expect(body.endsWith(section)).toBe(true);
    expect(silentSectionOf(issueBody({ ...found, quiet: undefined }, options))).toBeUndefined();
  });

  it('are kept by a run without --quiet-days, which writes nothing; a run with it that finds none closes the issue', async () => {
    const own = issue(4, issueBody(found, options), 'bot');
    const daily = tracker([own]);
    const [kept] = await keepDriftIssues(daily, [{ ...found, quiet: undefined }], (e) => ({ message: String(e), details: [] }));
    expect(kept).toMatchObject({ action: 'unchanged' });
    expect(stateOf(kept!.check)).toBe('drift');
    expect(daily.calls).toEqual(['list', 'whoAmI']);
    // A plan drift on a later day: the new text keeps them.
    const drifted = tracker([own]);
    const [edited] = await keepDriftIssues(drifted, [{ ...found, quiet: undefined, plan: plan(['new.example']) }], (e) => ({ message: String(e), details: [] }));
    expect(drifted.calls).toEqual(['list', 'whoAmI', 'edit 4']);
    expect(edited).toMatchObject({ action: 'updated', issue: { body: expect.stringContaining('`new.example`') } });
    expect(edited!.action === 'updated' && edited!.issue.body.endsWith(silentSectionOf(own.body)!)).toBe(true);
    const weekly = tracker([own]);
    expect((await keepDriftIssues(weekly, [{ ...found, quiet: { days: 7, silent: [] } }], (e) => ({ message: String(e), details: [] })))[0]).toMatchObject({ action: 'closed' });
  });
});

describe('which issue is kept', () => {
  const clean: DriftCheck = { account: 'acme', config: 'sitesync.yaml', plan: plan([]) };
  const drifted: DriftCheck = { ...clean, plan: plan(['a.example']) };
  const describeError = (e: unknown) => ({ message: String(e), details: [] });

  it("the token's own issue only: never a person's nor another bot's, and none when who the token is cannot be known", async () => {
    const marker = '<!-- sitesync-drift: sitesync.yaml#acme -->\nold';
    const t = tracker([issue(1, marker, 'octocat'), issue(2, marker, 'renovate[bot]'), issue(3, marker, 'project_42_bot')], 'project_42_bot');
    const [outcome] = await keepDriftIssues(t, [drifted], describeError);
    expect(outcome).toMatchObject({ action: 'updated', issue: { number: 3 } });
    const byActions = tracker([issue(1, marker, 'octocat'), issue(2, marker, 'renovate[bot]'), issue(3, marker, 'github-actions[bot]')], 'github-actions[bot]');
    expect((await keepDriftIssues(byActions, [clean], describeError))[0]).toMatchObject({ action: 'closed', issue: { number: 3 } });
    expect(byActions.calls).toEqual(['list', 'whoAmI', 'comment 3', 'close 3']);
    const otherBot = tracker([issue(1, marker, 'octocat'), issue(2, marker, 'renovate[bot]')], 'github-actions[bot]');
    expect((await keepDriftIssues(otherBot, [clean], describeError))[0]).toMatchObject({ action: 'none' });
    expect(otherBot.calls).toEqual(['list', 'whoAmI']);
    const unknown = tracker([issue(2, marker, 'github-actions[bot]')], undefined);
    expect((await keepDriftIssues(unknown, [drifted], describeError))[0]).toMatchObject({ action: 'opened' });
    expect(unknown.calls).toEqual(['list', 'whoAmI', 'create sitesync drift: acme']);
  });

  it('asks who the token is only when an issue carries the marker, and once', async () => {
    const t = tracker([issue(5, '<!-- sitesync-drift: sitesync.yaml#beta -->', 'bot')]);
    await keepDriftIssues(t, [drifted, { ...drifted, account: 'beta' }, { ...drifted, account: 'gamma' }], describeError);
    expect(t.calls).toEqual(['list', 'create sitesync drift: acme', 'whoAmI', 'edit 5', 'create sitesync drift: gamma']);
  });

  it("one account's failure to write does not stop the others", async () => {
    const t = tracker([]);
    t.create = async (title) => {
      if (title.endsWith('acme')) throw new Error('refused');
      return issue(7, '', 'bot');
    };
    const outcomes = await keepDriftIssues(t, [drifted, { ...drifted, account: 'beta' }], describeError);
    expect(outcomes.map((o) => o.action)).toEqual(['failed', 'opened']);
  });
});
