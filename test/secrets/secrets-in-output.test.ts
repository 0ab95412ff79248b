/**
 * Secrets stay out of output by construction: sitesync's own output never holds one, so it is
 * never scrubbed or altered; what the service says is cleaned of every secret, whatever its
 * length, before it is shown.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan, loadConfig, plan, readLiveState } from '../../src/api.js';
import type { FaultRequest } from '../../src/emulator/index.js';
import { KEY, scenario, writes, type Scenario } from '../helpers/scenario.js';

let s: Scenario | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const CONFIG = `version: 1
websites:
  - domain: new1.example.com
    privacy: password
    password: \${PW}
  - domain: lab.example.com
    privacy: password
    password: \${PW}
  - domain: priv.example.com
    privacy: private
`;

/** Every output of plan (text, json, markdown) and apply (--verbose) for one password. */
async function outputsWith(password: string): Promise<{ outputs: string[]; sent: string | null }> {
  const sc = await scenario();
  s = sc;
  sc.emu.seed(KEY, [
    { domain: 's0.com', privacy: 0, email: 0, exclude_bots: 1 },
    { domain: 'lab.example.com', privacy: 0, email: 0, exclude_bots: 1 },
    { domain: 'priv.example.com', privacy: 0, email: 0, exclude_bots: 1 },
  ]);
  await sc.write(CONFIG);
  const env = { PW: password };
  const runs = [
    await sc.cli(['plan', '--prune'], { env }),
    await sc.cli(['plan', '--prune', '--format', 'json'], { env }),
    await sc.cli(['plan', '--prune', '--format', 'markdown'], { env }),
    await sc.cli(['--verbose', 'apply', '--prune', '--auto-approve', '--parallelism', '1'], { env }),
  ];
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
  JSON.parse(runs[1]!.stdout);
  const sent = sc.emu.websites(KEY).find((w) => w.domain === 'new1.example.com')?.password ?? null;
  const outputs = runs.flatMap((r) => [r.stdout, r.stderr]).map((t) => t.replaceAll(sc.emu.url, 'URL').replace(/\d+ms/g, 'Nms'));
  await sc.close();
  s = undefined;
  return { outputs, sent };
}

describe('passwords that are ordinary words or single characters', () => {
  it('plan (text, json, markdown, --prune) and apply --verbose print exactly what they print with any other password', async () => {
    const reference = await outputsWith('zz-Reference-Password-zz');
    for (const text of reference.outputs) expect(text).not.toContain('zz-Reference-Password-zz');
    expect(reference.outputs[0]).toContain('- delete s0.com (id 1)');
    expect(reference.outputs[0]).toContain('~ update priv.example.com (id 3)  (line 9)\n    privacy   public → private');
    expect(reference.outputs[6]).toContain('Applied: 1 created, 2 updated, 1 deleted, 0 failed.');
    for (const password of ['delete', 'private', '1', 'ab']) {
      const { outputs, sent } = await outputsWith(password);
      expect(sent).toBe(password);
      outputs.forEach((text, i) => expect(text, `password ${password}, output ${i}`).toBe(reference.outputs[i]));
    }
  }, 60_000);
});

/** A service that echoes the form it was sent in its 422, like a careless validation rule. */
function echoing(req: FaultRequest) {
  if (req.method !== 'POST' && req.method !== 'PATCH') return undefined;
  const password = req.body?.get('password') ?? '';
  const form = req.body?.toString() ?? '';
  return {
    status: 422,
    body: {
      message: `The given data was invalid (${form}).`,
      errors: { password: [`The password ${password} is too weak.`] },
    },
  };
}

describe('what the service says back', () => {
  it.each(['ab', '1', 'delete', 'a-longer-password-value'])(
    'a 422 that echoes the password %j shows the message without it',
    async (password) => {
      s = await scenario();
      s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
      await s.write(CONFIG);
      s.emu.faults.before = echoing;
      const r = await s.cli(['--verbose', 'apply', '--auto-approve', '--parallelism', '1'], { env: { PW: password } });
      expect(r.code).toBe(1);
      const shown = r.stdout + r.stderr;
      expect(shown).toContain('✗ create new1.example.com:');
      expect(shown).toContain('The password (redacted) is too weak.');
      expect(shown).not.toContain(`The password ${password} is too weak`);
      expect(shown).not.toContain(`password=${password}`);
    },
  );

  it('a 422 that echoes the form as sent (percent-encoded, or as JSON) shows no spelling of a password with spaces and symbols', async () => {
    const password = 'p@ss w&rd/é+"1';
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    await s.write(CONFIG);
    s.emu.faults.before = (req) =>
      req.method === 'POST'
        ? {
            status: 422,
            body: {
              message: 'The given data was invalid.',
              errors: { password: [`form ${req.body?.toString()}`, `input was ${JSON.stringify(Object.fromEntries(req.body ?? []))}`, `path /x/${encodeURIComponent(req.body?.get('password') ?? '')}`] },
            },
          }
        : undefined;
    const r = await s.cli(['--verbose', 'apply', '--auto-approve', '--parallelism', '1'], { env: { PW: password } });
    expect(r.code).toBe(1);
    const shown = r.stdout + r.stderr;
    expect(shown).toContain('form domain=new1.example.com&');
    expect(shown).toContain('password=(redacted)');
    expect(shown).toContain('"password":"(redacted)"');
    expect(shown).toContain('path /x/(redacted)');
    const spellings = [password, encodeURIComponent(password), new URLSearchParams({ p: password }).toString().slice(2), JSON.stringify(password).slice(1, -1)];
    for (const spelling of spellings) expect(shown, spelling).not.toContain(spelling);
  });

  it('applyPlan (the library) never returns an echoed password in its results', async () => {
    const password = 'lib-secret-pw';
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    const file = await s.write(CONFIG);
    const options = { baseUrl: s.emu.url, apiKey: KEY, env: { PW: password }, autoApprove: true };
    const config = await loadConfig(file, options);
    const live = await readLiveState(config, options);
    s.emu.faults.before = echoing;
    const result = await applyPlan(await plan(config, live, options), config, { ...options, parallelism: 1 });
    expect(result.failed).toBeGreaterThan(0);
    const failure = result.results.find((r) => r.status === 'failed')!;
    expect(failure.error).toContain('The password (redacted) is too weak.');
    expect(JSON.stringify(result)).not.toContain(password);
  });

  it('the API key said back by the service (a 403 naming it, a 422 echoing it) is never shown', async () => {
    s = await scenario();
    await s.write(CONFIG);
    s.emu.faults.before = (req) =>
      req.path.endsWith('/account') ? { status: 403, body: { message: `key ${req.key} has no access to ${KEY}` } } : undefined;
    const r = await s.cli(['--verbose', 'plan'], { env: { PW: 'x' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('key (redacted) has no access to (redacted)');
    expect(r.stdout + r.stderr).not.toContain(KEY);
    s.emu.faults.before = (req) => (req.method === 'POST' ? { status: 422, body: { message: `Bearer ${req.key}` } } : undefined);
    const applied = await s.cli(['--verbose', 'apply', '--auto-approve'], { env: { PW: 'x' } });
    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain('Bearer (redacted)');
    expect(applied.stdout + applied.stderr).not.toContain(KEY);
  });

  it('the key or a password the service holds in a website\'s settings or the account\'s name is in no plan (text, markdown, JSON, saved) or export', async () => {
    s = await scenario();
    const password = 'a-website-password-42';
    // A service that echoes what it was sent into what it holds.
    s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 0, email: 0, exclude_bots: 1, exclude_ips: `203.0.113.7\n${KEY}/32\nx${password}` }]);
    s.emu.faults.before = (req) =>
      req.path === '/api/v1/account' ? { status: 200, body: { data: { id: 1, name: `Acme ${KEY}`, email: `${password}@acme.example`, plan: { name: 'Pro', features: { websites: -1 } } } } } : undefined;
    await s.write(CONFIG);
    const env = { PW: password };
    const runs = [
      await s.cli(['plan'], { env }),
      await s.cli(['plan', '--format', 'markdown'], { env }),
      await s.cli(['plan', '--format', 'json', '--out', 'saved.json'], { env }),
      await s.cli(['export', '-o', '-'], { env }),
    ];
    expect(runs[0]!.stdout).toContain('    exclude_ips  - 203.0.113.7\n                 - (redacted)/32\n                 - x(redacted)\n');
    expect(runs[0]!.stdout).toContain('(account: Acme (redacted) <(redacted)@acme.example>)');
    const saved = await readFile(join(s.dir, 'saved.json'), 'utf8');
    for (const text of [...runs.flatMap((r) => [r.stdout, r.stderr]), saved]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(password);
    }
  });
});

describe('a website password that is the API key', () => {
  it("a password read from the key's variable is refused offline, at its line, never naming the key", async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    await s.write(`version: 1
websites:
  - domain: lab.example.com
    privacy: password
    password: \${SITESYNC_API_KEY}
  - domain: new1.example.com
`);
    s.emu.resetStats();
    for (const command of [['validate'], ['plan'], ['apply', '--auto-approve']]) {
      const r = await s.cli(command);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('sitesync.yaml:5:15: the password of lab.example.com is ${SITESYNC_API_KEY}, which holds the API key');
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }
    expect(s.emu.stats.requests).toBe(0);
  });

  it('a key\'s variable written in another case is refused the same (Windows reads environment names in any case)', async () => {
    s = await scenario();
    await s.write(`version: 1
websites:
  - domain: lab.example.com
    privacy: password
    password: \${github_token}
  - domain: two.example.com
    privacy: password
    password: \${Sitesync_Api_Key}
`);
    const r = await s.cli(['validate']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("sitesync.yaml:5:15: the password of lab.example.com is ${github_token}, which holds the CI's token");
    expect(r.stderr).toContain('sitesync.yaml:8:15: the password of two.example.com is ${Sitesync_Api_Key}, which holds the API key');
  });

  it('apply refuses, before any write, a password whose value is an API key in use, from any variable', async () => {
    s = await scenario();
    s.emu.seed(KEY, [{ domain: 'lab.example.com', privacy: 0, email: 0, exclude_bots: 1 }]);
    await s.write(`version: 1
websites:
  - domain: lab.example.com
    privacy: password
    password: \${LAB_PW}
  - domain: new1.example.com
`);
    s.emu.resetStats();
    const r = await s.cli(['apply', '--auto-approve'], { env: { LAB_PW: KEY } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('the password of lab.example.com is the API key');
    expect(r.stderr).toContain('nothing was written');
    expect(writes(s.emu)).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain(KEY);

    // The same from a saved plan: it names the password only by the website, so it saves.
    const saved = await s.cli(['plan', '--out', 'plan.json'], { env: { LAB_PW: KEY } });
    expect(saved.code, saved.stderr).toBe(0);
    const fromFile = await s.cli(['apply', 'plan.json'], { env: { LAB_PW: KEY } });
    expect(fromFile.code, fromFile.stderr).toBe(1);
    expect(fromFile.stderr).toContain('the password of lab.example.com is the API key');
    expect(writes(s.emu)).toEqual([]);
    expect(fromFile.stdout + fromFile.stderr).not.toContain(KEY);
  });
});
