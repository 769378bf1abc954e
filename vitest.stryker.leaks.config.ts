import { defineConfig } from 'vitest/config';

// What `stryker.leaks.config.mjs` runs against each mutant of leaks.ts: the leaks phase's tests, with and without /proc.
export default defineConfig({
  test: {
    include: ['test/driver/phases/leaks.test.ts', 'test/driver/phases/leaks.no-proc.test.ts'],
    exclude: ['**/node_modules/**', '.stryker-tmp/**', 'reports/**'],
    testTimeout: 20_000,
  },
});
