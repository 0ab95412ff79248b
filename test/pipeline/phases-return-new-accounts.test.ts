/**
 * The steps of a run take data and return new data (issue 43): the run's accounts, as opened,
 * are never written into, and what a step returns says what each account holds.
 */
import { PassThrough } from 'node:stream';
import pc from 'picocolors';
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/io/context.js';
import { gateAccounts, outcomesOf } from '../../src/run/apply.js';
import { openRun } from '../../src/run/open.js';
import { planRun } from '../../src/run/plan.js';
import { readAccounts } from '../../src/run/read.js';
import { SecretValues } from '../../src/secrets/values.js';
import { KEY, scenario, type Scenario } from '../helpers/scenario.js';

function contextIn(s: Scenario, env: Record<string, string> = {}): Context {
  return {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: { SITESYNC_BASE_URL: s.emu.url, SITESYNC_API_KEY: KEY, ...env },
    cwd: s.dir,
    out: pc.createColors(false),
    err: pc.createColors(false),
    verbose: false,
    signal: new AbortController().signal,
    secrets: new SecretValues(),
  };
}

describe('each step of a run returns new accounts', () => {
  let s: Scenario;
  afterEach(() => s?.close());

  it('read, plan and gate leave the opened accounts as they were and return what each found', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'old.example.com' }]);
    await s.write('version: 1\nwebsites:\n  - domain: new.example.com\n');
    const ctx = contextIn(s);
    const run = await openRun({}, ctx);
    try {
      const [opened] = run.accounts;
      const keys = Object.keys(opened!).sort();
      const read = await readAccounts(run, ctx);
      expect(read).toHaveLength(1);
      expect(read[0]!.failure).toBeUndefined();
      expect(read[0]!.live?.map((w) => w.domain)).toEqual(['old.example.com']);
      const planned = await planRun(run, { prune: true }, ctx);
      expect(planned[0]!.plan?.changes.map((c) => `${c.action} ${c.domain}`).sort()).toEqual(['create new.example.com', 'delete old.example.com']);
      const gated = gateAccounts(run, planned, false, ctx);
      expect(gated.ready).toHaveLength(1);
      expect(outcomesOf(run, gated.accounts)).toEqual([{ name: '' }]);
      // Nothing was filled in: the account as opened holds what it held, and the read one no plan.
      expect(run.accounts[0]).toBe(opened);
      expect(Object.keys(opened!).sort()).toEqual(keys);
      expect(opened).not.toHaveProperty('live');
      expect(read[0]).not.toHaveProperty('plan');
    } finally {
      await run.close();
    }
  });

  it('an account that cannot be read is returned failed, with why; the opened one holds no failure', async () => {
    s = await scenario();
    await s.write('version: 1\nwebsites:\n  - domain: new.example.com\n');
    const ctx = contextIn(s, { SITESYNC_API_KEY: 'sk-not-the-key-0123456789' });
    const run = await openRun({}, ctx);
    try {
      const read = await readAccounts(run, ctx);
      expect(read[0]!.failure?.message).toBeTruthy();
      expect(run.accounts[0]).not.toHaveProperty('failure');
    } finally {
      await run.close();
    }
  });
});
