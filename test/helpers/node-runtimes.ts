import os from 'node:os';
import path from 'node:path';

/** One Node runtime cache for every test run on this machine: each release is downloaded at most once. */
export const TEST_NODE_CACHE = path.join(os.tmpdir(), 'mm-node-runtimes');

/** One client-install cache for every test run on this machine (MCP_MATRIX_CLIENT_CACHE): each client is installed once a week. */
export const TEST_CLIENT_CACHE = path.join(os.tmpdir(), 'mm-client-installs');

/** One tree cache for every test run on this machine (MCP_MATRIX_TREE_CACHE, install reuse), never the user's own. */
export const TEST_TREE_CACHE = path.join(os.tmpdir(), 'mm-tree-cache');
