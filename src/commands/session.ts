/** Opening a connection to the service and reading the live state, as every online command does. */
import type { Account, LiveWebsite } from '../model.js';
import { printable } from '../render/escape.js';
import { ProgressLine } from '../render/progress.js';
import { ServiceClient } from '../service/client.js';
import { resolveConnection } from '../service/connection.js';
import type { Context } from '../terminal.js';

export interface GlobalArgs {
  baseUrl?: string;
  apiKeyFile?: string;
  insecureHttp?: boolean;
}

export interface Session {
  client: ServiceClient;
  baseUrl: string;
}

export async function openSession(args: GlobalArgs, ctx: Context, fromFile?: string): Promise<Session> {
  const { baseUrl, apiKey } = await resolveConnection(args, ctx.env, fromFile);
  const client = new ServiceClient({
    baseUrl,
    apiKey,
    secrets: ctx.secrets, // the client registers its key here, so every message is cleaned of it
    signal: ctx.signal,
    log: ctx.verbose ? (line) => ctx.stderr.write(`${ctx.err.dim(printable(line))}\n`) : undefined,
  });
  return { client, baseUrl };
}

/** The account and every live website, with a progress line on a terminal when it takes a while. */
export async function readLiveState(session: Session, ctx: Context): Promise<{ account: Account; live: LiveWebsite[] }> {
  const progress = new ProgressLine(ctx.stderr, 'Reading websites', Boolean(ctx.stderr.isTTY) && !ctx.verbose);
  try {
    const [account, live] = await Promise.all([
      session.client.getAccount(),
      session.client.listWebsites({}, (pages, of) => progress.update({ done: pages, total: of ?? pages, failed: 0 })),
    ]);
    return { account, live };
  } finally {
    progress.done();
  }
}
