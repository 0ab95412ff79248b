import { NotImplementedError } from '../errors.js';
import type { Context } from '../terminal.js';

export async function runPlan(_args: unknown, _ctx: Context): Promise<number> {
  throw new NotImplementedError('`sitesync plan` is not built yet.');
}
