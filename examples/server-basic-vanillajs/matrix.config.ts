// @modelcontextprotocol/server-basic-vanillajs@2.0.3, as published on npm: an MCP Apps example server
// (one tool, one ui:// resource) that depends on the 2.x SDK only: "@modelcontextprotocol/server",
// "client", "node" and "express" all at exactly "2.0.0", no @modelcontextprotocol/sdk. Its bin
// (dist/index.js) and dist/server.js are Bun bundles that each carry their own copy of the SDK.
// Ground truth, established without mcp-matrix: ./GROUND-TRUTH.md.
//
// Run it:   npm pack @modelcontextprotocol/server-basic-vanillajs@2.0.3    (in this folder)
//           npx mcp-matrix run --config examples/server-basic-vanillajs/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './modelcontextprotocol-server-basic-vanillajs-2.0.3.tgz',
  // The package pins exactly 2.0.0: that is the only 2.x version whose cell holds a single copy of each
  // SDK package (any other pin nests the package's own 2.0.0 copies under it).
  cells: [{ pin: '2.0.0', role: 'the exact 2.x version the package declares' }],
  stdio: {
    // HTTP is its default transport; --stdio selects stdio.
    args: ['--stdio'],
    expect: { tools: ['get-time'], resources: ['ui://get-time/mcp-app.html'], resourceTemplates: 0, prompts: 0 },
    // get-time takes no arguments; it answers with the current time (text and structuredContent.time).
    steps: [{ tool: 'get-time', expect: { isError: false } }],
  },
  http: {
    // No host option and no token: PORT only, and it listens on every interface (`*:PORT`), stateless.
    args: [],
    env: { PORT: '{port}' },
    path: '/mcp',
    // No auth by design: the 401 sub-checks are skipped (shown as "no auth", never as ok); the round trip
    // (initialize, list, the first tool step, ping, session DELETE) still runs.
    auth: 'none',
  },
  // The same start: it listens on the wildcard address again, which the bind phase reports.
  bind: { args: [], env: { PORT: '{port}' } },
  // stdio: exits on stdin EOF (~0.7 s). HTTP: a SIGTERM handler closes the server and exits 0.
  leaks: { graceMs: 10_000 },
  lockstep: 'off', // the package admits one 2.x version; there is no range to cover
});
