/**
 * `ci drift --quiet-days`: one walk answers both questions of a website, its last day with a
 * pageview and, only where the plan has a monthly limit, the month's pageviews.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ServiceClient } from '../../src/service/client.js';

const KEY = 'test-key-0123456789abcdef';
const ago = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
let emu: Emulator;
let client: ServiceClient;

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY] });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: KEY, retry: { baseDelayMs: 5, maxDelayMs: 20 } });
});

afterEach(async () => {
  await client.close();
  await emu.close();
});

describe('quiet days: the last day, and the month only when asked', () => {
  const busy = () => {
    const traffic: Record<string, number> = {};
    for (let n = 300; n >= 3; n--) traffic[ago(n)] = 1;
    return emu.seed(KEY, [{ domain: 'busy.example.com', traffic }])[0]!;
  };

  it('without a month to sum (an unlimited plan): the last day, from one request, and nothing more is read', async () => {
    const site = busy();
    expect(await client.quietDays(site.id, 'busy.example.com', ago(6))).toEqual({ lastDay: ago(3), month: 0, extra: 0 });
    expect(client.stats.byKind.statistics).toBe(1);
  });

  it('with a month to sum: the same last day, and the month from the same first page', async () => {
    const site = busy();
    const month = ago(10);
    expect(await client.quietDays(site.id, 'busy.example.com', ago(6), month)).toEqual({ lastDay: ago(3), month: 8, extra: 0 });
    expect(client.stats.byKind.statistics).toBe(1);
  });
});
