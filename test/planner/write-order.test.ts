/**
 * Writes in the order the product counts them: the plan's website limit counts an account's
 * websites, and an installation stores a domain once, whichever account holds it. A delete that
 * frees a slot or a domain goes before the create that needs it, and a failure's advice is true.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCliHere } from '../helpers/cli.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

const SAME_AGAIN = 'applying again as is fails the same way';

describe('at the website limit', () => {
  let s: Scenario;
  afterEach(async () => {
    await s?.close();
  });

  function swapFile(): string {
    // s0..s2 stay, s3 and s4 go, n0 and n1 come: 5 live, 5 after, the limit 5.
    return ['version: 1', 'prune: true', 'websites:', ...['s0', 's1', 's2', 'n0', 'n1'].map((d) => `  - domain: ${d}.example.com`), ''].join('\n');
  }

  it('a swap of two at the limit sends the deletes before the creates, and applies in one run', async () => {
    s = await scenario({ keys: [{ key: KEY, websiteLimit: 5 }] });
    s.emu.seed(KEY, ['s0', 's1', 's2', 's3', 's4'].map((d) => ({ domain: `${d}.example.com` })));
    await s.write(swapFile());
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.stdout).toContain('Applied: 2 created, 0 updated, 2 deleted, 0 failed.');
    expect(r.code).toBe(0);
    const order = writes(s.emu).map((w) => w.split(' ')[0]);
    expect(order).toEqual(['DELETE', 'DELETE', 'POST', 'POST']);
    expect(s.emu.websites(KEY).map((w) => w.domain).sort()).toEqual(['n0', 'n1', 's0', 's1', 's2'].map((d) => `${d}.example.com`));
  });

  it('a saved plan of the swap applies the same way', async () => {
    s = await scenario({ keys: [{ key: KEY, websiteLimit: 5 }] });
    s.emu.seed(KEY, ['s0', 's1', 's2', 's3', 's4'].map((d) => ({ domain: `${d}.example.com` })));
    await s.write(swapFile());
    expect((await s.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    s.emu.resetStats();
    const r = await s.cli(['apply', 'plan.json']);
    expect(r.stdout).toContain('Applied: 2 created, 0 updated, 2 deleted, 0 failed.');
    expect(r.code).toBe(0);
    expect(writes(s.emu).map((w) => w.split(' ')[0])).toEqual(['DELETE', 'DELETE', 'POST', 'POST']);
  });

  it('a create refused over the limit after a delete that failed is not "fails the same way": applying again finishes', async () => {
    s = await scenario({ keys: [{ key: KEY, websiteLimit: 5 }] });
    s.emu.seed(KEY, ['s0', 's1', 's2', 's3', 's4'].map((d) => ({ domain: `${d}.example.com` })));
    await s.write(swapFile());
    const s3 = s.emu.websites(KEY).find((w) => w.domain === 's3.example.com')!.id;
    s.emu.faults.before = (req) => (req.method === 'DELETE' && req.path.endsWith(`/${s3}`) ? { status: 503, body: { message: 'Service Unavailable' } } : undefined);
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('You created too many websites.');
    expect(r.stdout).not.toContain(SAME_AGAIN);
    expect(r.stdout).toContain('Run sitesync apply again to finish');
    s.emu.faults.before = undefined;
    const again = await s.cli(['apply', '--auto-approve']);
    expect(again.stdout).toContain('Applied: 1 created, 0 updated, 1 deleted, 0 failed.');
    expect(again.code).toBe(0);
  });

  it('a plan that ends over the limit is still refused, nothing written', async () => {
    s = await scenario({ keys: [{ key: KEY, websiteLimit: 5 }] });
    s.emu.seed(KEY, ['s0', 's1', 's2', 's3', 's4'].map((d) => ({ domain: `${d}.example.com` })));
    await s.write(['version: 1', 'prune: true', 'websites:', ...['s0', 's1', 's2', 's3', 'n0', 'n1'].map((d) => `  - domain: ${d}.example.com`), ''].join('\n'));
    const r = await s.cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the account's plan allows 5 websites, and after this plan it would hold 6; nothing was written");
    expect(writes(s.emu)).toEqual([]);
  });
});

describe('a website moving between two accounts of one installation', () => {
  const ACME = 'sk-test-ACME-0123456789abcdef';
  const BETA = 'sk-test-BETA-0123456789abcdef';
  let emu: Emulator;
  let dir: string;
  afterEach(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function setUp(extra: string[] = []): Promise<void> {
    emu = await startEmulator({ keys: [ACME, BETA], profile: 'deployed' });
    emu.seed(ACME, [{ domain: 'keep.acme.example' }, { domain: 'shop.example' }]);
    emu.seed(BETA, [{ domain: 'beta.example' }]);
    dir = await mkdtemp(join(tmpdir(), 'sitesync-move-'));
    const file = [
      'version: 1',
      'accounts:',
      // beta first: its create would go first, as the file orders the accounts.
      '  beta:',
      `    base_url: ${emu.url}`,
      '    api_key_env: BETA_KEY',
      '    websites:',
      '      - domain: beta.example',
      '      - domain: shop.example',
      '  acme:',
      `    base_url: ${emu.url}`,
      '    api_key_env: ACME_KEY',
      '    prune: true',
      ...extra,
      '    websites:',
      '      - domain: keep.acme.example',
      '',
    ].join('\n');
    await writeFile(join(dir, 'sitesync.yaml'), file);
  }
  const cli = (args: string[]) => runCliHere(args, { cwd: dir, env: { ACME_KEY: ACME, BETA_KEY: BETA } });
  const MOVE = 'moves from acme to beta; its history stays with acme and is destroyed there';

  it('every format says the website moves', async () => {
    await setUp();
    const text = await cli(['plan']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(MOVE);
    const markdown = await cli(['plan', '--format', 'markdown']);
    expect(markdown.stdout).toContain(MOVE);
    const json = JSON.parse((await cli(['plan', '--format', 'json'])).stdout);
    const changes = json.changes;
    expect(changes).toContainEqual(expect.objectContaining({ action: 'delete', domain: 'shop.example', move: { from: 'acme', to: 'beta' } }));
    expect(changes).toContainEqual(expect.objectContaining({ action: 'create', domain: 'shop.example', move: { from: 'acme', to: 'beta' } }));
  });

  it('apply sends the delete in acme before the create in beta, and converges in one run', async () => {
    await setUp();
    emu.resetStats();
    const r = await cli(['apply', '--auto-approve']);
    expect(r.stdout).not.toContain('already been taken');
    expect(r.code).toBe(0);
    const sent = writes(emu);
    expect(sent.map((w) => w.split(' ')[0])).toEqual(['DELETE', 'POST']);
    expect(emu.websites(BETA).map((w) => w.domain).sort()).toEqual(['beta.example', 'shop.example']);
    expect(emu.websites(ACME).map((w) => w.domain)).toEqual(['keep.acme.example']);
    const again = await cli(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });

  it('a saved plan of the move applies the same way', async () => {
    await setUp();
    expect((await cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    emu.resetStats();
    const r = await cli(['apply', 'plan.json']);
    expect(r.code).toBe(0);
    expect(writes(emu).map((w) => w.split(' ')[0])).toEqual(['DELETE', 'POST']);
  });

  it('the move keeps the rules of a delete: recent traffic without retire: refuses acme, and beta\'s create is not sent', async () => {
    await setUp();
    emu.addTraffic(ACME, 'shop.example', { [new Date().toISOString().slice(0, 10)]: 10 });
    const r = await cli(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('shop.example');
    expect(emu.websites(ACME).map((w) => w.domain)).toContain('shop.example');
    expect(writes(emu).filter((w) => w.startsWith('POST'))).toEqual([]);
  });
});
