/** `sitesync validate`: offline; parse and check the file and every file it includes, report every problem. */
import { resolve } from 'node:path';
import { loadWorkspace } from '../config/load.js';
import type { Diagnostic } from '../errors.js';
import type { Workspace } from '../model.js';
import type { Context } from '../terminal.js';
import { printWarnings } from './shared.js';

export async function runValidate(args: { config: string }, ctx: Context): Promise<number> {
  const workspace = await loadWorkspace(resolve(ctx.cwd, args.config), ctx.env);
  const warnings = [...workspace.warnings, ...keyWarnings(workspace, ctx.env)];
  printWarnings(warnings, ctx);
  const n = workspace.configs.reduce((sum, c) => sum + c.websites.length, 0);
  const parts = [`${n} website${n === 1 ? '' : 's'}`];
  if (workspace.multi) parts.unshift(`${workspace.configs.length} account${workspace.configs.length === 1 ? '' : 's'}`);
  const included = workspace.files.length - 1;
  if (included) parts.push(`${included} included file${included === 1 ? '' : 's'}`);
  const warned = warnings.length ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : '';
  ctx.stdout.write(`${ctx.out.green('✓')} ${args.config} is valid: ${parts.join(', ')}${warned}.\n`);
  return 0;
}

/** validate needs no key: an account whose key's variable is not set is a warning, for plan and apply an error. */
function keyWarnings(workspace: Workspace, env: Record<string, string | undefined>): Diagnostic[] {
  return workspace.configs.flatMap((config) => {
    const account = config.account;
    if (!account || env[account.apiKeyEnv]?.trim()) return [];
    return [
      {
        file: workspace.file,
        ...account.pos,
        severity: 'warning' as const,
        message: `account ${account.name}: environment variable ${account.apiKeyEnv} (its api_key_env) is not set; plan and apply need it`,
      },
    ];
  });
}
