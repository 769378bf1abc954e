import { defineConfig } from 'vitest/config';

// What `stryker.verdict.config.mjs` runs against each mutant of verdict.ts: the tests that judge runs.
export default defineConfig({
  test: {
    include: ['test/results/**/*.test.ts', 'test/reports/**/*.test.ts'],
    exclude: ['**/node_modules/**', '.stryker-tmp/**', 'reports/**'],
    testTimeout: 20_000,
  },
});
