// @notionhq/notion-mcp-server@2.5.2, as published on npm: stdio by default, Streamable HTTP with
// `--transport http`, guarded by a bearer token (`--auth-token` or AUTH_TOKEN; generated when neither is
// given). It declares @modelcontextprotocol/sdk "^1.29.0", but its bin (bin/cli.mjs) is an esbuild bundle
// that carries its own copy of the SDK. Ground truth, established without mcp-matrix: ./GROUND-TRUTH.md.
//
// Listing tools needs no Notion account: the tools are generated from the OpenAPI file inside the bundle.
// Calling one reaches api.notion.com, so this config runs no tool step (a test must not need the network).
//
// Run it:   npm pack @notionhq/notion-mcp-server@2.5.2    (in this folder)
//           npx mcp-matrix run --config examples/notion-mcp-server/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './notionhq-notion-mcp-server-2.5.2.tgz',
  cells: [{ pin: 'latest@1', role: 'latest 1.x' }],
  // The bind start below writes a token file to the temp dir and never removes it: {tmp} is a fresh
  // scratch directory per cell, removed with the cell, so nothing is left in the machine's /tmp.
  env: { TMPDIR: '{tmp}' },
  stdio: {
    expect: {
      tools: 24,
      // It advertises only the tools capability.
      resources: 0,
      resourceTemplates: 0,
      prompts: 0,
    },
  },
  http: {
    // The harness picks the port and a random token; the server takes the token from AUTH_TOKEN and
    // honours --host (its default is 127.0.0.1 anyway).
    args: ['--transport', 'http', '--host', '{host}', '--port', '{port}'],
    env: { AUTH_TOKEN: '{token}' },
    path: '/mcp',
  },
  // The same start on 0.0.0.0 without AUTH_TOKEN (dropped because its value holds {token}): the server
  // does not refuse, it generates a token of its own, writes it to $TMPDIR/.notion-mcp-auth-token-<pid>
  // (left behind after SIGTERM, hence TMPDIR above) and listens on 0.0.0.0 with that token required.
  bind: { args: ['--transport', 'http', '--host', '0.0.0.0', '--port', '{port}'] },
  // stdio: exits on stdin EOF (~0.4 s). HTTP: no SIGTERM handler, the default action ends it.
  leaks: { graceMs: 10_000 },
  lockstep: 'off', // one cell on purpose: the floor of "^1.29.0" is left out of this short run
});
