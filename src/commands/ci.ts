import { NotImplementedError } from '../errors.js';
import type { Context } from '../terminal.js';

export async function runCiComment(_args: unknown, _ctx: Context): Promise<number> {
  throw new NotImplementedError('`sitesync ci comment` is not built yet.');
}

export async function runCiSummary(_args: unknown, _ctx: Context): Promise<number> {
  throw new NotImplementedError('`sitesync ci summary` is not built yet.');
}
