import { defineConfig } from 'vitest/config';

// What `stryker.listen-watch.config.mjs` runs against each mutant of listen-watch.ts: its own tests only.
// Every phase test reaches listen-watch too, but each starts real servers: a surviving mutant would rerun
// tens of them (docs/testing.md, "listen-watch.ts").
export default defineConfig({
  test: {
    include: ['test/driver/listen-watch.test.ts', 'test/driver/listen-watch.no-proc.test.ts'],
    exclude: ['**/node_modules/**', '.stryker-tmp/**', 'reports/**'],
    testTimeout: 20_000,
  },
});
