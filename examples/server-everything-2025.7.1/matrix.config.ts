// @modelcontextprotocol/server-everything@2025.7.1, as published on npm: an older release of the everything server,
// built against @modelcontextprotocol/sdk "^1.12.0". Its floor, SDK 1.12.0, speaks MCP 2025-03-26 at most, so the
// cell negotiates 2025-03-26: a revision without the MCP-Protocol-Version header (it arrived in 2025-06-18). The
// header check is `not applicable (revision 2025-03-26)` there, never failed. Ground truth, established without
// mcp-matrix (curl): ./GROUND-TRUTH.md.
//
// Run it:   npm pack @modelcontextprotocol/server-everything@2025.7.1    (in this folder)
//           npx mcp-matrix run --config examples/server-everything-2025.7.1/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './modelcontextprotocol-server-everything-2025.7.1.tgz',
  // The floor of "^1.12.0": SDK 1.12.0, whose client and server negotiate 2025-03-26.
  cells: [{ pin: 'floor@1', role: 'lower supported boundary' }],
  stdio: {
    steps: [{ tool: 'echo', arguments: { message: 'hello matrix' }, expect: { text: 'Echo: hello matrix' } }],
  },
  http: {
    // The transport is a positional argument, the port comes from PORT; no host option, no auth.
    args: ['streamableHttp'],
    env: { PORT: '{port}' },
    path: '/mcp',
    auth: 'none',
  },
  // Its bind is the same as the current release's (every interface, examples/server-everything): not repeated here.
  bind: false,
  leaks: { graceMs: 10_000 },
  lockstep: 'off', // one cell on purpose: the floor is the subject
});
