import os from 'node:os';
import path from 'node:path';

/** One Node runtime cache for every test run on this machine: each release is downloaded at most once. */
export const TEST_NODE_CACHE = path.join(os.tmpdir(), 'mm-node-runtimes');

/** One client-install cache for every test run on this machine (MCP_MATRIX_CLIENT_CACHE): each client is installed once a week. */
export const TEST_CLIENT_CACHE = path.join(os.tmpdir(), 'mm-client-installs');
