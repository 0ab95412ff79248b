/**
 * Runs the CLI exactly as bin/sitesync.js does, then records the process's peak memory for
 * the benchmarks (SITESYNC_BENCH_RUSAGE names the file).
 */
import { writeFileSync } from 'node:fs';
import { main } from '../src/cli.js';

const code = await main(process.argv.slice(2));
const file = process.env.SITESYNC_BENCH_RUSAGE;
if (file) writeFileSync(file, JSON.stringify({ maxRSS: process.resourceUsage().maxRSS }));
process.exitCode = code;
