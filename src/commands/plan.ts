/** `sitesync plan`: read the live account, print the plan; never writes to the service. */
import { resolve } from 'node:path';
import { savePlan } from '../apply/saved-plan.js';
import type { Plan } from '../model.js';
import { assertSafe } from '../planner/safety.js';
import { renderJson } from '../render/json.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import type { Context } from '../terminal.js';
import { makePlan, type PlanningArgs } from './make-plan.js';

export interface PlanArgs extends PlanningArgs {
  format: 'text' | 'markdown' | 'json';
  out?: string;
  detailedExitcode?: boolean;
  /** Exit 1 when apply (without --force) would refuse this plan. */
  failUnsafe?: boolean;
}

export async function runPlan(args: PlanArgs, ctx: Context): Promise<number> {
  const { plan, session, live, config, configSha256 } = await makePlan(args, ctx);
  await session.client.close();
  ctx.stdout.write(render(plan, args.format, ctx));
  if (args.out) {
    await savePlan(resolve(ctx.cwd, args.out), plan, { config, configSha256, liveTotal: live.length, targets: args.target, prune: args.prune });
    ctx.stderr.write(`Saved the plan to ${args.out}; apply it with: sitesync apply ${args.out}\n`);
  }
  // After the output, so that the plan (whose warnings give the reason) is still shown.
  if (args.failUnsafe) assertSafe(plan.safety, plan.limit, false);
  const changes = plan.changes.length > 0;
  return args.detailedExitcode && changes ? 2 : 0;
}

export function render(plan: Plan, format: PlanArgs['format'], ctx: Context): string {
  switch (format) {
    case 'json':
      return renderJson(plan);
    case 'markdown':
      return `${renderMarkdown(plan)}\n`;
    default:
      return renderText(plan, ctx.out);
  }
}
