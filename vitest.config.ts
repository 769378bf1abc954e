import { defineConfig } from 'vitest/config';
import { sharedUnitFiles } from './test/helpers/unit-split.js';
import WallSequencer from './test/helpers/sequencer.js';

// Four projects: fast unit tests (two: those that only call functions share their worker's loaded modules,
// test/helpers/unit-split.ts), integration tests that start real processes with the unit tests' bounds (below), and
// slow tests that pack, install real SDK versions and start real servers.
// test/workflows/acceptance.test.ts runs the CLI through simulated GitHub workflows (many real processes, 16–19 CPU-s):
// beside three e2e files in one pool, four of its tests ran 27–41 s, past the unit project's 20 s hang guard.
const slow = [
  'test/e2e/**/*.test.ts',
  'test/**/*.integration.test.ts',
  'fixtures/**/test/**/*.test.ts',
  'test/workflows/acceptance.test.ts',
];
// Files that start real servers through a driver phase, real processes, a browser, or an external tool (ESLint over all
// of src, actionlint and shellcheck, the SARIF multitool): their time is the processes' and the waits' (a phase's
// bounds), not the module's logic. They keep the unit project's timeouts and isolation, run in `npm test` and
// `.ci/run`, and stay out of `npm run test:unit` (issue 34: under 60 s on 2 cores; they were ~330 s of its ~460 s of
// file wall and ~45 of its ~92 CPU-s; docs/performance.md, session 9).
const integration = [
  ...['bind', 'conformance', 'http', 'http-lifecycle', 'leaks', 'lifecycle', 'oauth', 'spec-checks', 'stdio'].map(
    (phase) => `test/driver/phases/${phase}.test.ts`,
  ),
  'test/driver/http/listen-watch.test.ts',
  'test/driver/server/escaped.test.ts',
  'test/driver/server/answering.test.ts',
  'test/driver/probe/probe.test.ts',
  'test/process/cookie.test.ts',
  'test/lint/driver-boundary.test.ts',
  'test/commands/workflows.test.ts',
  'test/reports/sarif/sarif.test.ts',
  'test/reports/html.browser.test.ts',
];
const shared = sharedUnitFiles(import.meta.dirname, /^test\/(e2e\/|workflows\/acceptance\.test\.ts$)|\.integration\.test\.ts$/).filter(
  (f) => !integration.includes(f),
);
// MM_TEST_TIMINGS=<file>: each test file appends its wall and CPU seconds there (test/helpers/cpu-timings.ts).
const setupFiles = process.env.MM_TEST_TIMINGS ? ['test/helpers/cpu-timings.ts'] : [];
// Both projects' files at a time: three e2e files and one unit file (test/helpers/sequencer.ts).
const WORKERS = 4;
const unit = {
  testTimeout: 20_000,
  // A hang guard, not a speed check: vitest's 10 s passed under load where a hook makes RSA keys or starts servers.
  hookTimeout: 60_000,
  setupFiles,
  // One pool with the e2e project (same maxWorkers, same sequence.groupOrder): mostly waiting on real
  // processes and timers (72 CPU-s over 453 s of file wall time), so one worker at a time runs them.
  maxWorkers: WORKERS,
};

export default defineConfig({
  test: {
    // One directory per run for what test files share (test/helpers/run-cache.ts).
    globalSetup: ['test/global-setup.ts'],
    // Unit and e2e files share one pool of WORKERS, dealt out longest first with one worker on unit files at a
    // time (test/helpers/sequencer.ts): the unit files' waits overlap the e2e files' work instead of preceding it.
    sequence: { sequencer: WallSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...slow, ...shared, ...integration, '**/node_modules/**'],
          ...unit,
        },
      },
      {
        test: {
          // Not `unit*`: the sequencer deals these files in the e2e lanes, whose waits they share.
          name: 'integration',
          include: integration,
          ...unit,
        },
      },
      {
        test: {
          name: 'unit-shared',
          include: shared,
          ...unit,
          // A worker keeps the modules it loaded from one file to the next: these files only call functions, and loading
          // src anew for each was half their CPU (docs/performance.md, "The test suite on a fresh machine").
          isolate: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: slow,
          exclude: ['**/node_modules/**'],
          testTimeout: 300_000,
          setupFiles,
          hookTimeout: 600_000,
          // Real installs and servers, but much of a file's time is waiting on them: the project used 1067 CPU-s
          // (a floor of ~9 min on 2 cores) where two files at a time took ~20 min on a dedicated 2-core machine.
          // Three at a time keep both cores busy through the waits (docs/performance.md, "The test suite's time");
          // four made the timing-sensitive hard-kill test flaky in a clean-clone run (passes alone, failed at 4).
          // Of the pool's four workers, one is on unit files while any are left (test/helpers/sequencer.ts).
          maxWorkers: WORKERS,
        },
      },
    ],
  },
});
