/**
 * `sitesync emulator`: runs the bundled emulator until Ctrl-C, prints how to point sitesync at
 * it, and logs one line per request to stderr.
 */
import { isAbsolute, resolve } from 'node:path';
import { UsageError } from '../messages/errors.js';
import { emulatorTotals, parseRateLimit, parseTrafficRule, startEmulator, type Emulator } from '../emulator/index.js';
import type { Context } from '../io/context.js';
import { defineCommand, type CommandArgs } from './define.js';

const options = {
  port: { type: 'number', default: 8080, requiresArg: true, describe: 'Port (0: any free port)' },
  host: { type: 'string', default: '127.0.0.1', requiresArg: true, describe: 'Address to listen on' },
  data: { type: 'string', requiresArg: true, describe: 'Keep the state in this file across restarts' },
  key: { type: 'string', array: true, requiresArg: true, describe: 'An API key to accept, one account each (repeatable)' },
  latency: { type: 'number', default: 0, requiresArg: true, describe: 'Added delay per request, in ms' },
  'rate-limit': { type: 'string', requiresArg: true, describe: 'Throttle, as N/SECONDS (the service: 60/60), or off' },
  'throttle-by': {
    choices: ['address', 'key'],
    describe: 'What the throttle counts by (default: address on deployed, as the product does; key on full)',
  },
  profile: { choices: ['deployed', 'full'], default: 'deployed', describe: 'deployed: as live installs answer; full: every field' },
  'website-limit': { type: 'number', default: -1, requiresArg: true, describe: "The plan's website limit (-1: unlimited)" },
  'plan-pageviews': {
    type: 'number',
    default: -1,
    requiresArg: true,
    describe: "The plan's pageviews a month (-1: unlimited): `sitesync account --usage` measures the month against it",
  },
  'email-reports': { type: 'boolean', default: true, describe: 'Whether the plan has e-mail reports (--no-email-reports: a plan warns of email: true)' },
  traffic: {
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'Pageviews for websites whose domain matches PATTERN, spread over the last DAYS days (default 365): PATTERN=PAGEVIEWS[/DAYS] (repeatable)',
  },
  quiet: { type: 'boolean', describe: 'Do not log requests' },
} as const;

/** What the emulator is started with: its options (each may be left out, as tests do). */
export type EmulatorArgs = Partial<CommandArgs<typeof options>>;

export const emulatorCommand = defineCommand({
  path: ['emulator'],
  describe: 'Run the bundled local emulator of the service',
  options,
  online: false,
  examples: [
    ['$0 emulator --port 8080', 'Start it; it prints the key and an export line'],
    ['$0 emulator --data state.json --rate-limit 60/60', 'Persistent, throttled like production'],
    ['$0 emulator --traffic "old.example.com=12340/400"', 'A website with history: its delete says what it destroys'],
    ['$0 emulator --plan-pageviews 10000 --traffic "*.example.com=3000/30"', 'A plan near its month\'s pageviews: see `sitesync account --usage`'],
  ],
  run: runEmulator,
});

export async function runEmulator(args: EmulatorArgs, ctx: Context): Promise<number> {
  const port = args.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number (0 to 65535; 0 picks a free one)');
  const latency = args.latency ?? 0;
  if (!Number.isFinite(latency) || latency < 0) throw new UsageError('--latency must be a number of milliseconds, 0 or more');
  const websiteLimit = args.websiteLimit ?? -1;
  if (!Number.isInteger(websiteLimit) || websiteLimit < -1) throw new UsageError('--website-limit must be -1 (unlimited) or a count');
  const planPageviews = args.planPageviews ?? -1;
  if (!Number.isInteger(planPageviews) || planPageviews < -1) throw new UsageError('--plan-pageviews must be -1 (unlimited) or a count of pageviews a month');
  const emailReports = args.emailReports ?? true;
  let rateLimit: { limit: number; windowMs: number } | null = null;
  if (args.rateLimit !== undefined) {
    const parsed = parseRateLimit(args.rateLimit);
    if (parsed === undefined) {
      throw new UsageError(`--rate-limit must be N/SECONDS, e.g. 60/60 (what the service allows by default), or off; not "${args.rateLimit}"`);
    }
    rateLimit = parsed;
  }
  const traffic = (args.traffic ?? []).map((text) => {
    const rule = parseTrafficRule(text);
    if (!rule) throw new UsageError(`--traffic must be PATTERN=PAGEVIEWS[/DAYS], e.g. old.example.com=12340/400; not "${text}"`);
    return rule;
  });
  const dataFile = args.data === undefined ? undefined : isAbsolute(args.data) ? args.data : resolve(ctx.cwd, args.data);
  const host = args.host ?? '127.0.0.1';
  const c = ctx.err;

  const emulator = await startEmulator({
    host,
    port,
    profile: args.profile ?? 'deployed',
    latencyMs: latency,
    rateLimit,
    websiteLimit,
    planPageviews,
    emailReports,
    traffic,
    ...(args.throttleBy === undefined ? {} : { throttleBy: args.throttleBy }),
    ...(dataFile === undefined ? {} : { dataFile }),
    ...(args.key?.length ? { keys: args.key } : {}),
    log: args.quiet
      ? null
      : (line) => {
          const m = /^(.*) (\d{3}|no answer) (\d+ms)$/.exec(line);
          if (!m) return void ctx.stderr.write(`${line}\n`);
          const status = m[2]!;
          const paint = status === 'no answer' || status.startsWith('5') ? c.red : status.startsWith('4') ? c.yellow : c.green;
          ctx.stderr.write(`${m[1]} ${paint(status)} ${c.dim(m[3]!)}\n`);
        },
  });

  const profile = args.profile ?? 'deployed';
  const throttleBy = args.throttleBy ?? (profile === 'deployed' ? 'address' : 'key');
  ctx.stdout.write(banner(emulator, { generated: !args.key?.length, dataFile, rateLimit, throttleBy, websiteLimit, planPageviews, emailReports, host, profile }, ctx));

  // Ctrl-C (through ctx.signal) or a plain kill: stop, let answers in flight finish, flush the file.
  await new Promise<void>((done) => {
    if (ctx.signal.aborted) return done();
    const stop = () => {
      process.off('SIGTERM', stop);
      ctx.signal.removeEventListener('abort', stop);
      done();
    };
    ctx.signal.addEventListener('abort', stop, { once: true });
    process.once('SIGTERM', stop);
  });
  await emulator.close();
  ctx.stderr.write('Emulator stopped.\n');
  return 0;
}

interface BannerFacts {
  generated: boolean;
  dataFile: string | undefined;
  rateLimit: { limit: number; windowMs: number } | null;
  throttleBy: 'address' | 'key';
  websiteLimit: number;
  planPageviews: number;
  emailReports: boolean;
  host: string;
  profile: 'deployed' | 'full';
}

function banner(emulator: Emulator, facts: BannerFacts, ctx: Context): string {
  const c = ctx.out;
  const totals = emulatorTotals(emulator);
  const lines: string[] = [];
  lines.push(`${c.bold('Website Tracking Service emulator')} (profile ${facts.profile}) is listening.`);
  lines.push('');
  lines.push(`  Base URL   ${emulator.url}   (the API is under /api/v1)`);
  // The emulator's own throwaway keys: printing them is the point, they guard nothing real.
  const [first, ...more] = emulator.keys;
  lines.push(`  API key    ${first}${facts.generated ? '   (generated; --key KEY picks your own)' : ''}`);
  for (const k of more) lines.push(`             ${k}   (another account)`);
  if (facts.dataFile) {
    lines.push(`  Data       ${facts.dataFile} (${totals.websites} ${totals.websites === 1 ? 'website' : 'websites'})`);
    const others = totals.accounts - emulator.keys.length;
    if (others > 0) lines.push(`             ${others} more ${others === 1 ? 'account' : 'accounts'} in it, reachable with their own --key`);
    if (facts.generated) lines.push('             next time pass this key with --key to find the same account again');
  } else {
    lines.push('  Data       in memory, gone on exit (--data FILE keeps it)');
  }
  lines.push(
    `  Throttle   ${
      facts.rateLimit
        ? `${facts.rateLimit.limit} requests per ${facts.rateLimit.windowMs / 1000} s per ${facts.throttleBy === 'address' ? 'client address (all keys share it)' : 'key'}`
        : 'off (the service allows 60 requests a minute: --rate-limit 60/60)'
    }`,
  );
  lines.push(`  Websites   ${facts.websiteLimit === -1 ? 'unlimited per account' : `at most ${facts.websiteLimit} per account`}`);
  lines.push(`  Pageviews  ${facts.planPageviews === -1 ? 'unlimited a month' : `${facts.planPageviews.toLocaleString('en-US')} a month per account`}`);
  lines.push(`  Reports    ${facts.emailReports ? 'e-mail reports in the plan' : 'no e-mail reports in the plan'}`);
  if (!['127.0.0.1', 'localhost', '::1'].includes(facts.host)) {
    lines.push(c.yellow(`  Listening on ${facts.host}: other machines can reach it.`));
  }
  lines.push('');
  lines.push('Point sitesync at it:');
  lines.push(`  export SITESYNC_BASE_URL=${emulator.url} SITESYNC_API_KEY=${first}`);
  lines.push('  sitesync plan     # try it: compares sitesync.yaml with the emulator');
  lines.push('');
  lines.push('Ctrl-C stops it.');
  return `${lines.join('\n')}\n`;
}
