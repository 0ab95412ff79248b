/** `sitesync plan`: read the live account(s), print the plan; never writes to the service. */
import { relative, resolve, sep } from 'node:path';
import { saveAccountsPlan, savePlan } from '../apply/saved-plan.js';
import { SitesyncError } from '../errors.js';
import type { Plan } from '../model.js';
import { assertSafe } from '../planner/safety.js';
import { renderAccountsJson, renderAccountsMarkdown, renderAccountsText, type AccountSection } from '../render/accounts.js';
import { renderJson } from '../render/json.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import type { Context } from '../terminal.js';
import { failureLines } from './accounts.js';
import { closeAll, makePlan, type PlannedAccounts, type PlanningArgs } from './make-plan.js';
import { assertOutputFile, writeFailure } from './shared.js';

export interface PlanArgs extends PlanningArgs {
  format: 'text' | 'markdown' | 'json';
  out?: string;
  detailedExitcode?: boolean;
  /** Exit 1 when apply (without --force) would refuse this plan. */
  failUnsafe?: boolean;
}

export async function runPlan(args: PlanArgs, ctx: Context): Promise<number> {
  // Before reading the account: a plan that cannot be saved should fail at once. A saved plan
  // is made again and again, so an existing one is replaced.
  const out = args.out === undefined ? undefined : resolve(ctx.cwd, args.out);
  if (out) await assertOutputFile(out, args.out!, '--out', true, '--format json prints the plan itself');
  const planned = await makePlan(args, ctx);
  if (planned.multi) return planAccounts(planned, args, ctx, out);
  const { plan, session, live, config, workspace } = planned;
  await session.client.close();
  ctx.stdout.write(render(plan, args.format, ctx, commentIdOfConfig(args.config, ctx)));
  if (args.out) {
    await savePlan(out!, plan, { config, configSha256: workspace.sha256, liveTotal: live.length, targets: args.target, excludes: args.exclude, prune: args.prune }).catch((error: unknown) => {
      throw writeFailure(error, '--out', args.out!);
    });
    ctx.stderr.write(`Saved the plan to ${args.out}; apply it with: sitesync apply ${args.out}\n`);
  }
  // After the output, so that the plan (whose warnings give the reason) is still shown.
  if (args.failUnsafe) assertSafe(plan.safety, plan.limit, false);
  const changes = plan.changes.length > 0;
  return args.detailedExitcode && changes ? 2 : 0;
}

export function render(plan: Plan, format: PlanArgs['format'], ctx: Context, commentId?: string): string {
  switch (format) {
    case 'json':
      return renderJson(plan);
    case 'markdown':
      return `${renderMarkdown(plan, undefined, { commentId })}\n`;
    default:
      return renderText(plan, ctx.out);
  }
}

async function planAccounts(planned: PlannedAccounts, args: PlanArgs, ctx: Context, out: string | undefined): Promise<number> {
  await closeAll(planned.accounts);
  const sections = sectionsOf(planned, ctx);
  ctx.stdout.write(renderSections(sections, args.format, ctx, commentIdOfConfig(args.config, ctx)));
  const failed = sections.filter((s) => !s.plan).map((s) => s.name);
  if (out) {
    if (failed.length) {
      throw new SitesyncError(`the plan was not saved: it must cover every account, and ${failed.join(', ')} could not be planned`);
    }
    await saveAccountsPlan(out, planned, { targets: args.target, excludes: args.exclude, prune: args.prune }).catch((error: unknown) => {
      throw writeFailure(error, '--out', args.out!);
    });
    ctx.stderr.write(`Saved the plan of ${sections.length} accounts to ${args.out}; apply it with: sitesync apply ${args.out}\n`);
  }
  const unsafe: string[] = [];
  if (args.failUnsafe) {
    for (const s of sections) {
      try {
        if (s.plan) assertSafe(s.plan.safety, s.plan.limit, false);
      } catch (error) {
        unsafe.push(`${s.name}: ${(error as Error).message}`);
      }
    }
  }
  if (failed.length || unsafe.length) {
    const lines = [
      ...(failed.length ? [`${failed.length} of ${sections.length} accounts could not be planned: ${failed.join(', ')}`] : []),
      ...(unsafe.length ? [`apply would refuse ${unsafe.length === 1 ? 'one account' : `${unsafe.length} accounts`}:`, ...unsafe.map((u) => `  ${u}`)] : []),
    ];
    ctx.stderr.write(`${ctx.err.red(`Error: ${lines[0]}`)}\n${lines.slice(1).map((l) => `  ${l}\n`).join('')}`);
    return 1;
  }
  const changes = sections.some((s) => s.plan!.changes.length > 0);
  return args.detailedExitcode && changes ? 2 : 0;
}

/**
 * The pull-request comment's id: the config's path from the working directory (the repository's
 * root in CI), so that each config of a repository has its own comment.
 */
function commentIdOfConfig(config: string, ctx: Context): string {
  return relative(ctx.cwd, resolve(ctx.cwd, config)).split(sep).join('/');
}

export function sectionsOf(planned: PlannedAccounts, ctx: Context): AccountSection[] {
  return planned.accounts.map((a) => ({
    name: a.name,
    baseUrl: a.baseUrl,
    plan: a.planned?.plan,
    failure: a.planned ? undefined : failureLines(a.error, ctx),
  }));
}

export function renderSections(sections: AccountSection[], format: PlanArgs['format'], ctx: Context, commentId?: string): string {
  switch (format) {
    case 'json':
      return renderAccountsJson(sections);
    case 'markdown':
      return `${renderAccountsMarkdown(sections, undefined, commentId)}\n`;
    default:
      return renderAccountsText(sections, ctx.out);
  }
}
