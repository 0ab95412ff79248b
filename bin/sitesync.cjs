#!/usr/bin/env node
// The published entry point: plain JavaScript that runs the bundled CLI (dist/cli.js, built by
// `npm run build`, which `npm ci` and `npm pack` run through `prepare`). `--version` is answered
// here without loading the CLI: CI steps call it, and it should cost no more than Node's start.
import { readFileSync } from 'node:fs';
import module from 'node:module';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  // Node 22.1+ keeps compiled code between runs; Node 20 has no such cache and starts as it is.
  module.enableCompileCache?.();
  let cli;
  try {
    cli = await import('../dist/cli.js');
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
    process.stderr.write('sitesync is not built: in a clone of its repository, run `npm ci` (it builds through `prepare`) or `npm run build`.\n');
    process.exit(1);
  }
  process.exitCode = await cli.main(args);
}
