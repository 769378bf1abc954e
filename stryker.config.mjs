// Mutation testing of the verdict-critical modules (`npm run mutate`; see docs/testing.md).
// Not part of .ci/run: a full run takes tens of minutes on a 2-core machine.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/driver/phases/*.ts',
    'src/driver/listen-watch.ts',
    'src/driver/start-failure.ts',
    'src/driver/expectations.ts',
    'src/results/verdict.ts',
    'src/judge/environment.ts',
    'src/judge/runtime-sdk.ts',
    'src/judge/sdk-tree.ts',
    'src/judge/tarball-files.ts',
    'src/driver/redact.ts',
    'src/driver/oauth.ts',
  ],
  // The sandbox needs the sources and tests, not build output or earlier reports.
  ignorePatterns: ['dist', 'reports/mutation', 'coverage', 'bench/results', 'matrix-results', '.mcp-matrix'],
  concurrency: 2,
  timeoutMS: 60_000,
  timeoutFactor: 3,
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
