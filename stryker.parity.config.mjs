// Answer parity's judging modules alone (src/results/parity.ts compares recorded values across cells,
// src/driver/answer.ts normalises an answer), against their own unit tests: fast enough to run on its own.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['src/results/parity.ts', 'src/driver/answer.ts'],
  vitest: { configFile: 'vitest.stryker.parity.config.ts', related: false },
  concurrency: 1,
  incrementalFile: 'reports/mutation/stryker-incremental-parity.json',
};
