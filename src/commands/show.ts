/**
 * `sitesync show PLANFILE`: a saved plan as the plan command shows it, offline, for a reviewer
 * without a key (the CI's plan artifact) and for the job summary, which holds the whole plan
 * where a pull-request comment is cut. Nothing is checked against a service: apply does that.
 */
import { resolve } from 'node:path';
import { readSavedPlan, savedAccounts } from '../saved-plan/file.js';
import { SUMMARY_LIMIT } from '../ci/summary.js';
import { PLAN_FORMAT_NAMES, renderPlanAs } from '../render/formats.js';
import { defineCommand, type CommandArgs } from './define.js';
import { CommandLineError } from '../messages/errors.js';
import type { Context } from '../io/context.js';

const options = {
  format: { choices: PLAN_FORMAT_NAMES, default: 'text', describe: "Output format (markdown: the whole plan, up to a job summary's size)" },
} as const;

const positionals = { planfile: { type: 'string', describe: 'A plan saved by `sitesync plan --out`' } } as const;

export const showCommand = defineCommand({
  path: ['show'],
  describe: 'Show a plan saved by `sitesync plan --out`, offline (no key, nothing read from the service)',
  positionals,
  options,
  online: false,
  examples: [
    ['$0 show plan.json', "A pull request's plan artifact, read without a key"],
    ['$0 show plan.json --format markdown >> "$GITHUB_STEP_SUMMARY"', 'The whole plan in the job summary'],
  ],
  run: runShow,
});

async function runShow(args: CommandArgs<typeof options, typeof positionals>, ctx: Context): Promise<number> {
  if (!args.planfile) throw new CommandLineError('say which plan: sitesync show PLANFILE (a file saved by sitesync plan --out)', 'show');
  const saved = await readSavedPlan(resolve(ctx.cwd, args.planfile), args.planfile);
  const cut = { what: 'this page', whereAll: `The saved plan lists them all: sitesync show ${args.planfile} --format json` };
  ctx.stdout.write(renderPlanAs(args.format, savedAccounts(saved), { colors: ctx.out, limit: SUMMARY_LIMIT, cut }));
  return 0;
}
