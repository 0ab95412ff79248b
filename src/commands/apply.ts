import { NotImplementedError } from '../errors.js';
import type { Context } from '../terminal.js';

export async function runApply(_args: unknown, _ctx: Context): Promise<number> {
  throw new NotImplementedError('`sitesync apply` is not built yet.');
}
