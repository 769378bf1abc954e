import { defineConfig } from 'vitest/config';

// What `npm run mutate:net` runs against each mutant: the tests of the bind and http phases, of
// listen-watch and of start-failure (in-process phases against real servers, and table tests).
export default defineConfig({
  test: {
    include: [
      'test/driver/phases/bind.test.ts',
      'test/driver/phases/http.test.ts',
      'test/driver/listen-watch.test.ts',
      'test/driver/listen-watch.no-proc.test.ts',
      'test/driver/start-failure.test.ts',
    ],
    testTimeout: 20_000,
  },
});
