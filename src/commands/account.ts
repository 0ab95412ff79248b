/** `sitesync account`: the account that owns the key (or each account of a file with accounts). */
import type { Account } from '../model.js';
import { failureBlock } from '../render/accounts.js';
import { jsonUnicodeEscapes, printable } from '../render/escape.js';
import type { Context } from '../terminal.js';
import { accountName, failureLines, onEachAccount, workspaceFor, type FileAccountArgs } from './accounts.js';
import { openSession, type Session } from './session.js';

export interface AccountArgs extends FileAccountArgs {
  format: 'text' | 'json';
}

interface Seen {
  baseUrl: string;
  account: Account;
  used: number;
}

export async function runAccount(args: AccountArgs, ctx: Context): Promise<number> {
  const file = await workspaceFor(args, ctx);
  if (file?.workspace.multi) {
    const outcomes = await onEachAccount(file.workspace, file.shown, args, ctx, (session) => read(session));
    const entries = outcomes.map((o) => ({ name: accountName(o.config), seen: o.ok ? o.value : undefined, failure: o.ok ? undefined : failureLines(o.error, ctx) }));
    if (args.format === 'json') {
      const out = entries.map((e) => (e.seen ? { name: e.name, status: 'ok', ...asJson(e.seen) } : { name: e.name, status: 'failed', error: e.failure!.join('\n') }));
      ctx.stdout.write(`${jsonUnicodeEscapes(JSON.stringify({ accounts: out }, null, 2))}\n`);
    } else {
      for (const e of entries) {
        ctx.stdout.write(`${ctx.out.bold(ctx.out.cyan(`━━ account ${printable(e.name)} ━━`))}\n`);
        if (e.seen) ctx.stdout.write(asText(e.seen, ctx));
        else ctx.stdout.write(failureBlock('', e.failure!, ctx.out));
        ctx.stdout.write('\n');
      }
    }
    return entries.some((e) => !e.seen) ? 1 : 0;
  }
  const session = await openSession(args, ctx, file?.workspace.configs[0]?.baseUrl);
  try {
    const seen = await read(session);
    ctx.stdout.write(args.format === 'json' ? `${jsonUnicodeEscapes(JSON.stringify(asJson(seen), null, 2))}\n` : asText(seen, ctx));
    return 0;
  } finally {
    await session.client.close();
  }
}

async function read(session: Session): Promise<Seen> {
  const [account, used] = await Promise.all([session.client.getAccount(), session.client.countWebsites()]);
  return { baseUrl: session.baseUrl, account, used };
}

function asJson({ baseUrl, account, used }: Seen): object {
  return {
    base_url: baseUrl,
    id: account.id,
    name: account.name,
    email: account.email,
    plan: account.plan,
    website_limit: account.websiteLimit ?? -1,
    websites: used,
  };
}

function asText({ baseUrl, account, used }: Seen, ctx: Context): string {
  const c = ctx.out;
  const limit = account.websiteLimit === null ? `${used} (unlimited)` : `${used} of ${account.websiteLimit}`;
  const rows: [string, string][] = [
    ['Account', account.email ? `${account.name} <${account.email}>` : account.name],
    ['Plan', account.plan || '(unknown)'],
    ['Websites', limit],
    ['Service', baseUrl],
  ];
  // The name, e-mail and plan come from the service: shown as data.
  return rows.map(([k, v]) => `${c.bold(k.padEnd(9))} ${printable(v)}\n`).join('');
}
