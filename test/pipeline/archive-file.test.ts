/**
 * The archive of a website's history, as pure code: assembled from the rows of the 17 names,
 * written deterministically (sorted keys and rows), checked when read back, named safely.
 */
import { describe, expect, it } from 'vitest';
import { archiveProblem } from '../../src/archive/check.js';
import { ARCHIVE_NAMES, ArchiveError, archiveBaseName, archiveCsv, archiveJson, assembleArchive, type ArchiveInput, type ArchiveName, type Row } from '../../src/archive/file.js';
import { ProgressLine } from '../../src/render/progress.js';

const READ_AT = new Date('2026-11-23T10:00:00.000Z');

function input(rows: Partial<Record<ArchiveName, Row[]>> = {}, overrides: Partial<ArchiveInput> = {}): ArchiveInput {
  const all = Object.fromEntries(ARCHIVE_NAMES.map((n) => [n, rows[n] ?? []])) as Record<ArchiveName, Row[]>;
  return {
    website: { id: 3, domain: 'gone.example', privacy: 2, email: 0, exclude_bots: 1, exclude_ips: ['203.0.113.7'], password: true },
    baseUrl: 'https://stats.example.com/',
    account: { id: 1, name: 'Acme', email: 'ops@acme.example' },
    configAccount: null,
    readAt: READ_AT,
    range: { from: '1970-01-01', to: '2026-11-24' },
    rows: all,
    requests: 17,
    sitesyncVersion: '0.1.0',
    ...overrides,
  };
}

const HISTORY = {
  pageviews: [
    { value: '2026-11-02', count: 30 },
    { value: '2025-01-02', count: 900 },
  ],
  visitors: [
    { value: '2025-01-02', count: 300 },
    { value: '2026-11-02', count: 10 },
  ],
  pageviews_hour: [
    { value: '10', count: 600 },
    { value: '09', count: 330 },
  ],
  visitors_hour: [{ value: '10', count: 310 }],
  page: [
    { value: '/pricing', count: 200 },
    { value: '/', count: 730 },
  ],
  country: [{ value: 'FR:France', count: 310 }],
};

describe('an archive, assembled', () => {
  it('totals from the daily rows, the 24 hours, every name sorted by value; the settings as read, the password only as whether one is set', () => {
    const a = assembleArchive(input(HISTORY));
    expect(a.totals).toEqual({ pageviews: 930, visitors: 310 });
    expect(a.checks).toEqual({ hourly_pageviews: 930, hourly_visitors: 310, agree: true });
    expect(a.notes).toEqual([]);
    expect(a.daily).toEqual([
      { date: '2025-01-02', pageviews: 900, visitors: 300 },
      { date: '2026-11-02', pageviews: 30, visitors: 10 },
    ]);
    expect(a.hourly).toHaveLength(24);
    expect(a.hourly[9]).toEqual({ hour: '09', pageviews: 330, visitors: 0 });
    expect(a.dimensions.page.map((r) => r.value)).toEqual(['/', '/pricing']);
    expect(Object.keys(a.dimensions)).toHaveLength(13);
    expect(a.dimensions.browser).toEqual([]);
    expect(a.website).toEqual({ id: 3, domain: 'gone.example', settings: { privacy: 2, email: 0, exclude_bots: 1, exclude_ips: ['203.0.113.7'], password_set: true } });
    expect(a.not_kept.recents).toContain('no API');
    expect(archiveProblem(archiveJson(a))).toBeUndefined();
  });

  it('hourly sums that differ from the daily ones are said in the archive (hits arrived while it was read)', () => {
    const a = assembleArchive(input({ ...HISTORY, pageviews_hour: [{ value: '10', count: 931 }] }));
    expect(a.checks.agree).toBe(false);
    expect(a.notes[0]).toContain('the hourly sums (931 pageviews, 310 visitors) differ from the daily ones (930, 310)');
  });

  it('the service address without credentials, query or fragment; the stored domain', () => {
    const a = assembleArchive(input({}, { baseUrl: 'https://user:secret@stats.example.com/analytics/?token=x#y', website: { id: 4, domain: 'xn--bcher-kva.example', stored: 'bücher.example' } }));
    expect(a.service.base_url).toBe('https://stats.example.com/analytics');
    expect(archiveJson(a)).not.toContain('secret');
    expect(a.website.domain).toBe('bücher.example');
  });

  it('a day that is no day, or an hour past 23, is the service\'s error in words', () => {
    expect(() => assembleArchive(input({ pageviews: [{ value: 'yesterday', count: 1 }] }))).toThrow(new ArchiveError('the service sent a pageviews row whose value is not a day: "yesterday"'));
    expect(() => assembleArchive(input({ visitors_hour: [{ value: '24', count: 1 }] }))).toThrow(/visitors_hour row whose value is not an hour: "24"/);
  });
});

describe('an archive, written', () => {
  it('deterministic: the same rows in any order give the same bytes; keys sorted; a row a line', () => {
    const shuffled = Object.fromEntries(Object.entries(HISTORY).map(([k, rows]) => [k, [...rows].reverse()]));
    const one = archiveJson(assembleArchive(input(HISTORY)));
    expect(archiveJson(assembleArchive(input(shuffled)))).toBe(one);
    const keys = Object.keys(JSON.parse(one));
    expect(keys).toEqual([...keys].sort());
    expect(one).toContain('\n    {"date":"2025-01-02","pageviews":900,"visitors":300},\n');
    expect(JSON.parse(one)).toEqual(JSON.parse(JSON.stringify(assembleArchive(input(HISTORY)))));
  });

  it('the daily series as CSV, oldest first', () => {
    expect(archiveCsv(assembleArchive(input(HISTORY)))).toBe('date,pageviews,visitors\n2025-01-02,900,300\n2026-11-02,30,10\n');
  });

  it('read back, what is not a whole archive is found', () => {
    const a = assembleArchive(input(HISTORY));
    expect(archiveProblem('{"format_version": 1')).toBe('it is not JSON');
    expect(archiveProblem(archiveJson({ ...a, totals: { pageviews: 1, visitors: 310 } }))).toBe('its totals are not the sums of its daily rows');
    expect(archiveProblem(archiveJson({ ...a, website: { ...a.website, settings: { password: 'hunter2' } } }))).toMatch(/does not match schemas\/archive\.schema\.json \(\/website\/settings must NOT have additional properties\)/);
    // Every dimension, and only those; the account as the service names it, or null; rows of counts and nothing else.
    const [day] = a.daily;
    const rows = [{ daily: [{ ...day, visitors: undefined }] }, { daily: [{ ...day, hits: 1 }] }, { totals: { ...a.totals, hits: 1 } }, { hourly: a.hourly.map((h) => ({ ...h, pageviews: -1 })) }];
    const { browser: _, ...withoutBrowser } = a.dimensions;
    for (const broken of [{ dimensions: withoutBrowser }, { dimensions: { ...a.dimensions, colour: [] } }, { account: { id: 1, name: 'Acme' } }, { account: 'Acme' }, ...rows]) {
      expect(archiveProblem(archiveJson({ ...a, ...broken } as typeof a)), JSON.stringify(broken)).toMatch(/does not match schemas\/archive\.schema\.json/);
    }
    expect(archiveProblem(archiveJson({ ...a, account: null }))).toBeUndefined();
  });

  it('a file name safe on any system: punycode, lower case, no slash, control or space, no leading dot, cut short', () => {
    expect(archiveBaseName('Bücher.example', 4, READ_AT)).toBe('xn--bcher-kva.example-4-2026-11-23');
    expect(archiveBaseName('www.shop.example.', 5, READ_AT)).toBe('shop.example-5-2026-11-23');
    expect(archiveBaseName('a b/../c\u001b[2J.example', 6, READ_AT)).toBe('a_b_.._c__2j.example-6-2026-11-23');
    expect(archiveBaseName('..', 7, READ_AT)).toBe('_-7-2026-11-23');
    expect(archiveBaseName('', 8, READ_AT)).toBe('website-8-2026-11-23');
    expect(archiveBaseName(`${'a'.repeat(300)}.example`, 9, READ_AT)).toBe(`${'a'.repeat(150)}-9-2026-11-23`);
  });
});

describe('progress of a long archive, on a terminal', () => {
  it('says pages read of the pages known: "gone.example: [===…] 40 of ~100 pages"', () => {
    let out = '';
    const line = new ProgressLine({ write: (t: string) => (out += t), isTTY: true, columns: 200 }, 'gone.example:', true, 'pages');
    line.update({ done: 40, total: 100, failed: 0 }, true);
    expect(out).toMatch(/gone\.example: \[=+ +\] 40 of ~100 pages · /);
    line.done();
  });
});
