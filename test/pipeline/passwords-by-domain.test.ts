/**
 * The executor against the in-process emulator: passwords reach the change they belong to by
 * the website's domain, so a copied plan sends them all the same, and a change whose password
 * does not resolve fails loudly without a request.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executePlan, NO_PASSWORD } from '../../src/run/execute.js';
import { passwordsFrom } from '../../src/planner/gate.js';
import { parseFile } from '../../src/config/parse.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { planChanges } from '../../src/planner/plan.js';
import { ServiceClient } from '../../src/service/client.js';

const KEY = 'test-key-0123456789abcdef';
let emu: Emulator;
let client: ServiceClient;

beforeEach(async () => {
  emu = await startEmulator({ keys: [KEY], profile: 'deployed' });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: KEY, baseDelayMs: 5, maxDelayMs: 20 });
});
afterEach(async () => {
  await client.close();
  await emu.close();
});

const YAML = `version: 1
websites:
  - domain: locked.example.com
    privacy: password
    password: \${PW}
  - domain: open.example.com
`;

async function planned() {
  emu.seed(KEY, [{ domain: 'locked.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
  const config = parseFile(YAML, '/repo/sitesync.yaml', { env: { PW: 'pw-VALUE-1' } }).configs[0]!;
  const live = await client.listWebsites();
  const plan = planChanges({ config, live, account: null, baseUrl: emu.url });
  return { config, plan };
}

describe('passwords reach their change by domain', () => {
  it('a copied plan (structuredClone) still sends its password', async () => {
    const { config, plan } = await planned();
    const copy = structuredClone(plan);
    const { results } = await executePlan(copy, client, { parallelism: 2, passwordFor: passwordsFrom(plan, config, 'sitesync.yaml') });
    expect(results.map((r) => [r.change.domain, r.status])).toEqual([
      ['open.example.com', 'done'],
      ['locked.example.com', 'done'],
    ]);
    expect(emu.websites(KEY).find((w) => w.domain === 'locked.example.com')?.password).toBe('pw-VALUE-1');
  });

  it('a change that sends a password none resolves for fails with that said, and nothing is sent for it', async () => {
    const { plan } = await planned();
    emu.resetStats();
    const { results } = await executePlan(plan, client, { parallelism: 2, passwordFor: () => undefined });
    const locked = results.find((r) => r.change.domain === 'locked.example.com');
    expect(locked).toMatchObject({ status: 'failed', error: NO_PASSWORD });
    expect(results.find((r) => r.change.domain === 'open.example.com')?.status).toBe('done');
    const writes = emu.stats.log.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual(['POST /api/v1/websites']);
    expect(emu.websites(KEY).find((w) => w.domain === 'locked.example.com')?.privacy).toBe(0);
  });
});
