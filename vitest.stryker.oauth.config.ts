import { defineConfig } from 'vitest/config';

// What the OAuth mutation run (stryker.oauth.config.mjs) runs against each mutant: the unit tests of src/driver/oauth.ts.
export default defineConfig({
  test: {
    include: ['test/driver/oauth.test.ts'],
    testTimeout: 20_000,
  },
});
