/** `sitesync validate`: offline; parse and check the file, report every problem. */
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.js';
import type { Context } from '../terminal.js';
import { printWarnings } from './shared.js';

export async function runValidate(args: { config: string }, ctx: Context): Promise<number> {
  const config = await loadConfig(resolve(ctx.cwd, args.config), ctx.env);
  printWarnings(config.warnings, ctx);
  const n = config.websites.length;
  const warnings = config.warnings.length ? `, ${config.warnings.length} warning${config.warnings.length === 1 ? '' : 's'}` : '';
  ctx.stdout.write(`${ctx.out.green('✓')} ${args.config} is valid: ${n} website${n === 1 ? '' : 's'}${warnings}.\n`);
  return 0;
}
