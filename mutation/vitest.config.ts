import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { selectedProfile } from './profiles.mjs';

// What a mutation run runs against each mutant: its profile's unit tests (profiles.mjs). The repository's
// root, not this folder, is vitest's root: Stryker runs it in a sandbox copy of the whole checkout.
const { profile } = selectedProfile();

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: profile.tests,
    ...(profile.exclude ? { exclude: profile.exclude } : {}),
    testTimeout: 20_000,
  },
});
