/** What `plan` and `apply` share: load the file (and baseline), read the service, plan. */
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

export async function makePlan(args: PlanningArgs, ctx: Context): Promise<Planned> {
  const { config, sha256: configSha256 } = await loadConfigAndHash(resolve(ctx.cwd, args.config), ctx.env);
  for (const site of config.websites) if (site.password) ctx.secrets.add(site.password.value);
  const baseline = args.baseline ? await loadConfig(resolve(ctx.cwd, args.baseline), ctx.env, { lenientEnv: true }) : undefined;
  printWarnings(config.warnings, ctx);
  const session = await openSession(args, ctx, config.baseUrl);
  try {
    const { account, live } = await readLiveState(session, ctx);
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
