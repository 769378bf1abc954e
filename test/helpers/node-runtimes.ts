// The caches every test run on this machine shares (each filled once, never the user's own): under
// `${XDG_CACHE_HOME:-~/.cache}/mcp-matrix-tests`, beside where the harness keeps a user's caches, so an empty
// XDG_CACHE_HOME is a fresh machine for the tests as for the harness (the npm cache aside).
import os from 'node:os';
import path from 'node:path';

/** The root of the test caches. */
export const TEST_CACHE_ROOT = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mcp-matrix-tests');

/** One Node runtime cache for every test run on this machine: each release is downloaded at most once. */
export const TEST_NODE_CACHE = path.join(TEST_CACHE_ROOT, 'node-runtimes');

/** One client-install cache for every test run on this machine (MCP_MATRIX_CLIENT_CACHE): each client is installed once a week. */
export const TEST_CLIENT_CACHE = path.join(TEST_CACHE_ROOT, 'client-installs');

/** One tree cache for every test run on this machine (MCP_MATRIX_TREE_CACHE, install reuse), never the user's own. */
export const TEST_TREE_CACHE = path.join(TEST_CACHE_ROOT, 'trees');

/** One config-transpile cache for every test run on this machine (MCP_MATRIX_CONFIG_CACHE), never the user's own. */
export const TEST_CONFIG_CACHE = path.join(TEST_CACHE_ROOT, 'configs');

/** pnpm's store for the strict legs' tests: one store, so every strict cell after the first installs from it. */
export const TEST_PNPM_STORE = path.join(TEST_CACHE_ROOT, 'pnpm-store');

/** Yarn's global folder (its cache) for the yarn-pnp legs' tests: every Yarn cell after the first installs from it. */
export const TEST_YARN_CACHE = path.join(TEST_CACHE_ROOT, 'yarn');

/** Published MCP server tarballs (test/e2e/helpers/published.ts). */
export const TEST_PUBLISHED_CACHE = path.join(TEST_CACHE_ROOT, 'published-tarballs');

/**
 * The harness's per-user caches pointed at the test caches, for every CLI process a test starts: without them a
 * run fills the user's own (`~/.cache/mcp-matrix`), and on a fresh machine installs again what the test caches hold
 * (the conformance suite and its Node 22, for one). MM_TEST_TREE_CACHE=off: every cell a plain npm install.
 */
export const TEST_CACHE_ENV: Record<string, string> = {
  MCP_MATRIX_CLIENT_CACHE: TEST_CLIENT_CACHE,
  MCP_MATRIX_NODE_CACHE: TEST_NODE_CACHE,
  MCP_MATRIX_TREE_CACHE: process.env.MM_TEST_TREE_CACHE ?? TEST_TREE_CACHE,
  MCP_MATRIX_CONFIG_CACHE: TEST_CONFIG_CACHE,
  MCP_MATRIX_PNPM_STORE: TEST_PNPM_STORE,
  MCP_MATRIX_YARN_CACHE: TEST_YARN_CACHE,
  // npm's own cache, as the test run has it (npx and npm scripts set it): the minimal environment of a CLI process would
  // drop it, and a run measured with a new npm cache would still take ~/.npm's in every cell.
  ...(process.env.npm_config_cache ? { npm_config_cache: process.env.npm_config_cache } : {}),
};
