// Preloaded (`node --require bench/rusage.cjs bin/sitesync.cjs …`) by the benchmarks: the CLI
// runs exactly as users run it, and its peak memory is written where SITESYNC_BENCH_RUSAGE says.
'use strict';
const file = process.env.SITESYNC_BENCH_RUSAGE;
if (file) process.on('exit', () => require('node:fs').writeFileSync(file, JSON.stringify({ maxRSS: process.resourceUsage().maxRSS })));
