// verdict.ts alone, against the tests that judge runs (test/results, test/reports): the full unit suite
// reaches verdict.ts through many slow tests, which made a full-suite run of it outlast the session.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['src/results/verdict.ts'],
  vitest: { configFile: 'vitest.stryker.verdict.config.ts', related: false },
  concurrency: 1,
  incrementalFile: 'reports/mutation/stryker-incremental-verdict.json',
};
