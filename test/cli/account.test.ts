import { afterEach, describe, expect, it } from 'vitest';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

describe('sitesync account', () => {
  it('shows the account behind the key, its plan, and websites used of the limit', async () => {
    s = await scenario({ keys: [{ key: KEY, name: 'Jane Doe', email: 'jane@example.com', websiteLimit: 25 }] });
    s.emu.seed(KEY, [{ domain: 'a.example.com' }, { domain: 'b.example.com' }, { domain: 'c.example.com' }]);
    const text = await s.cli(['account']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^Account +Jane Doe <jane@example\.com>\nPlan +\S.*\nWebsites +3 of 25\nPageviews unlimited\nReports +e-mail reports\nService +http:\/\/127\.0\.0\.1:\d+\n$/,
    );
    const json = await s.cli(['account', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({
      accounts: [
        { name: null, base_url: s.emu.url, status: 'ok', id: 1, account_name: 'Jane Doe', email: 'jane@example.com', plan: 'Up to 25 websites', website_limit: 25, websites: 3, pageview_limit: -1, email_reports: true },
      ],
    });
  });

  it('an unlimited plan says so; one small request counts the websites', async () => {
    s = await scenario();
    s.emu.seed(KEY, Array.from({ length: 150 }, (_, i) => ({ domain: `s${i}.example.com` })));
    s.emu.resetStats();
    const r = await s.cli(['account']);
    expect(r.stdout).toContain('Websites  150 (unlimited)');
    expect(s.emu.stats.requests).toBe(2);
  });

  it("shows the plan's pageviews a month and whether it sends e-mail reports, as GET /account says them", async () => {
    s = await scenario({ keys: [{ key: KEY, planPageviews: 10_000, emailReports: false }] });
    const text = await s.cli(['account']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Pageviews 10,000 a month (then every website stops recording until the next month)\n');
    expect(text.stdout).toContain('Reports   no e-mail reports (email: true sends nothing)\n');
    const json = JSON.parse((await s.cli(['account', '--format', 'json'])).stdout);
    expect(json.accounts[0]).toMatchObject({ pageview_limit: 10_000, email_reports: false });
  });

  it('without a key it says where to put one', async () => {
    s = await scenario();
    const r = await s.cli(['account'], { env: { SITESYNC_API_KEY: '' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no API key: set SITESYNC_API_KEY, or pass --api-key-file FILE');
  });

  it('plain http:// to a remote host is refused before anything is sent', async () => {
    s = await scenario();
    const r = await s.cli(['account', '--base-url', 'http://analytics.example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refusing to send the API key over plain http:// to analytics.example.com');
  });
});
