import { describe, expect, it } from 'vitest';
import { historyShrunk, readingOfTraffic, shrunkMessage, shrunkSince, type HistoryReading } from '../../src/planner/history-grows.js';
import type { DeleteChange, Plan, Traffic } from '../../src/model/types.js';

const plan = (pageviews: number, more: Partial<HistoryReading> = {}): HistoryReading => ({ by: 'the plan', pageviews, ...more });
const archive = (pageviews: number, more: Partial<HistoryReading> = {}): HistoryReading => ({ by: 'the archive', pageviews, ...more });
const days = (entries: Record<string, number>, from?: string) => ({ ...(from === undefined ? {} : { from }), pageviews: new Map(Object.entries(entries)) });

describe('history only grows', () => {
  it('a later reading that found as much or more is no shrink', () => {
    expect(historyShrunk(plan(5000), archive(5000))).toEqual([]);
    expect(historyShrunk(plan(5000, { events: 3 }), archive(5200, { events: 4 }))).toEqual([]);
    expect(historyShrunk(plan(0, { events: 0 }), archive(0, { events: 0 }))).toEqual([]);
  });

  it('fewer lifetime pageviews is a shrink, with both figures', () => {
    expect(historyShrunk(plan(5000), archive(0))).toEqual([{ measure: 'pageviews', earlier: 5000, later: 0 }]);
  });

  it('fewer events, or visitors, is a shrink; a measure one reading lacks is not compared', () => {
    expect(historyShrunk(plan(0, { events: 52 }), archive(0, { events: 0 }))).toEqual([{ measure: 'events', earlier: 52, later: 0 }]);
    expect(historyShrunk(plan(10, { visitors: 8 }), archive(10, { visitors: 7 }))).toEqual([{ measure: 'visitors', earlier: 8, later: 7 }]);
    expect(historyShrunk(plan(10), archive(10, { events: 0, visitors: 0 }))).toEqual([]);
    expect(historyShrunk(plan(10, { events: 5 }), archive(10))).toEqual([]);
  });

  it('a day with fewer pageviews, or gone, is a shrink, even when the totals grew', () => {
    const earlier = plan(30, { days: days({ '2026-11-01': 10, '2026-11-02': 20 }) });
    const later = archive(40, { days: days({ '2026-11-02': 15, '2026-11-03': 25 }) });
    expect(historyShrunk(earlier, later)).toEqual([
      { measure: 'pageviews on 2026-11-01', earlier: 10, later: 0 },
      { measure: 'pageviews on 2026-11-02', earlier: 20, later: 15 },
    ]);
  });

  it('days before the later reading covers are not compared', () => {
    const earlier = plan(30, { days: days({ '2026-10-01': 10, '2026-11-02': 20 }) });
    const later = archive(30, { days: days({ '2026-11-02': 20 }, '2026-10-29') });
    expect(historyShrunk(earlier, later)).toEqual([]);
  });

  it('the message names the website and both figures of what shrank', () => {
    const message = shrunkMessage('gone.example', plan(5000), archive(0), historyShrunk(plan(5000), archive(0)));
    expect(message).toContain('gone.example');
    expect(message).toContain('the plan read 5,000 pageviews, the archive 0');
    expect(message).toContain('not deleted');
  });

  it('a plan\'s traffic is a reading of its lifetime pageviews, and its events where read', () => {
    const traffic: Traffic = { pageviews: 12, pageviews_30d: 4, pageviews_recent: 1, recent_days: 7, daily_30d: new Array(30).fill(0) };
    expect(readingOfTraffic(traffic, 'the plan')).toEqual({ by: 'the plan', pageviews: 12 });
    expect(readingOfTraffic({ ...traffic, pageviews: 0, events: 52 }, 'the saved plan')).toEqual({ by: 'the saved plan', pageviews: 0, events: 52 });
  });

  it('a plan made again marks the deletes whose traffic is less than the earlier plan recorded, and only those', () => {
    const traffic = (pageviews: number, events?: number): Traffic => ({ pageviews, pageviews_30d: 0, pageviews_recent: 0, recent_days: 30, daily_30d: [], ...(events === undefined ? {} : { events }) });
    const del = (id: number, domain: string, t: Traffic | null): DeleteChange => ({ action: 'delete', id, domain, fields: [], details: [], before: { domain }, after: null, seen: 'x', traffic: t });
    const plan = (changes: DeleteChange[]) => ({ changes }) as unknown as Plan;
    const saved = [del(1, 'a.example', traffic(5000)), del(2, 'b.example', traffic(0, 52)), del(3, 'c.example', traffic(10)), del(4, 'd.example', { pageviews: 'many' } as unknown as Traffic)];
    const held = shrunkSince(saved, plan([del(1, 'a.example', traffic(0, 0)), del(2, 'b.example', traffic(0, 52)), del(3, 'c.example', traffic(12)), del(4, 'd.example', traffic(0))]), 'the saved plan');
    expect(held.map((h) => h.domain)).toEqual(['a.example']);
    expect(held[0]!.reason).toContain('the saved plan read 5,000 pageviews, the service now 0');
  });
});
