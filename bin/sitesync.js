#!/usr/bin/env node
// The published entry point: plain JavaScript that loads the compiled CLI.
// `npm ci` builds dist/ through the `prepare` script.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/src/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('sitesync is not built: run `npm ci` (or `npm run build`) in its folder first.\n');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
