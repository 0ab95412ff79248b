/** An emulator in-process, a temporary folder with a config file, and the CLI run against both. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { runCliHere, type CliOptions, type CliResult } from './cli.js';

export const KEY = 'sk-test-THE-API-KEY-0123456789';

export interface Scenario {
  emu: Emulator;
  dir: string;
  /** Writes `sitesync.yaml` (or another name) in the folder. */
  write(yaml: string, name?: string): Promise<string>;
  /** Runs the CLI in the folder, pointed at the emulator with the key (in this process unless `process: true`). */
  cli(args: string[], options?: CliOptions): Promise<CliResult>;
  close(): Promise<void>;
}

/** The `deployed` profile (the product's own answers) unless a test is about `full`. */
export async function scenario(options: EmulatorOptions = {}): Promise<Scenario> {
  const emu = await startEmulator({ keys: [KEY], profile: 'deployed', ...options });
  const dir = await mkdtemp(join(tmpdir(), 'sitesync-e2e-'));
  return {
    emu,
    dir,
    async write(yaml, name = 'sitesync.yaml') {
      const file = join(dir, name);
      await writeFile(file, yaml);
      return file;
    },
    cli(args, cliOptions = {}) {
      return runCliHere(args, {
        cwd: dir,
        ...cliOptions,
        env: { SITESYNC_BASE_URL: emu.url, SITESYNC_API_KEY: KEY, ...cliOptions.env },
      });
    },
    async close() {
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Writes done by the emulator since the last resetStats(). */
export function writes(emu: Emulator): string[] {
  return emu.stats.log.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path} ${r.status}`);
}
