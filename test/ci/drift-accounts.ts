/** The config files that the drift tests run on, what they look at, and the count of API calls per run. */
import { expect } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import type { Recorded } from './fake-github.js';

/** acme's key (also the single-account file's), and beta's. */
export const KEY = 'sk-test-DRIFT-ACME-0123456789';
export const BETA_KEY = 'sk-test-DRIFT-BETA-0123456789';

/** A single-account file listing these websites. */
export function singleAccount(domains: string[]): string {
  return `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`;
}

/** The writes among the requests after the first `n`: `METHOD /path`. */
export function writesSince(requests: Recorded[], n: number): string[] {
  return requests.slice(n).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${new URL(r.url, 'http://x').pathname}`);
}

/** acme (key in ACME_KEY) and beta (BETA_KEY), both on `url`, listing these websites. */
export function twoAccounts(url: string, acme: string[], beta: string[]): string {
  const account = (name: string, variable: string, domains: string[]) => [
    `  ${name}:`,
    `    base_url: ${url}`,
    `    api_key_env: ${variable}`,
    '    websites:',
    ...domains.map((d) => `      - domain: ${d}`),
  ];
  return ['version: 1', 'accounts:', ...account('acme', 'ACME_KEY', acme), ...account('beta', 'BETA_KEY', beta), ''].join('\n');
}

export interface CallCounting {
  /** A fresh emulator that accepts these keys (each round starts on empty accounts). */
  restart(keys: string[]): Promise<Emulator>;
  /** Forget the provider's issues. */
  clearIssues(): void;
  writeConfig(text: string): Promise<void>;
  /** How many requests the provider has answered so far. */
  requests(): number;
  drift(env: Record<string, string>): Promise<CliResult>;
}

/**
 * The provider's API calls of three runs, for 1 and for 30 drifted accounts: the drift found
 * (issues opened), the same drift again, the accounts converged (issues closed).
 */
export async function callsPerRun(c: CallCounting): Promise<Record<number, number[]>> {
  const keys = Array.from({ length: 30 }, (_, i) => `sk-test-DRIFT-${String(i).padStart(2, '0')}-0123456789`);
  const names = keys.map((_, i) => `client${String(i).padStart(2, '0')}`);
  const env = Object.fromEntries(keys.map((k, i) => [`KEY_${i}`, k]));
  const figures: Record<number, number[]> = {};
  for (const n of [1, 30]) {
    const emu = await c.restart(keys);
    c.clearIssues();
    const accounts = names.slice(0, n).flatMap((name, i) => [`  ${name}:`, `    base_url: ${emu.url}`, `    api_key_env: KEY_${i}`, '    websites:', `      - domain: ${name}.example`]);
    await c.writeConfig(['version: 1', 'accounts:', ...accounts, ''].join('\n'));
    const calls: number[] = [];
    for (const step of ['drift', 'same drift', 'converged'] as const) {
      if (step === 'converged') for (let i = 0; i < n; i++) emu.seed(keys[i]!, [{ domain: `${names[i]}.example` }]);
      const before = c.requests();
      expect((await c.drift(env)).code, `${n} accounts, ${step}`).toBe(step === 'converged' ? 0 : 2);
      calls.push(c.requests() - before);
    }
    figures[n] = calls;
  }
  return figures;
}
