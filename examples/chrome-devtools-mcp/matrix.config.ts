// chrome-devtools-mcp@1.11.0, as published on npm: a stdio-only server whose build is a bundle. It
// declares no SDK dependency at all: build/src/third_party/index.js (Rollup) carries its own copy of
// @modelcontextprotocol/server 2.3.1 (its devDependency). Whatever SDK a cell installs next to it, the
// server never loads it. Ground truth, established without mcp-matrix: ./GROUND-TRUTH.md.
//
// No Chrome is needed to list the tools; a tool that needs the browser answers with isError.
//
// Run it:   npm pack chrome-devtools-mcp@1.11.0    (in this folder)
//           npx mcp-matrix run --config examples/chrome-devtools-mcp/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './chrome-devtools-mcp-1.11.0.tgz',
  // Two bins (chrome-devtools-mcp and the chrome-devtools CLI): name the server.
  bin: 'chrome-devtools-mcp',
  // The SDK version its bundle was built with. The cell installs it beside the package, unused.
  cells: [{ pin: '2.3.1', role: 'the 2.x version bundled into the build' }],
  env: {
    // Otherwise, once a day (keyed by ~/.cache/chrome-devtools-mcp/latest.json), it spawns a DETACHED
    // child (own session and process group) that asks the registry for the latest version and outlives
    // the server: a real escaped descendant, but a run-to-run lottery for a test. Turned off here.
    CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1',
  },
  stdio: {
    // --no-usage-statistics: no telemetry watchdog (another detached child, and network).
    // --isolated: a temporary profile instead of ~/.cache/chrome-devtools-mcp/chrome-profile in the user's HOME.
    // --executablePath: a browser that does not exist, so a browser tool fails the same way on every
    // machine (with or without Chrome installed) and never reaches the network.
    args: ['--no-usage-statistics', '--isolated', '--executablePath', '/nonexistent/chrome'],
    expect: { tools: 32, resources: 0, resourceTemplates: 0, prompts: 0 },
    steps: [
      {
        tool: 'list_pages',
        arguments: {},
        expect: { isError: true, text: 'Browser was not found at the configured executablePath (/nonexistent/chrome)' },
      },
    ],
  },
  // No HTTP transport.
  http: false,
  bind: false,
  // It exits on stdin EOF (~1–1.5 s).
  leaks: { graceMs: 10_000 },
  lockstep: 'off', // it declares no SDK range: there is nothing for lockstep to compare
});
