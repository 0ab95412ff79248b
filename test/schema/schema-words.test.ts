/** How schema/errors.ts words what departs from a schema: the rules its cases rely on, and their words. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaIssues } from '../../src/schema/errors.js';
import { packageRoot } from '../../src/io/paths.js';

const messages = (name: 'config' | 'plan', data: unknown) => schemaIssues(name, data, name === 'config' ? 'yaml' : 'json').map((i) => i.message);

describe('the words of a schema error', () => {
  it('every minLength of the config schema is 1: the worder says "must not be empty"', () => {
    const lengths = [...readFileSync(join(packageRoot(), 'schemas', 'sitesync.schema.json'), 'utf8').matchAll(/"minLength": (\d+)/g)].map((m) => m[1]);
    expect(lengths.length).toBeGreaterThan(0);
    expect(new Set(lengths)).toEqual(new Set(['1']));
    expect(messages('config', { version: 1, archive: '' })).toEqual(['archive must not be empty']);
  });

  it('a constant, a bound either side, an API key at the top and in an account', () => {
    expect(messages('config', { version: '1' })).toEqual(['version must be 1, not "1" (drop the quotes: 1)']);
    expect(messages('config', { version: 1, safety: { min_existing: -1, active_days: 4000 } })).toEqual([
      'safety.min_existing must be at least 0, not -1',
      'safety.active_days must be at most 3660, not 4000',
    ]);
    expect(messages('config', { version: 1, api: { token: 'k' } })).toEqual([
      '"token": the API key never goes in the file; put it in SITESYNC_API_KEY or in a file named by --api-key-file, and remove it from this file (and from git history)',
    ]);
    expect(messages('config', { version: 1, accounts: { acme: { base_url: 'https://a.example', api_key_env: 'K', api_key: 'k' } } })).toEqual([
      '"api_key": the API key never goes in the file; write the NAME of the environment variable that holds it as api_key_env, and remove the key from this file (and from git history)',
    ]);
  });

  it("a saved plan's account, before or after that is neither null nor whole is said once, without the other branch's words", () => {
    const saved = { created_at: '', sitesync_version: '0.1.0', config_file: 'sitesync.yaml', config_sha256: '0'.repeat(64), targets: [], excludes: [], prune: false, resend_write_only: false };
    const change = { account: null, action: 'update', domain: 'a.example', id: 5, before: {}, after: { domain: 'a.example', privacy: 'x' }, fields: ['privacy'], details: [], seen: 's' };
    const plan = { format_version: 2, changes: [change], accounts: [{ name: null, base_url: 'https://a.example', account: { id: 1, name: 'Acme' } }], saved };
    expect(messages('plan', plan)).toEqual([
      'changes[0].before: "domain" is missing',
      'changes[0].after.privacy: must be 0 or 1 or 2, not "x"',
      'accounts[0].account: "email" is missing',
    ]);
    expect(messages('plan', { ...plan, changes: [], accounts: [{ ...plan.accounts[0], account: 'Acme' }] })).toEqual(['accounts[0].account: must be an object or null, not "Acme"']);
  });
});
