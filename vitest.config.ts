import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most of a test's time is spent waiting (on a child process, on loopback): at least two files
    // at once, even where one core is all vitest would take by default.
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ['default'],
  },
});
