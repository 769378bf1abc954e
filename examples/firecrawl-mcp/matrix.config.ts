// firecrawl-mcp@3.26.0, as published on npm: a server built on a framework. It declares no SDK range of its
// own: its dependency fastmcp@4.3.2 (exact) declares "@modelcontextprotocol/sdk": "^1.24.3", and npm dedupes
// that to the cell's pin. The package's claim is the framework's range, which the harness finds from the
// manifests (no name is special). Ground truth, established without mcp-matrix: ./GROUND-TRUTH.md.
//
// Without FIRECRAWL_API_KEY or FIRECRAWL_API_URL it starts in keyless mode; listing the tools needs no network.
//
// Run it:   npm pack firecrawl-mcp@3.26.0    (in this folder)
//           npx mcp-matrix run --config examples/firecrawl-mcp/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './firecrawl-mcp-3.26.0.tgz',
  // floor@1 is the lowest 1.x the chain admits: firecrawl-mcp → fastmcp@4.3.2 → ^1.24.3, so 1.24.3.
  cells: [{ pin: 'floor@1', role: 'lowest 1.x its framework (fastmcp 4.3.2) admits' }],
  stdio: {
    // Its start-up reads a large bundle: give it room on a loaded machine.
    timeoutMs: 60_000,
    expect: { tools: 27, resources: 0, resourceTemplates: 0, prompts: 0 },
  },
  // Its HTTP mode needs a Firecrawl API URL or credentials: stdio only here.
  http: false,
  bind: false,
  leaks: { graceMs: 10_000 },
  // One cell: lockstep warns that latest 1.x is not covered, naming the range claimed through fastmcp.
  lockstep: 'warn',
});
