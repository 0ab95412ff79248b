import { NotImplementedError } from '../errors.js';
import type { Context } from '../terminal.js';

export async function runEmulator(_args: unknown, _ctx: Context): Promise<number> {
  throw new NotImplementedError('`sitesync emulator` is not built yet.');
}
