// listen-watch.ts alone, against its own tests (docs/testing.md, "listen-watch.ts"): the phase tests
// reach it as well, but each starts real servers, so with them every surviving mutant costs minutes.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['src/driver/listen-watch.ts'],
  vitest: { configFile: 'vitest.stryker.listen-watch.config.ts', related: false },
  concurrency: 1,
  incrementalFile: 'reports/mutation/stryker-incremental-listen-watch.json',
};
