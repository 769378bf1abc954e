import { defineConfig } from 'vitest/config';

// What a judging module's mutation profile (stryker.judge.config.mjs) runs against each mutant: that module's
// own unit tests, named by the profile through MUTATION_TESTS.
const tests = JSON.parse(process.env.MUTATION_TESTS ?? '[]') as string[];
if (!tests.length) throw new Error('MUTATION_TESTS is not set: run through stryker.judge.config.mjs (MUTATION_PROFILE=<name>)');

export default defineConfig({
  test: {
    include: tests,
    exclude: ['**/node_modules/**', '.stryker-tmp/**', 'reports/**'],
    testTimeout: 20_000,
  },
});
