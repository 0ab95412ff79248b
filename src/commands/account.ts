import { NotImplementedError } from '../errors.js';
import type { Context } from '../terminal.js';

export async function runAccount(_args: unknown, _ctx: Context): Promise<number> {
  throw new NotImplementedError('`sitesync account` is not built yet.');
}
