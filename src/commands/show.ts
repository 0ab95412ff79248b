/**
 * `sitesync show PLANFILE`: a saved plan as the plan command shows it, offline, for a reviewer
 * without a key (the CI's plan artifact) and for the job summary, which holds the whole plan
 * where a pull-request comment is cut. Nothing is checked against a service: apply does that.
 */
import { resolve } from 'node:path';
import { readSavedPlan, savedAccounts } from '../saved-plan/file.js';
import { SUMMARY_LIMIT } from '../ci/summary.js';
import { renderRunJson, renderRunMarkdown, renderRunText } from '../render/run.js';
import { CommandLineError } from '../cli/usage.js';
import type { Context } from '../io/terminal.js';

export interface ShowArgs {
  planfile: string;
  format: 'text' | 'markdown' | 'json';
}

export async function runShow(args: ShowArgs, ctx: Context): Promise<number> {
  if (!args.planfile) throw new CommandLineError('say which plan: sitesync show PLANFILE (a file saved by sitesync plan --out)', 'show');
  const saved = await readSavedPlan(resolve(ctx.cwd, args.planfile), args.planfile);
  const accounts = savedAccounts(saved);
  if (args.format === 'json') ctx.stdout.write(renderRunJson(accounts));
  else if (args.format === 'text') ctx.stdout.write(renderRunText(accounts, ctx.out));
  else {
    const cut = { what: 'this page', whereAll: `The saved plan lists them all: sitesync show ${args.planfile} --format json` };
    ctx.stdout.write(`${renderRunMarkdown(accounts, { limit: SUMMARY_LIMIT, cut })}\n`);
  }
  return 0;
}
