/** What `plan` and `apply` share: load the file (and baseline), read the service, make the plan. */
import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import { loadWorkspace } from '../config/load.js';
import { UsageError } from '../errors.js';
import type { Account, Config, LiveWebsite, Plan, Workspace } from '../model.js';
import { assertPatternsMatch, planChanges, type PlanOptions } from '../planner/plan.js';
import { ProgressLine } from '../render/progress.js';
import { withSignal, type Context } from '../terminal.js';
import { openSession, readLiveState, type GlobalArgs, type Session } from './session.js';
import { printWarnings } from './shared.js';
import { accountConnections, accountName, eachAccount, Installations, selectAccounts } from './accounts.js';

export interface PlanningArgs extends GlobalArgs {
  config: string;
  prune?: boolean;
  target?: string[];
  exclude?: string[];
  account?: string[];
  baseline?: string;
  resendWriteOnly?: boolean;
}

export interface Planned {
  multi: false;
  workspace: Workspace;
  plan: Plan;
  config: Config;
  session: Session;
  account: Account;
  live: LiveWebsite[];
}

/** One account of a many-account run: planned, or failed with its reason. */
export interface AccountPlan {
  name: string;
  config: Config;
  baseUrl: string;
  planned?: { plan: Plan; session: Session; account: Account; live: LiveWebsite[] };
  error?: unknown;
}

export interface PlannedAccounts {
  multi: true;
  workspace: Workspace;
  accounts: AccountPlan[];
}

interface LiveState {
  session: Session;
  account: Account;
  live: LiveWebsite[];
}

export async function makePlan(args: PlanningArgs, ctx: Context): Promise<Planned | PlannedAccounts> {
  // When the base URL does not come from the file (--base-url, SITESYNC_BASE_URL), the service
  // is read while the file is parsed: only reads, and a file with errors still fails first.
  const early = (args.baseUrl !== undefined || Boolean(ctx.env.SITESYNC_BASE_URL)) && !args.account?.length;
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  setMaxListeners(0, signal); // one listener per request in flight, as on ctx.signal
  // The file first: a large one goes to a worker thread at once, and the listing runs beside it.
  const loading = loadWorkspace(resolve(ctx.cwd, args.config), ctx.env, { offThread: early });
  loading.catch(() => {}); // awaited below
  let reading = early ? readLive(args, withSignal(ctx, signal)) : undefined;
  reading?.catch(() => {}); // awaited below; an error of the file is reported before it
  const cancelReading = async () => {
    stop.abort();
    await reading?.then(({ session }) => session.client.close(), () => {});
    reading = undefined;
  };
  let workspace: Workspace;
  try {
    workspace = await loading;
    if (workspace.multi || args.account?.length) {
      await cancelReading();
      return await planAccounts(workspace, args, ctx);
    }
  } catch (error) {
    await cancelReading();
    throw error;
  }
  const config = workspace.configs[0]!;
  let baseline: Workspace | undefined;
  try {
    ctx.secrets.addPasswordsOf(config);
    baseline = await loadBaseline(args, ctx, false);
  } catch (error) {
    await cancelReading();
    throw error;
  }
  printWarnings(workspace.warnings, ctx);
  const { session, account, live } = await (reading ?? readLive(args, ctx, config.baseUrl));
  try {
    const plan = planChanges({
      config,
      live,
      account,
      baseUrl: session.baseUrl,
      options: { ...planOptions(args), baseline: baseline?.configs[0] },
    });
    return { multi: false, workspace, plan, config, session, account, live };
  } catch (error) {
    await session.client.close();
    throw error;
  }
}

function planOptions(args: PlanningArgs): PlanOptions {
  return { prune: args.prune, targets: args.target, excludes: args.exclude, resendWriteOnly: args.resendWriteOnly };
}

/** `--baseline`: of the same form as the file (one account, or accounts matched by name). */
async function loadBaseline(args: PlanningArgs, ctx: Context, multi: boolean): Promise<Workspace | undefined> {
  if (!args.baseline) return undefined;
  const baseline = await loadWorkspace(resolve(ctx.cwd, args.baseline), ctx.env, { lenientEnv: true, what: 'baseline file' });
  if (baseline.multi !== multi) {
    throw new UsageError(
      `--baseline ${args.baseline} ${baseline.multi ? 'holds accounts' : 'holds one account'}, and ${args.config} ${multi ? 'holds accounts' : 'one'}: give an earlier version of the same file`,
    );
  }
  return baseline;
}

/** Every selected account of a many-account file, read and planned side by side. */
async function planAccounts(workspace: Workspace, args: PlanningArgs, ctx: Context): Promise<PlannedAccounts> {
  const configs = selectAccounts(workspace, args.account, args.config);
  for (const config of configs) ctx.secrets.addPasswordsOf(config);
  const connections = accountConnections(configs, args, ctx, args.config);
  const baseline = await loadBaseline(args, ctx, true);
  printWarnings(workspace.warnings, ctx);
  const installations = new Installations();
  const progress = new ProgressLine(ctx.stderr, 'Reading accounts', Boolean(ctx.stderr.isTTY) && !ctx.verbose);
  let finished = 0;
  let failed = 0;
  progress.update({ done: 0, total: configs.length, failed: 0 });
  const outcomes = await eachAccount(
    configs,
    (config) => connections.get(config)!.baseUrl,
    async (config) => {
      const session = installations.open(connections.get(config)!, ctx, config);
      try {
        const [account, live] = await Promise.all([session.client.getAccount(), session.client.listWebsites()]);
        const old = baseline?.configs.find((c) => accountName(c) === accountName(config));
        const plan = planChanges({
          config,
          live,
          account,
          baseUrl: session.baseUrl,
          options: { ...planOptions(args), checkPatterns: false, baseline: baseline ? (old ?? { ...config, websites: [] }) : undefined },
        });
        finished++;
        return { plan, session, account, live };
      } catch (error) {
        failed++;
        await session.client.close();
        throw error;
      } finally {
        progress.update({ done: finished + failed, total: configs.length, failed });
      }
    },
  );
  progress.done();
  const accounts: AccountPlan[] = outcomes.map((o) => ({
    name: accountName(o.config),
    config: o.config,
    baseUrl: connections.get(o.config)!.baseUrl,
    ...(o.ok ? { planned: o.value } : { error: o.error }),
  }));
  // A pattern need only match in one account; checked when every account could be read.
  if (accounts.every((a) => a.planned)) {
    try {
      assertPatternsMatch(
        { targets: args.target, excludes: args.exclude },
        accounts.flatMap((a) => [a.config.websites.map((w) => w.domain), a.planned!.live.map((w) => w.domain)]),
        'in any account, in the file or on the service',
      );
    } catch (error) {
      await closeAll(accounts);
      throw error;
    }
  }
  return { multi: true, workspace, accounts };
}

export async function closeAll(accounts: AccountPlan[]): Promise<void> {
  await Promise.all(accounts.map((a) => a.planned?.session.client.close()));
}

/** Opens the session and reads the account and every website; the session is closed on failure. */
async function readLive(args: PlanningArgs, ctx: Context, fromFile?: string): Promise<LiveState> {
  const session = await openSession(args, ctx, fromFile);
  try {
    return { session, ...(await readLiveState(session, ctx)) };
  } catch (error) {
    await session.client.close();
    throw error;
  }
}
