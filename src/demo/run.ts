/**
 * `npm run demo`: the bundled emulator on a free loopback port, seeded with a few websites,
 * and sitesync run against it as a user would: plan → apply --auto-approve → plan. No network
 * beyond loopback; the emulator stops at the end.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../emulator/index.js';
import { packageRoot } from '../io/paths.js';

const root = packageRoot();
const bin = join(root, 'bin/sitesync.cjs');
const config = 'examples/sitesync.yaml';
const tty = Boolean(process.stdout.isTTY);
const bold = (s: string) => (tty ? `\u001b[1m${s}\u001b[22m` : s);

function step(title: string, args: string[], env: NodeJS.ProcessEnv, cwd = root): Promise<number> {
  process.stdout.write(`\n${bold(`── ${title}`)}\n${bold(`$ sitesync ${args.join(' ')}`)}\n\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function demo(): Promise<number> {
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0 });
  const key = emulator.keys[0]!;
  // What the account holds before sitesync manages it: one website to fix, one the file no
  // longer lists (prune deletes it, and the plan says what history goes with it: a campaign that
  // ended half a year ago, so nothing recent), one the file ignores.
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
  emulator.seed(key, [
    { domain: 'blog.example.com', privacy: 1, email: 0, exclude_bots: 1, exclude_ips: '192.0.2.10' },
    { domain: 'docs.example.com', privacy: 1, email: 0, exclude_bots: 1 },
    { domain: 'old-campaign.example.com', privacy: 0, email: 1, exclude_bots: 0, traffic: { [daysAgo(420)]: 2_210, [daysAgo(300)]: 9_800, [daysAgo(190)]: 330 } },
    { domain: 'test.sandbox.example.com', privacy: 0, email: 0, exclude_bots: 1 },
  ]);
  process.stdout.write(
    `${bold('sitesync demo')}: the bundled emulator of the Website Tracking Service is listening on ${emulator.url}\n` +
      `(a throwaway account with 4 websites), and sitesync manages it from ${config}.\n`,
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SITESYNC_BASE_URL: emulator.url,
    SITESYNC_API_KEY: key,
    EXAMPLE_STATS_PASSWORD: 'demo-only-password',
  };
  if (tty && env.NO_COLOR === undefined) env.FORCE_COLOR = '1';
  try {
    const steps: [string, string[], number[]][] = [
      ['1. What would change?', ['plan', '-c', config], [0]],
      ['2. Make it so (in CI: after merge)', ['apply', '-c', config, '--auto-approve'], [0]],
      ['3. Plan again: nothing left to do (exit 0 with --detailed-exitcode)', ['plan', '-c', config, '--detailed-exitcode'], [0]],
    ];
    for (const [title, args, expected] of steps) {
      const code = await step(title, args, env);
      if (!expected.includes(code)) {
        process.stderr.write(`\nThe demo stopped: sitesync ${args[0]} exited ${code}.\n`);
        return 1;
      }
    }
    if ((await manyAccounts(env)) !== 0) return 1;
    process.stdout.write(
      `\n${bold('Done.')} Next: run your own emulator with \`npx sitesync emulator\`, or read docs/file.md for the file format and docs/ci.md for the CI recipes.\n`,
    );
    return 0;
  } finally {
    await emulator.close();
  }
}

/**
 * The agency example: two accounts on this emulator (one emulator holds many keys) and one on
 * a second emulator (a second installation), from examples/accounts with its included files.
 * The file names its installations' addresses, so the demo runs a copy pointed at these two.
 */
async function manyAccounts(baseEnv: NodeJS.ProcessEnv): Promise<number> {
  const east = await startEmulator({ host: '127.0.0.1', port: 0, keys: [ACCOUNT_KEYS.ACME_STATS_KEY, ACCOUNT_KEYS.BETA_STATS_KEY] });
  const west = await startEmulator({ host: '127.0.0.1', port: 0, keys: [ACCOUNT_KEYS.GLOBEX_STATS_KEY] });
  const dir = await mkdtemp(join(tmpdir(), 'sitesync-demo-'));
  try {
    await cp(join(root, 'examples/accounts'), dir, { recursive: true });
    const file = join(dir, 'sitesync.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replaceAll('http://127.0.0.1:8080', east.url).replaceAll('http://127.0.0.1:8081', west.url));
    east.seed(ACCOUNT_KEYS.BETA_STATS_KEY, [{ domain: 'beta.example', privacy: 0, email: 0, exclude_bots: 0 }]);
    process.stdout.write(
      `\n${bold('Many accounts')}: examples/accounts/sitesync.yaml names three accounts — acme and beta on one\n` +
        `installation (${east.url}), globex on another (${west.url}) — with websites in included files.\n`,
    );
    const env: NodeJS.ProcessEnv = { ...baseEnv, ...ACCOUNT_KEYS };
    delete env.SITESYNC_BASE_URL;
    delete env.SITESYNC_API_KEY;
    const config = 'sitesync.yaml';
    const steps: [string, string[]][] = [
      ['4. Every account, one plan', ['plan', '-c', config]],
      ['5. Apply them all (side by side, one pace per installation)', ['apply', '-c', config, '--auto-approve']],
      ['6. One account only', ['plan', '-c', config, '--account', 'globex', '--detailed-exitcode']],
    ];
    for (const [title, args] of steps) {
      const code = await step(title, args, env, dir);
      if (code !== 0) {
        process.stderr.write(`\nThe demo stopped: sitesync ${args[0]} exited ${code}.\n`);
        return 1;
      }
    }
    return 0;
  } finally {
    await Promise.all([east.close(), west.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

/** The demo's keys for the agency example; each account's api_key_env names one. */
const ACCOUNT_KEYS = {
  ACME_STATS_KEY: 'demo-acme-key-0123456789',
  BETA_STATS_KEY: 'demo-beta-key-0123456789',
  GLOBEX_STATS_KEY: 'demo-globex-key-0123456789',
};

process.exitCode = await demo();
