// The OAuth sub-checks' mutation run (docs/testing.md): src/driver/oauth.ts against its own unit tests
// (test/driver/oauth.test.ts: the judges, and discovery over real loopback sockets). The phase-level tests
// (test/driver/phases/oauth.test.ts, real servers and a real authorization server) are too slow per mutant.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { ...base.vitest, configFile: 'vitest.stryker.oauth.config.ts' },
  mutate: ['src/driver/oauth.ts'],
  concurrency: 1,
  incrementalFile: 'reports/mutation/stryker-incremental-oauth.json',
};
