#!/usr/bin/env node
// The published entry point: plain JavaScript that runs the bundled CLI (dist/cli.js, built by
// `npm run build`, which `npm ci` runs through `prepare` and `npm pack` through `prepack`). Node 22.1+ keeps the
// compiled code between runs; Node 20 compiles afresh, which costs a few tens of milliseconds.
'use strict';
require('node:module').enableCompileCache?.();
import('../dist/cli.js').then(
  async ({ main }) => {
    process.exitCode = await main(process.argv.slice(2));
  },
  (error) => {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write('sitesync is not built: in a clone of its repository, run `npm ci` (it builds through `prepare`) or `npm run build`.\n');
    process.exitCode = 1;
  },
);
