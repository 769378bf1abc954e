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
          // Real installs and servers: keep file-level parallelism modest on a 2-core machine.
          maxWorkers: 2,
          // Vitest 4 runs projects with different maxWorkers in separate groups: unit first, then e2e.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
