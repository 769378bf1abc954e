// @modelcontextprotocol/server-memory@2026.8.31, as published on npm: a stdio-only server (no HTTP
// transport at all), built with tsc against @modelcontextprotocol/sdk "^1.30.0".
// Ground truth, established without mcp-matrix: ./GROUND-TRUTH.md.
//
// Run it:   npm pack @modelcontextprotocol/server-memory@2026.8.31    (in this folder)
//           npx mcp-matrix run --config examples/server-memory/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  // A published package is tested from its registry tarball: the bytes users install.
  tarball: './modelcontextprotocol-server-memory-2026.8.31.tgz',
  cells: [
    // "^1.30.0" admits 1.30.0 … latest 1.x: test both ends of the declared range.
    { pin: 'floor@1', role: 'lowest 1.x the package declares' },
    { pin: 'latest@1', role: 'latest 1.x' },
    // The same tarball and pin, installed as a pnpm user with hoist=false installs it (GROUND-TRUTH.md, "Undeclared import").
    { pin: 'latest@1', role: 'latest 1.x, strict install', install: 'pnpm-strict' },
    // And as a Yarn Plug'n'Play user installs it (GROUND-TRUTH.md, "Under Yarn PnP").
    { pin: 'latest@1', role: 'latest 1.x, Yarn PnP', install: 'yarn-pnp' },
  ],
  stdio: {
    // No args: stdio is its only transport. The knowledge graph lives in MEMORY_FILE_PATH; by default it
    // is memory.jsonl beside dist/index.js, i.e. inside each cell's own node_modules, so cells running in
    // parallel never share state and nothing is written outside the cell.
    expect: {
      // Exact name lists, not counts: a renamed or dropped tool fails the cell.
      tools: [
        'create_entities',
        'create_relations',
        'add_observations',
        'delete_entities',
        'delete_observations',
        'delete_relations',
        'read_graph',
        'search_nodes',
        'open_nodes',
      ],
      resources: ['memory://knowledge-graph'],
      resourceTemplates: 0,
      // No prompts capability: an expectation of 0 holds (the harness lists only advertised capabilities).
      prompts: 0,
    },
    steps: [
      {
        tool: 'create_entities',
        arguments: { entities: [{ name: 'mcp-matrix', entityType: 'tool', observations: ['tested by mcp-matrix'] }] },
        expect: { text: '"name": "mcp-matrix"', isError: false },
      },
      { tool: 'search_nodes', arguments: { query: 'mcp-matrix' }, expect: { text: 'tested by mcp-matrix' } },
      { resource: 'memory://knowledge-graph', expect: { text: 'tested by mcp-matrix' } },
      // read_graph takes no arguments and this step gives none: with `client.noArguments: 'omit'` below the
      // request carries no `arguments` field at all. The spec allows that and SDK 1.32 accepts it, but SDK
      // 1.30.0–1.31.x reject it ("expected object, received undefined"): this step is what tells the
      // floor@1 cell from the latest@1 one (see GROUND-TRUTH.md).
      { tool: 'read_graph', expect: { text: 'tested by mcp-matrix', isError: false } },
    ],
  },
  // The default, 'empty', sends `arguments: {}` (what most hosts send) and would pass on both cells;
  // 'omit' tests what the spec allows, and so finds the floor's SDK defect.
  client: { noArguments: 'omit' },
  // stdio-only: no HTTP transport, hence nothing to bind either. `false` shows as n/a, never as passed.
  http: false,
  bind: false,
  // It exits on stdin EOF within ~0.2 s (GROUND-TRUTH.md); the default grace is ample.
  leaks: { graceMs: 10_000 },
  // The declared range ^1.30.0 and the cells agree; keep lockstep on so a new 1.x floor would be noticed.
  lockstep: 'error',
});
