/**
 * An agency's file: one installation, three accounts (`alpha`, `beta`, `gamma`), each with a key of
 * its own read from its own variable.
 */
import { expect } from 'vitest';
import type { CliOptions } from './cli.js';
import { KEY, scenario, type Scenario } from './scenario.js';

export const KEYS = { ALPHA_KEY: 'sk-test-ALPHA-0123456789abcdef', BETA_KEY: 'sk-test-BETA-0123456789abcdef', GAMMA_KEY: 'sk-test-GAMMA-0123456789abcdef' };

export type AgencyCli = (args: string[], options?: CliOptions) => ReturnType<Scenario['cli']>;

/** Nothing new that these outputs say holds a key: no renderer or message is handed one. */
export function expectNoKeys(...outputs: { stdout: string; stderr: string }[]): void {
  for (const { stdout, stderr } of outputs) for (const key of [KEY, ...Object.values(KEYS)]) expect(`${stdout}${stderr}`).not.toContain(key);
}

/** The scenario, its file holding the websites of `own` under each account, and a CLI run with the accounts' keys (and no other). */
export async function agencyScenario(own: Record<'alpha' | 'beta' | 'gamma', string>): Promise<{ s: Scenario; cli: AgencyCli }> {
  const s = await scenario({ keys: Object.values(KEYS) });
  const file = ['version: 1', 'accounts:'];
  for (const [name, websites] of Object.entries(own)) {
    file.push(`  ${name}:`, `    base_url: ${s.emu.url}`, `    api_key_env: ${name.toUpperCase()}_KEY`, `    websites:${websites ? `\n${websites}` : ' []'}`);
  }
  await s.write(`${file.join('\n')}\n`);
  return { s, cli: (args, options = {}) => s.cli(args, { ...options, env: { ...KEYS, SITESYNC_API_KEY: undefined, SITESYNC_BASE_URL: undefined, ...options.env } }) };
}

/** `agencyScenario` for a test file that keeps its scenario in a variable of its own (for its clean-up): `keep` is handed it. */
export function agencyIn(keep: (s: Scenario) => void): (own: Parameters<typeof agencyScenario>[0]) => Promise<AgencyCli> {
  return async (own) => {
    const a = await agencyScenario(own);
    keep(a.s);
    return a.cli;
  };
}
