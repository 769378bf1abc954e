import { defineConfig } from 'vitest/config';

// Two projects: fast unit tests, and slow tests that pack, install real SDK versions and start real servers.
const slow = ['test/e2e/**/*.test.ts', 'test/**/*.integration.test.ts', 'fixtures/**/test/**/*.test.ts'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...slow, '**/node_modules/**'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: slow,
          exclude: ['**/node_modules/**'],
          testTimeout: 300_000,
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
