import { NotImplementedError } from '../errors.js';
import type { Context } from '../terminal.js';

export async function runExport(_args: unknown, _ctx: Context): Promise<number> {
  throw new NotImplementedError('`sitesync export` is not built yet.');
}
