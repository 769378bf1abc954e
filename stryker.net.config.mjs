// The network phases' mutation run (`npm run mutate:net`, docs/testing.md): bind, http and what they
// share, against only the tests that exercise them. A shorter dry run than `npm run mutate`, and no
// unrelated test (slow or timing-bound on a loaded machine) can stop it before it starts.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { ...base.vitest, configFile: 'vitest.stryker.net.config.ts' },
  mutate: ['src/driver/phases/bind.ts', 'src/driver/phases/http.ts', 'src/driver/listen-watch.ts', 'src/driver/start-failure.ts'],
  concurrency: 1,
  incrementalFile: 'reports/mutation/stryker-incremental-net.json',
};
