import { describe, expect, it } from 'vitest';
import { commentIdOf, isPlanComment, planCommentBody } from '../../src/ci/comment-body.js';
import { nextLink } from '../../src/ci/http.js';
import { pickPlanComment, type ThreadComment } from '../../src/ci/plan-comment.js';
import { MARKER, markerFor } from '../../src/render/markdown.js';

const options = { limit: 65_536, service: 'GitHub' };

describe('the plan comment body', () => {
  it.each([
    [`${MARKER}\n### plan`, true],
    [`${MARKER}`, true],
    [`\n  ${MARKER} ### plan`, true],
    [`\uFEFF${MARKER}\nx`, true],
    [`### plan ${MARKER}`, true],
    [`### plan\n${MARKER}`, false],
    ['<!-- sitesync-plan-v2 -->', false],
    ['', false],
  ])('%j is the plan comment: %s', (body, expected) => {
    expect(isPlanComment(body)).toBe(expected);
  });

  it('keeps a body that starts with the marker as it is, and prepends the marker otherwise', () => {
    expect(planCommentBody(`${MARKER}\nx\n`, options)).toBe(`${MARKER}\nx\n`);
    expect(planCommentBody('x\n', options)).toBe(`${MARKER}\nx\n`);
  });

  it("cuts a body over the provider's limit at a line, closes open <details>, and says so", () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `| row ${i} | ${'x'.repeat(20)} |`).join('\n');
    const body = planCommentBody(`${MARKER}\n<details><summary>Details</summary>\n\n${rows}\n</details>\n`, options);
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body.startsWith(MARKER)).toBe(true);
    expect(body).toMatch(/\| row \d+ \| x{20} \|\n\n<\/details>\n\n_…cut: the plan is [\d,]+ characters, over GitHub's limit of 65,536 for a comment\./);
  });

  it('a cut comment points reviewers to the full plan in the run, not to running sitesync themselves', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `| row ${i} | ${'x'.repeat(20)} |`).join('\n');
    const body = planCommentBody(`${MARKER}\n${rows}\n`, { ...options, runUrl: 'https://github.com/o/r/actions/runs/9' });
    expect(body).toContain('The full plan is in [this run](https://github.com/o/r/actions/runs/9): its job summary and the plan artifact.');
    expect(body).not.toContain('Run `sitesync plan`');
  });

  it('an empty plan file becomes a note that the plan failed', () => {
    expect(planCommentBody('  \n', { ...options, runUrl: 'https://ci/run/1' })).toBe(
      `${MARKER}\n### sitesync plan failed\n\nThis run produced no plan, so the previous one no longer applies: see the [job log](https://ci/run/1).\n`,
    );
  });
});

describe('finding the plan comment', () => {
  const c = (id: number, body: string, author: string): ThreadComment => ({ id, body, author, url: '' });
  it('takes the token’s own marked comment only: never a person’s (who could edit the plan in it) nor another bot’s', () => {
    const all = [c(1, 'hi', 'me'), c(2, `${MARKER}\n`, 'alice'), c(3, `${MARKER}\n`, 'other-app[bot]'), c(4, `${MARKER}\n`, 'me')];
    expect(pickPlanComment(all, 'me')?.id).toBe(4);
    expect(pickPlanComment(all.slice(0, 3), 'me')).toBeUndefined();
    expect(pickPlanComment([c(1, 'hi', 'me')], 'me')).toBeUndefined();
  });

  it('when who the token is cannot be known, no marked comment is taken: a new one is posted', () => {
    expect(pickPlanComment([c(3, `${MARKER}\n`, 'github-actions[bot]'), c(4, `${MARKER}\n`, 'me')], undefined)).toBeUndefined();
  });
});

describe('Link headers', () => {
  it.each([
    ['<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"', 'https://api.github.com/x?page=2'],
    ['<https://a/x?page=1>; rel="prev", <https://a/x?page=3>; rel=next', 'https://a/x?page=3'],
    ['<https://a/x?page=3>; rel="last next"', 'https://a/x?page=3'],
    ['<https://a/x?page=1>; rel="first", <https://a/x?page=1>; rel="prev"', undefined],
    [undefined, undefined],
  ])('%s → %s', (header, next) => {
    expect(nextLink(header)).toBe(next);
  });
});

describe("one comment per config: the marker's id", () => {
  it('the default config keeps the plain marker; another config carries its path, matched exactly', () => {
    expect(markerFor('sitesync.yaml')).toBe(MARKER);
    expect(markerFor('./sites/eu.yaml')).toBe('<!-- sitesync-plan: sites/eu.yaml -->');
    expect(markerFor('x --> <script>')).toBe('<!-- sitesync-plan: x  script -->');
    expect(commentIdOf(`${MARKER}\nplan`)).toBe('sitesync.yaml');
    expect(commentIdOf('<!-- sitesync-plan: sites/eu.yaml -->\nplan')).toBe('sites/eu.yaml');
    expect(isPlanComment(`${MARKER}\nplan`)).toBe(true);
    expect(isPlanComment(`${MARKER}\nplan`, 'sites/eu.yaml')).toBe(false);
    expect(isPlanComment('<!-- sitesync-plan: sites/eu.yaml -->\nplan', 'sites/eu.yaml')).toBe(true);
    expect(isPlanComment('<!-- sitesync-plan: sites/eu.yaml -->\nplan')).toBe(false);
  });

  it("anyone's comment of a million characters (GitLab's limit), a marker's start repeated without its end, is read in one pass: no marker", { timeout: 30_000 }, () => {
    const opened = '<!-- sitesync-plan: '.repeat(50_000);
    expect(commentIdOf(`${opened}\nplan`)).toBeUndefined();
    expect(commentIdOf(`${opened}\r -->\nplan`)).toBeUndefined();
    expect(commentIdOf(`${opened.slice(0, 40)}x -->`)).toBe('<!-- sitesync-plan: x');
  });

  it('the body carries the id asked for, replacing the one the text had', () => {
    const options = { limit: 65_000, service: 'GitHub' };
    expect(planCommentBody(`${MARKER}\nx\n`, { ...options, id: 'sites/eu.yaml' })).toBe('<!-- sitesync-plan: sites/eu.yaml -->\nx\n');
    expect(planCommentBody('<!-- sitesync-plan: sites/eu.yaml -->\nx\n', options)).toBe('<!-- sitesync-plan: sites/eu.yaml -->\nx\n');
    expect(planCommentBody('', { ...options, id: 'sites/eu.yaml' })).toMatch(/^<!-- sitesync-plan: sites\/eu\.yaml -->\n### sitesync plan failed/);
  });
});
