/** `sitesync account`: the account that owns the key. */
import { jsonUnicodeEscapes, printable } from '../render/escape.js';
import type { Context } from '../terminal.js';
import { openSession, type GlobalArgs } from './session.js';

export interface AccountArgs extends GlobalArgs {
  format: 'text' | 'json';
}

export async function runAccount(args: AccountArgs, ctx: Context): Promise<number> {
  const session = await openSession(args, ctx);
  try {
    const [account, used] = await Promise.all([session.client.getAccount(), session.client.countWebsites()]);
    if (args.format === 'json') {
      const out = {
        base_url: session.baseUrl,
        id: account.id,
        name: account.name,
        email: account.email,
        plan: account.plan,
        website_limit: account.websiteLimit ?? -1,
        websites: used,
      };
      ctx.stdout.write(`${jsonUnicodeEscapes(JSON.stringify(out, null, 2))}\n`);
      return 0;
    }
    const c = ctx.out;
    const limit = account.websiteLimit === null ? `${used} (unlimited)` : `${used} of ${account.websiteLimit}`;
    const rows: [string, string][] = [
      ['Account', account.email ? `${account.name} <${account.email}>` : account.name],
      ['Plan', account.plan || '(unknown)'],
      ['Websites', limit],
      ['Service', session.baseUrl],
    ];
    // The name, e-mail and plan come from the service: shown as data.
    for (const [k, v] of rows) ctx.stdout.write(`${c.bold(k.padEnd(9))} ${printable(v)}\n`);
    return 0;
  } finally {
    await session.client.close();
  }
}
