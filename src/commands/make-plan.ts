/** What `plan` and `apply` share: load the file (and baseline), read the service, make the plan. */
import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import { loadConfig, loadConfigAndHash } from '../config/load.js';
import type { Account, Config, LiveWebsite, Plan } from '../model.js';
import { planChanges } from '../planner/plan.js';
import type { Context } from '../terminal.js';
import { openSession, readLiveState, type GlobalArgs, type Session } from './session.js';
import { printWarnings } from './shared.js';

export interface PlanningArgs extends GlobalArgs {
  config: string;
  prune?: boolean;
  target?: string[];
  baseline?: string;
  resendWriteOnly?: boolean;
}

export interface Planned {
  plan: Plan;
  config: Config;
  session: Session;
  account: Account;
  live: LiveWebsite[];
  /** The SHA-256 of the config file's text, which a saved plan records. */
  configSha256: string;
}

interface LiveState {
  session: Session;
  account: Account;
  live: LiveWebsite[];
}

export async function makePlan(args: PlanningArgs, ctx: Context): Promise<Planned> {
  // When the base URL does not come from the file (--base-url, SITESYNC_BASE_URL), the service
  // is read while the file is parsed: only reads, and a file with errors still fails first.
  const early = args.baseUrl !== undefined || Boolean(ctx.env.SITESYNC_BASE_URL);
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  setMaxListeners(0, signal); // one listener per request in flight, as on ctx.signal
  // The file first: a large one goes to a worker thread at once, and the listing runs beside it.
  const loading = loadConfigAndHash(resolve(ctx.cwd, args.config), ctx.env, { offThread: early });
  loading.catch(() => {}); // awaited below
  const reading = early ? readLive(args, { ...ctx, signal }) : undefined;
  reading?.catch(() => {}); // awaited below; an error of the file is reported before it
  let config: Config;
  let configSha256: string;
  let baseline: Config | undefined;
  try {
    ({ config, sha256: configSha256 } = await loading);
    ctx.secrets.addPasswordsOf(config);
    baseline = args.baseline
      ? await loadConfig(resolve(ctx.cwd, args.baseline), ctx.env, { lenientEnv: true, what: 'baseline file' })
      : undefined;
  } catch (error) {
    stop.abort();
    await reading?.then(({ session }) => session.client.close(), () => {});
    throw error;
  }
  printWarnings(config.warnings, ctx);
  const { session, account, live } = await (reading ?? readLive(args, ctx, config.baseUrl));
  try {
    const plan = planChanges({
      config,
      live,
      account,
      baseUrl: session.baseUrl,
      options: { prune: args.prune, targets: args.target, baseline, resendWriteOnly: args.resendWriteOnly },
    });
    return { plan, config, session, account, live, configSha256 };
  } catch (error) {
    await session.client.close();
    throw error;
  }
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
