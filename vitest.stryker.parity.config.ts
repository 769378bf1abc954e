import { defineConfig } from 'vitest/config';

// What `stryker.parity.config.mjs` runs against each mutant of parity.ts and answer.ts: their unit tests.
export default defineConfig({
  test: {
    include: ['test/results/parity.test.ts', 'test/driver/answer.test.ts'],
    exclude: ['**/node_modules/**', '.stryker-tmp/**', 'reports/**'],
    testTimeout: 20_000,
  },
});
