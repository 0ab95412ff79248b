/** `--verbose`: per account, how many requests the run made, and what for; every online command ends with it. */
import type { Context } from '../io/context.js';
import { requestsLine } from '../render/run.js';
import type { Run } from './open.js';

export function reportRequests(run: Run, ctx: Context): void {
  if (!ctx.verbose) return;
  for (const a of run.accounts) ctx.stderr.write(`${ctx.err.dim(requestsLine(a.name, a.client.stats.requests, a.client.stats.byKind))}\n`);
}
