// @ts-check
// Mutation testing of the judging modules (`npm run mutate`, `npm run mutate:<profile>`; see docs/testing.md),
// one profile per run (profiles.mjs, chosen by MUTATION_PROFILE). Not part of .ci/run: a full run takes tens
// of minutes on a 2-core machine.
import { selectedProfile } from './profiles.mjs';

const { name, profile } = selectedProfile();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'mutation/vitest.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: profile.mutate,
  // The sandbox needs the sources and tests, not build output, earlier reports or what runs leave behind. The
  // committed evidence pages (reports/**/*.html) would be parsed for type-check comments and warn (void elements);
  // no test reads them (the evidence's results.json stays: test/reports reads it).
  ignorePatterns: [
    'dist',
    'reports/mutation',
    'reports/**/*.html',
    'coverage',
    'bench/results',
    'bench/.build',
    'matrix-results',
    '.mcp-matrix',
    '/out',
    '/cells',
    '/cell-results',
    '/package-tarball',
    '/test-output',
    '/plan.json',
    '*.tgz',
  ],
  // Every profile says 1: the machine has 2 cores shared by several engineers (and a run goes `nice -n 19`).
  concurrency: profile.concurrency,
  timeoutMS: profile.timeoutMS ?? 60_000,
  timeoutFactor: 3,
  incremental: true,
  incrementalFile: `reports/mutation/stryker-incremental${name === 'all' ? '' : `-${name}`}.json`,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${profile.report ?? 'mutation'}.html` },
  jsonReporter: { fileName: `reports/mutation/${profile.report ?? 'mutation'}.json` },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
