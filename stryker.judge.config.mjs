// One mutation profile per judging module (issue 20 item 6; docs/testing.md, "Judging modules"): each mutates
// one module against that module's own unit tests only, so a run fits the shared 2-core machine.
//   MUTATION_PROFILE=surface npm run mutate:judge
import base from './stryker.config.mjs';

/** profile → the module it mutates and the test files run against each mutant. */
export const profiles = {
  'client-cache': { mutate: 'src/cells/client-cache.ts', tests: ['test/cells/client-cache.test.ts', 'test/cells/cached-tool.test.ts'] },
  surface: { mutate: 'src/results/surface.ts', tests: ['test/results/surface.test.ts'] },
  'node-engines': { mutate: 'src/judge/node-engines.ts', tests: ['test/judge/node-engines.test.ts'] },
  'tool-schemas': { mutate: 'src/judge/tool-schemas.ts', tests: ['test/judge/tool-schemas.test.ts'] },
  'not-measured': { mutate: 'src/judge/not-measured.ts', tests: ['test/judge/not-measured.test.ts'] },
  'bind-share': { mutate: 'src/judge/bind-share.ts', tests: ['test/judge/bind-share.test.ts'] },
  'mutated-install': { mutate: 'src/judge/mutated-install.ts', tests: ['test/judge/mutated-install.test.ts'] },
  'runtime-sdk': { mutate: 'src/judge/runtime-sdk.ts', tests: ['test/judge/runtime-sdk.test.ts'] },
  secrets: { mutate: 'src/judge/secrets.ts', tests: ['test/judge/secrets.test.ts'] },
  'variant-environment': { mutate: 'src/judge/variant-environment.ts', tests: ['test/judge/*.test.ts'] },
  'spec-checks': { mutate: 'src/driver/spec-checks.ts', tests: ['test/driver/phases/spec-checks.test.ts'] },
  checks: { mutate: 'src/driver/checks.ts', tests: ['test/results/checks.test.ts', 'test/config/docs.test.ts'] },
  answering: { mutate: 'src/driver/answering.ts', tests: ['test/driver/answering.test.ts'] },
  'conformance-catalogue': { mutate: 'src/cells/conformance-catalogue.ts', tests: ['test/cells/conformance-catalogue.test.ts'] },
  'second-judge': { mutate: 'src/results/second-judge.ts', tests: ['test/results/second-judge.test.ts'] },
};

const name = process.env.MUTATION_PROFILE ?? '';
const profile = profiles[name];
if (!profile) throw new Error(`MUTATION_PROFILE must be one of: ${Object.keys(profiles).join(', ')} (got ${JSON.stringify(name)})`);
// Read by vitest.stryker.judge.config.ts in Stryker's test-runner processes, which inherit this environment.
process.env.MUTATION_TESTS = JSON.stringify(profile.tests);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: [profile.mutate],
  vitest: { configFile: 'vitest.stryker.judge.config.ts', related: false },
  concurrency: 1,
  // Unit tests of one module run in seconds: a mutant that loops is cut after 15 s, not the base config's minute.
  timeoutMS: 15_000,
  incrementalFile: `reports/mutation/stryker-incremental-${name}.json`,
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
};
