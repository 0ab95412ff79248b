/**
 * `npm run demo`: the bundled emulator on a free loopback port, seeded with a few websites,
 * and sitesync run against it as a user would: plan → apply --auto-approve → plan. No network
 * beyond loopback; the emulator stops at the end.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startEmulator } from '../emulator/index.js';
import { packageRoot } from '../paths.js';

const root = packageRoot();
const bin = join(root, 'bin/sitesync.js');
const config = 'examples/sitesync.yaml';
const tty = Boolean(process.stdout.isTTY);
const bold = (s: string) => (tty ? `\u001b[1m${s}\u001b[22m` : s);

function step(title: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  process.stdout.write(`\n${bold(`── ${title}`)}\n${bold(`$ sitesync ${args.join(' ')}`)}\n\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function demo(): Promise<number> {
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0 });
  const key = emulator.keys[0]!;
  // What the account holds before sitesync manages it: one website to fix, one the file no
  // longer lists (prune deletes it), one the file ignores.
  emulator.seed(key, [
    { domain: 'blog.example.com', privacy: 1, email: 0, exclude_bots: 1, exclude_ips: '192.0.2.10' },
    { domain: 'docs.example.com', privacy: 1, email: 0, exclude_bots: 1 },
    { domain: 'old-campaign.example.com', privacy: 0, email: 1, exclude_bots: 0 },
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
    process.stdout.write(
      `\n${bold('Done.')} Next: run your own emulator with \`npx sitesync emulator\`, or read README.md for the file format and CI recipes.\n`,
    );
    return 0;
  } finally {
    await emulator.close();
  }
}

process.exitCode = await demo();
