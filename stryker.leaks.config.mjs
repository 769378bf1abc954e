// leaks.ts alone, against the tests that run the leaks phase (docs/testing.md, "The core modules"): no
// other unit test reaches it, and the full suite's dry run alone takes minutes on a loaded machine.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['src/driver/phases/leaks.ts'],
  vitest: { configFile: 'vitest.stryker.leaks.config.ts', related: false },
  concurrency: 1,
  incrementalFile: 'reports/mutation/stryker-incremental-leaks.json',
};
