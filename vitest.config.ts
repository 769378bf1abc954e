import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests, and slow tests that pack, install real SDK versions and start real servers.
const slow = ['test/e2e/**/*.test.ts', 'test/**/*.integration.test.ts', 'fixtures/**/test/**/*.test.ts'];
// MM_TEST_TIMINGS=<file>: each test file appends its wall and CPU seconds there (test/helpers/cpu-timings.ts).
const setupFiles = process.env.MM_TEST_TIMINGS ? ['test/helpers/cpu-timings.ts'] : [];

export default defineConfig({
  test: {
    // One directory per run for what test files share (test/helpers/run-cache.ts).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...slow, '**/node_modules/**'],
          testTimeout: 20_000,
          setupFiles,
          // Mostly waiting on real processes and timers (about 40 CPU-s in a 7-minute run with one worker, the
          // default on 2 cores): three files at a time overlap the waits.
          maxWorkers: 3,
        },
      },
      {
        test: {
          name: 'e2e',
          include: slow,
          exclude: ['**/node_modules/**'],
          testTimeout: 300_000,
          setupFiles,
          hookTimeout: 600_000,
          // Real installs and servers, but much of a file's time is waiting on them: the project used 1067 CPU-s
          // (a floor of ~9 min on 2 cores) where two files at a time took ~20 min on a dedicated 2-core machine.
          // Three at a time keep both cores busy through the waits (docs/performance.md, "The test suite's time");
          // four made the timing-sensitive hard-kill test flaky in a clean-clone run (passes alone, failed at 4).
          maxWorkers: 3,
          // Vitest 4 runs projects with different maxWorkers in separate groups: unit first, then e2e.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
