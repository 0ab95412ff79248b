import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A file's imports (src/ through vite's transform, the emulator, yaml, ajv, undici) are loaded
    // once per worker, not once per file: a fresh module graph per file was most of the suite's
    // CPU. The tests share no state that needs it: no module mocks, no process.env writes, no
    // chdir, no fake timers; each test starts its own servers and folders.
    isolate: false,
    // Most of a test's time is spent waiting (on a child process, on loopback): at least two files
    // at once, even where one core is all vitest would take by default.
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ['default'],
  },
});
