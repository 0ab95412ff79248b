/**
 * sitesync against the deployed emulator, which answers as the product's own code does:
 * its refusals are shown in its own words, the retry hint tells the truth, a wrong base path
 * is named, and every field converges.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRequest } from '../../src/emulator/index.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

let s: Scenario;
afterEach(async () => {
  await s?.close();
});

const RUN_AGAIN = 'Run sitesync apply again to finish';

describe('the service’s own message is shown', () => {
  it('a create refused because the domain is taken shows "domain: The domain has already been taken." and that another account may hold it', async () => {
    s = await scenario({ keys: [KEY, 'another-account-key-0000'] });
    s.emu.seed('another-account-key-0000', [{ domain: 'partner.example.com' }]);
    await s.write('version: 1\nwebsites:\n  - domain: partner.example.com\n  - domain: mine.example.com\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const line = '✗ create partner.example.com: domain: The domain has already been taken. (another account of this installation may hold it)';
    // Its line as it ends, then again in the list of failures.
    expect(r.stdout.split(line).length - 1).toBe(2);
    expect(r.stdout).toContain(`Failed (1):\n  ${line}`);
    expect(r.stdout).not.toContain('the service refused the request');
  });

  it('every 422 shape is shown field by field: the product’s, Laravel’s message + errors, and a plain string', async () => {
    s = await scenario();
    const bodies: Record<string, unknown> = {
      'limit.example.com': { message: { domain: ['You created too many websites.'] }, status: 422 },
      'laravel.example.com': {
        message: 'The privacy must be between 0 and 2. (and 1 more error)',
        errors: { privacy: ['The privacy must be between 0 and 2.'], email: ['The email must be an integer.'] },
      },
      'plain.example.com': { message: 'Nope, not this one.' },
    };
    s.emu.faults.before = (req: FaultRequest) => {
      const domain = req.body?.get('domain');
      return req.method === 'POST' && domain && bodies[domain] ? { status: 422, body: bodies[domain] } : undefined;
    };
    await s.write(`version: 1\nwebsites:\n${Object.keys(bodies).map((d) => `  - domain: ${d}`).join('\n')}\n`);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ create limit.example.com: domain: You created too many websites.');
    expect(r.stdout).toContain(
      '✗ create laravel.example.com: privacy: The privacy must be between 0 and 2.; email: The email must be an integer.',
    );
    expect(r.stdout).toContain('✗ create plain.example.com: Nope, not this one.');
  });
});

describe('the retry hint tells the truth', () => {
  it('after a refusal (4xx) apply says what to change, not to run it again', async () => {
    s = await scenario({ keys: [KEY, 'another-account-key-0000'] });
    s.emu.seed('another-account-key-0000', [{ domain: 'taken.example.com' }]);
    await s.write('version: 1\nwebsites:\n  - domain: taken.example.com\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain(RUN_AGAIN);
    expect(r.stdout).toContain('The service refused the change marked above: applying again as is fails the same way.');
    expect(r.stdout).toContain('Change what its message names');
  });

  it('after a transient failure (5xx) among refusals, it says to run apply again', async () => {
    s = await scenario({ keys: [KEY, 'another-account-key-0000'] });
    s.emu.seed('another-account-key-0000', [{ domain: 'taken.example.com' }]);
    const [flaky] = s.emu.seed(KEY, [{ domain: 'flaky.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    s.emu.faults.before = (req) => (req.method === 'PATCH' && req.path.endsWith(`/${flaky!.id}`) ? { status: 503, body: { message: 'Service Unavailable' } } : undefined);
    await s.write('version: 1\nwebsites:\n  - domain: taken.example.com\n  - domain: flaky.example.com\n    email: true\n');
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Applied: 0 created, 0 updated, 0 deleted, 2 failed.');
    expect(r.stdout).toContain(RUN_AGAIN);
    expect(r.stdout).toContain('The service refused the change marked above');
  }, 30_000);
});

describe('a wrong base path', () => {
  it.each([
    ['/analytics', 'is the service really served under /analytics?'],
    ['/api', 'sitesync adds /api/v1 itself'],
  ])('--base-url …%s says the base URL looks wrong and shows what was requested', async (path, advice) => {
    s = await scenario();
    await s.write('version: 1\nwebsites: []\n');
    const r = await s.cli(['plan', '--base-url', `${s.emu.url}${path}`]);
    expect(r.code).toBe(1);
    const requested = `GET ${s.emu.url}${path}/api/v1/account answered 404 (no such route)`;
    expect(r.stderr).toContain(requested);
    expect(r.stderr).toContain('the base URL looks wrong');
    expect(r.stderr).toContain(advice);
    expect(r.stderr + r.stdout).not.toContain(KEY);
  });
});

describe('convergence on the deployed profile', () => {
  it('every field: apply, then plan shows nothing; change every field, apply, plan shows nothing', async () => {
    s = await scenario();
    const env = { SITE_PW: 'pw-value-123' };
    const site = (privacy: string, flag: boolean, ips: string) =>
      `version: 1\nwebsites:\n  - domain: every.example.com\n    privacy: ${privacy}\n${privacy === 'password' ? '    password: ${SITE_PW}\n' : ''}` +
      `    email: ${flag}\n    exclude_bots: ${!flag}\n    exclude_params: [utm_source, ref]\n    exclude_ips: [${ips}]\n    favorite: ${flag}\n`;
    await s.write(site('password', true, '10.0.0.1, 192.0.2.0/24'));
    const first = await s.cli(['apply', '--auto-approve'], { env });
    expect(first.code, first.stderr).toBe(0);
    const again = await s.cli(['plan', '--detailed-exitcode'], { env });
    expect(again.stdout).toMatch(/Plan: 0 to create, 0 to update, 0 to delete/);
    expect(again.code).toBe(0);

    await s.write(site('public', false, '10.0.0.2'));
    const second = await s.cli(['apply', '--auto-approve'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('1 updated');
    const last = await s.cli(['plan', '--detailed-exitcode'], { env });
    expect(last.stdout).toMatch(/Plan: 0 to create, 0 to update, 0 to delete/);
    expect(last.code).toBe(0);
    expect(s.emu.websites(KEY)[0]).toMatchObject({ privacy: 0, email: 0, exclude_bots: 1, exclude_ips: '10.0.0.2', favorite: false });
  });
});

describe('a throttle that asks for too long', () => {
  it('a 429 asking to wait a day (Retry-After, or X-RateLimit-Reset a day away) fails at once, in words, instead of holding the run for a day', async () => {
    const days: Record<string, string>[] = [{ 'Retry-After': '86400' }, { 'X-RateLimit-Reset': String(Math.floor(Date.now() / 1000) + 86_400) }];
    for (const headers of days) {
      s = await scenario();
      await s.write('version: 1\nwebsites:\n  - domain: a.example.com\n');
      s.emu.faults.before = (req) => (req.path === '/api/v1/websites' ? { status: 429, body: { message: 'Too Many Attempts.' }, headers } : undefined);
      const r = await s.cli(['plan']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/list websites \(page 1\): the service asks to wait (24 hours|1 day) before its next request \(its 429's Retry-After or X-RateLimit-Reset\), longer than sitesync waits \(10 minutes\): nothing more was sent; try again later/);
      await s.close();
    }
  });
});

describe('error bodies of any shape', () => {
  it('a 500 whose body nests 100,000 levels deep is "the service failed (500)", not a stack overflow', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: new.example.com\n');
    const deep = `{"message":${'['.repeat(100_000)}${']'.repeat(100_000)},"errors":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`;
    s.emu.faults.before = (req) => (req.method === 'POST' ? { status: 500, body: deep } : undefined);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ create new.example.com: the service failed (500)');
    expect(r.stdout + r.stderr).not.toContain('call stack');
  });
});
