import { afterEach, describe, expect, it } from 'vitest';
import { monthStart, monthUsage } from '../../src/model/quota.js';
import { runCli } from '../helpers/cli.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const today = new Date();
/** The month's days so far, each `per` pageviews (today included), keyed as the stats API writes days. */
function monthSoFar(total: number): Record<string, number> {
  const days = today.getUTCDate();
  const out: Record<string, number> = {};
  for (let d = 1; d <= days; d++) {
    const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), d)).toISOString().slice(0, 10);
    out[day] = Math.floor(total / days) + (d <= total % days ? 1 : 0);
  }
  return out;
}
/** A day of last month: not the month's. */
const lastMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0)).toISOString().slice(0, 10);

describe('sitesync account --usage', () => {
  it("an account at 85 % of its month: the figure, the share, and the day it would run out at this pace, every website counted (managed or not)", async () => {
    s = await scenario({ keys: [{ key: KEY, planPageviews: 10_000 }] });
    s.emu.seed(KEY, [
      { domain: 'a.example.com', traffic: { ...monthSoFar(5_000), [lastMonth]: 90_000 } },
      { domain: 'b.example.com', traffic: monthSoFar(3_500) },
      { domain: 'quiet.example.com' },
    ]);
    s.emu.resetStats();
    const r = await s.cli(['account', '--usage']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Month     8,500 of 10,000 pageviews (85.0 %) since ${monthStart(today)} (3 websites)\n`);
    const expected = monthUsage(8_500, 10_000, today).runsOut;
    if (expected) expect(r.stdout).toContain(`At this month's pace the limit is reached on ${expected}: then every website of the account stops recording until the month ends.`);
    else expect(r.stdout).toContain('not reached before the month ends');
    // The account, one page of the list, one stats request a website.
    expect(s.emu.stats.requests).toBe(1 + 1 + 3);
    const json = JSON.parse((await s.cli(['account', '--usage', '--format', 'json'])).stdout);
    expect(json.accounts[0].usage).toEqual({ from: monthStart(today), today: today.toISOString().slice(0, 10), pageviews: 8_500, limit: 10_000, percent: 85, runs_out: expected, websites: 3 });
  });

  it('an account over its limit: every website has stopped recording, said so', async () => {
    s = await scenario({ keys: [{ key: KEY, planPageviews: 1_000 }] });
    s.emu.seed(KEY, [{ domain: 'a.example.com', traffic: monthSoFar(1_200) }]);
    const r = await s.cli(['account', '--usage']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Month     1,200 of 1,000 pageviews (120.0 %)');
    expect(r.stdout).toContain('The limit is reached: every website of the account stops recording until the month ends');
    const json = JSON.parse((await s.cli(['account', '--usage', '--format', 'json'])).stdout);
    expect(json.accounts[0].usage).toMatchObject({ pageviews: 1_200, limit: 1_000, percent: 120, runs_out: 'reached' });
  });

  it('an unlimited plan: the figure alone', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'a.example.com', traffic: monthSoFar(700) }]);
    const r = await s.cli(['account', '--usage']);
    expect(r.stdout).toContain(`Month     700 pageviews since ${monthStart(today)} (1 website); the plan has no monthly limit\n`);
  });

  it('--help states the cost', async () => {
    const r = await runCli(['account', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('Costs one stats request per website of the account (managed or not)');
  });
});

describe('email: true on a plan without e-mail reports', () => {
  const yaml = ['version: 1', 'websites:', '  - domain: a.example.com', '    email: true', '  - domain: b.example.com', ''].join('\n');
  const said = 'email: true on 1 website (a.example.com), but the account\'s plan ("Unlimited") has no e-mail reports: none will be sent';

  it('the plan warns, in text, markdown and JSON', async () => {
    s = await scenario({ emailReports: false });
    await s.write(yaml);
    const text = await s.cli(['plan']);
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain(`! ${said}`);
    const md = await s.cli(['plan', '--format', 'markdown']);
    expect(md.stdout).toContain(`> - email: true on 1 website (a.example.com), but the account's plan ("Unlimited") has no e-mail reports: none will be sent`);
    const json = JSON.parse((await s.cli(['plan', '--format', 'json'])).stdout);
    const warnings = JSON.stringify(json);
    expect(warnings).toContain(said.replace(/"/g, '\\"'));
  });

  it('a plan with e-mail reports says nothing of it', async () => {
    s = await scenario();
    await s.write(yaml);
    const text = await s.cli(['plan']);
    expect(text.stdout).not.toContain('none will be sent');
  });
});
