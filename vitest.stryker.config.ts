import { defineConfig } from 'vitest/config';

// What `npm run mutate` runs against each mutant: the unit tests only. The e2e/integration tests pack,
// install real SDKs and compile the driver with tsc, so they neither see Stryker's in-memory mutants
// nor finish in a mutant's time budget.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/lint runs eslint over the repository (no mutated module in it, and over 20 s on a loaded machine).
    exclude: [
      'test/e2e/**',
      'test/**/*.integration.test.ts',
      'test/lint/**',
      'fixtures/**',
      '**/node_modules/**',
      '.stryker-tmp/**',
      'reports/**',
    ],
    testTimeout: 20_000,
  },
});
