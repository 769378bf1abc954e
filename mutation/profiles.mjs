// @ts-check
// The mutation profiles (docs/testing.md): which modules each run mutates, and which unit tests run against
// each mutant. One Stryker config (stryker.config.mjs) and one vitest config (vitest.config.ts) read the
// profile named by MUTATION_PROFILE (default `all`); each profile has its npm script (`npm run mutate:<name>`).
// The e2e and *.integration tests never run against a mutant: they pack, install real SDKs and compile the
// driver into a cell, so the forked driver never carries Stryker's in-memory mutant switch.

/**
 * @typedef {object} Profile
 * @property {string[]} mutate the modules mutated
 * @property {string[]} tests the test files run against each mutant (vitest include globs)
 * @property {string[]} [exclude] vitest exclude globs (absent: vitest's own)
 * @property {number} concurrency Stryker's test runners at once
 * @property {number} [timeoutMS] how long a mutant may run past its dry-run time (absent: a minute)
 * @property {string} [report] the name of its html and json reports under reports/mutation/ (absent: `mutation`)
 */

/** What the Stryker sandbox and earlier reports hold: never a test to run. */
const SANDBOX = ['**/node_modules/**', '.stryker-tmp/**', 'reports/**'];

/**
 * A judging module (or a few that judge together) against its own unit tests only, so a run fits the shared
 * 2-core machine (docs/testing.md, "Judging modules"); its reports are named after the profile.
 * @param {string} name
 * @param {string | string[]} modules
 * @param {string[]} tests
 * @returns {[string, Profile]}
 */
const judging = (name, modules, tests) => [
  name,
  // Unit tests of one module run in seconds: a mutant that loops is cut after 15 s, not the default minute.
  { mutate: [modules].flat(), tests, exclude: SANDBOX, concurrency: 1, timeoutMS: 15_000, report: name },
];

/** @type {Record<string, Profile>} */
export const PROFILES = {
  // The verdict-critical modules against the whole unit suite (`npm run mutate`); test/lint runs eslint over
  // the repository (no mutated module in it, and over 20 s on a loaded machine).
  all: {
    mutate: [
      'src/driver/phases/*.ts',
      'src/driver/http/listen-watch.ts',
      'src/driver/server/start-failure.ts',
      'src/driver/client/expectations.ts',
      'src/judge/verdict.ts',
      'src/judge/environment/environment.ts',
      'src/judge/environment/runtime-sdk.ts',
      'src/judge/environment/sdk-tree.ts',
      'src/judge/environment/tarball-files.ts',
      'src/driver/server/redact.ts',
      'src/driver/http/oauth.ts',
      'src/driver/http/oauth-discovery.ts',
    ],
    tests: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/**/*.integration.test.ts', 'test/lint/**', 'fixtures/**', ...SANDBOX],
    concurrency: 1,
  },
  // The network phases: bind, http and what they share, against only the tests that exercise them (in-process
  // phases against real servers, and table tests). A shorter dry run, and no unrelated slow test can stop it.
  net: {
    mutate: [
      'src/driver/phases/bind.ts',
      'src/driver/phases/bind-judgement.ts',
      'src/driver/phases/http.ts',
      'src/driver/phases/http-refusals.ts',
      'src/driver/phases/http-round-trip.ts',
      'src/driver/http/listen-watch.ts',
      'src/driver/server/start-failure.ts',
    ],
    tests: [
      'test/driver/phases/bind.test.ts',
      'test/driver/phases/http.test.ts',
      'test/driver/http/listen-watch.test.ts',
      'test/driver/http/listen-watch.no-proc.test.ts',
      'test/driver/server/start-failure.test.ts',
    ],
    concurrency: 1,
  },
  // leaks.ts against the tests that run the leaks phase, with and without /proc: no other unit test reaches it.
  leaks: {
    mutate: ['src/driver/phases/leaks.ts'],
    tests: ['test/driver/phases/leaks.test.ts', 'test/driver/phases/leaks.no-proc.test.ts'],
    exclude: SANDBOX,
    concurrency: 1,
  },
  // listen-watch.ts against its own tests: every phase test reaches it too, but each starts real servers, so
  // with them every surviving mutant would cost minutes.
  'listen-watch': {
    mutate: ['src/driver/http/listen-watch.ts'],
    tests: ['test/driver/http/listen-watch.test.ts', 'test/driver/http/listen-watch.no-proc.test.ts'],
    exclude: SANDBOX,
    concurrency: 1,
  },
  // The OAuth sub-checks against their own unit tests (the judges, and discovery over real loopback sockets);
  // the phase-level tests (real servers and a real authorization server) are too slow per mutant.
  oauth: {
    mutate: ['src/driver/http/oauth.ts', 'src/driver/http/oauth-discovery.ts'],
    tests: ['test/driver/http/oauth.test.ts'],
    concurrency: 1,
  },
  // verdict.ts against the tests that judge runs (auditRun's fold check is tested with the checks it folds, in
  // test/contract/checks.test.ts): the full unit suite reaches it through many slow tests.
  verdict: {
    mutate: ['src/judge/verdict.ts'],
    tests: ['test/judge/verdict.test.ts', 'test/contract/checks.test.ts', 'test/results/**/*.test.ts', 'test/reports/**/*.test.ts'],
    exclude: SANDBOX,
    concurrency: 1,
  },
  // Answer parity's judging modules (parity.ts compares recorded values across cells, answer.ts normalises an
  // answer) against their own unit tests.
  parity: {
    mutate: ['src/results/parity.ts', 'src/driver/client/answer.ts'],
    tests: ['test/results/parity.test.ts', 'test/driver/client/answer.test.ts'],
    exclude: SANDBOX,
    concurrency: 1,
  },
  // The lifecycle checks' judgements (an unknown method, an unknown tool, invalid arguments, a second
  // initialize and a cancellation with a call in flight, the order and the unrun), the answers they read and
  // the steps they share, against their unit tests (a scripted wire).
  lifecycle: {
    mutate: [
      'src/driver/lifecycle/checks.ts',
      'src/driver/lifecycle/in-flight.ts',
      'src/driver/lifecycle/answer.ts',
      'src/driver/lifecycle/steps.ts',
    ],
    tests: [
      'test/driver/lifecycle/checks.test.ts',
      'test/driver/lifecycle/in-flight.test.ts',
      'test/driver/lifecycle/answer.test.ts',
      'test/driver/lifecycle/steps.test.ts',
    ],
    exclude: SANDBOX,
    concurrency: 1,
    timeoutMS: 15_000,
    report: 'lifecycle',
  },
  // The raw JSON-RPC wire (stdio and HTTP) against the stdio phase's lifecycle tests (real server processes,
  // one defect per mode; seconds per mutant) and the lifecycle unit tests (its pure readings).
  'lifecycle-live': {
    mutate: ['src/driver/lifecycle/wire.ts'],
    tests: ['test/driver/phases/lifecycle.test.ts', 'test/driver/lifecycle/*.test.ts'],
    exclude: SANDBOX,
    concurrency: 1,
    timeoutMS: 15_000,
    report: 'lifecycle-live',
  },
  ...Object.fromEntries([
    // The client cache with the rules it shares with the other harness caches: a partial's age limit and an
    // entry's last use (entry-dirs.ts), where a cache lives and when it is turned off (location.ts).
    judging(
      'client-cache',
      ['src/cache/client-cache.ts', 'src/cache/entry-dirs.ts', 'src/cache/location.ts'],
      ['test/cache/client-cache.test.ts', 'test/cache/cached-tool.test.ts', 'test/cache/entry-dirs.test.ts', 'test/cache/location.test.ts'],
    ),
    judging('surface', 'src/results/surface.ts', ['test/results/surface.test.ts']),
    judging('split-steps', 'src/judge/split-steps.ts', ['test/judge/split-steps.test.ts']),
    // The SDK range a package claims, itself or through a framework (issue 32 item 3), against its own tests (the plan
    // on a registry stand-in, the rule on scripted look-ups).
    judging('sdk-claim', 'src/plan/sdk-claim.ts', ['test/plan/sdk-claim.test.ts']),
    judging('node-engines', 'src/judge/environment/node-engines.ts', ['test/judge/environment/node-engines.test.ts']),
    judging('tool-schemas', 'src/judge/tool-schemas.ts', ['test/judge/tool-schemas.test.ts']),
    judging('not-measured', 'src/judge/not-measured.ts', ['test/judge/not-measured.test.ts']),
    judging('phase-share', 'src/judge/phase-share.ts', ['test/judge/phase-share.test.ts']),
    judging('mutated-install', 'src/judge/environment/mutated-install.ts', ['test/judge/environment/mutated-install.test.ts']),
    judging('runtime-sdk', 'src/judge/environment/runtime-sdk.ts', ['test/judge/environment/runtime-sdk.test.ts']),
    judging('secrets', 'src/judge/secrets.ts', ['test/judge/secrets.test.ts']),
    // The install's static check (the tarball installed, the pins, one copy of each SDK package, the files the
    // manifest names) with the SDK tree and tarball readers it uses, on cells laid out by hand.
    judging(
      'environment',
      ['src/judge/environment/environment.ts', 'src/judge/environment/sdk-tree.ts', 'src/judge/environment/tarball-files.ts'],
      [
        'test/judge/environment/environment.test.ts',
        'test/judge/environment/sdk-tree.test.ts',
        'test/judge/environment/tarball-files.test.ts',
      ],
    ),
    // Its own unit tests only: test/judge/**/*.test.ts would match undeclared-imports.integration.test.ts (a real
    // install, which fails in Stryker's sandbox).
    judging('variant-environment', 'src/judge/environment/variant-environment.ts', ['test/judge/environment/variant-environment.test.ts']),
    // The install's static check on a Yarn PnP cell, laid out by hand (the real Yarn runs are integration tests).
    judging('pnp-environment', 'src/judge/environment/pnp-environment.ts', ['test/judge/environment/pnp-environment.test.ts']),
    // The undeclared-import checks (issue 36) with the import graph they read: packages written by hand, no install
    // (undeclared-imports.integration.test.ts installs real packages: never against a mutant).
    judging(
      'undeclared-imports',
      ['src/judge/environment/undeclared-imports.ts', 'src/judge/environment/import-graph.ts'],
      ['test/judge/environment/undeclared-imports.test.ts', 'test/judge/environment/import-graph.test.ts'],
    ),
    // Why a server's import failed (a peer not provided, PnP's escape, the package's own), on stderr texts and files.
    judging('missing-import', 'src/judge/environment/missing-import.ts', ['test/judge/environment/missing-import.test.ts']),
    // The judges and specChecks on a scripted sender (test/driver/http/spec-checks.test.ts): the real-server tests
    // (test/driver/phases/spec-checks.test.ts) cost about 7 s a mutant on the shared machine, an hour a run.
    judging('spec-checks', ['src/driver/http/spec-judges.ts', 'src/driver/http/spec-checks.ts'], ['test/driver/http/spec-checks.test.ts']),
    // The raw node:http sender the spec checks (and the lifecycle wire's SSE reading) use, on scripted loopback servers.
    judging('raw-http', 'src/driver/http/raw-http.ts', ['test/driver/http/raw-http.test.ts']),
    // The 401 checks' judges and messages: their unit tests come first in http.test.ts (real servers after them,
    // reached only by a mutant the unit tests leave alive), and the several-challenges test over a real socket.
    judging('http-refusals', 'src/driver/phases/http-refusals.ts', [
      'test/driver/phases/http-refusals.test.ts',
      'test/driver/phases/http.test.ts',
    ]),
    // The check catalogue (catalogue.ts: each check's requirement, revision and levels) and the rules that read it.
    judging(
      'checks',
      ['src/contract/checks.ts', 'src/contract/catalogue.ts'],
      ['test/contract/checks.test.ts', 'test/contract/revisions.test.ts', 'test/config/docs.test.ts'],
    ),
    judging('answering', 'src/driver/server/answering.ts', ['test/driver/server/answering.test.ts']),
    judging('conformance-catalogue', 'src/cells/conformance/conformance-catalogue.ts', [
      'test/cells/conformance/conformance-catalogue.test.ts',
    ]),
    judging('second-judge', 'src/judge/second-judge.ts', ['test/judge/second-judge.test.ts']),
    judging('stdio-checks', 'src/driver/phases/stdio-checks.ts', ['test/driver/phases/stdio-checks.test.ts']),
    judging('driver-spec', 'src/cells/driver-spec.ts', ['test/cells/driver-spec.test.ts']),
    judging('steps', 'src/driver/client/steps.ts', ['test/driver/client/steps.test.ts']),
    judging('escaped', 'src/driver/server/escaped.ts', ['test/driver/server/escaped.test.ts']),
    // The phase and its scenario judging (split out of conformance.ts), against the phase's tests (a real HTTP server
    // and a stand-in for the suite's CLI).
    judging(
      'conformance',
      ['src/driver/phases/conformance.ts', 'src/driver/phases/conformance-judging.ts'],
      ['test/driver/phases/conformance.test.ts'],
    ),
    // The token proxy in front of a server under the conformance suite, over real loopback sockets.
    judging('auth-proxy', 'src/driver/http/auth-proxy.ts', ['test/driver/http/auth-proxy.test.ts']),
    // Why a server is not answering is reached through httpPhase against real servers (seconds per mutant).
    judging('http-listen', 'src/driver/phases/http-listen.ts', ['test/driver/phases/http.test.ts']),
    judging('http-lifecycle', 'src/driver/phases/http-lifecycle.ts', ['test/driver/phases/http-lifecycle.test.ts']),
  ]),
};

/**
 * The profile this run uses: MUTATION_PROFILE, or `all`. An unknown name is an error at once, naming the profiles.
 * @param {Record<string, string | undefined>} env
 * @returns {{ name: string; profile: Profile }}
 */
export function selectedProfile(env = process.env) {
  const name = env.MUTATION_PROFILE || 'all';
  const profile = PROFILES[name];
  if (!profile) throw new Error(`MUTATION_PROFILE=${name} is not a mutation profile; the profiles: ${Object.keys(PROFILES).join(', ')}`);
  return { name, profile };
}
