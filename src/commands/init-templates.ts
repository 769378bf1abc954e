// The two files `mcp-matrix init` writes, as text: a matrix.config.ts and a GitHub workflow.
import type { InitPlan } from './init.js';

const q = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The matrix.config.ts init writes: valid as written, with TODOs where only the author knows the answer. */
export function renderConfig(plan: InitPlan): string {
  const declared = Object.entries(plan.ranges)
    .map(([n, r]) => `${n} "${r}"`)
    .join(' · ');
  const cells = plan.majors.flatMap((m) => [
    `    { pin: 'floor@${m}', role: 'lower supported boundary (${m}.x)' },`,
    `    { pin: 'latest@${m}', role: 'latest supported ${m}.x' },`,
  ]);
  const binNote =
    plan.otherBins.length > 0
      ? `  // The package has other bins too (${plan.otherBins.join(', ')}): name the one that starts the MCP server.\n`
      : '';
  return `// The acceptance matrix of ${plan.name || 'this package'}: the packed package, installed as a user installs it, on every
// SDK version package.json claims to support. Written by \`mcp-matrix init\`; edit freely.
// Declared SDK ranges: ${declared}.
//   npx mcp-matrix plan             what would run (pins resolved against the registry; installs nothing)
//   npx mcp-matrix run              every cell; results in matrix-results/
//   npx mcp-matrix run --cell ID    one cell
import { defineConfig } from 'mcp-matrix';

export default defineConfig({
  // The directory to \`npm pack\` (relative to this file). Every cell installs the packed tarball.
  package: '.',
${binNote}  bin: ${q(plan.bin)},
  // One cell per SDK pin: an exact version ('1.24.0'), latest@N, or floor@N (the lowest version your
  // declared range admits). The lockstep check keeps the cells and package.json's ranges together:
  // when you raise or widen a range, move these cells with it.
  cells: [
${cells.join('\n')}
  ],
  // stdio: the bin is started with these args and env; initialize, list everything, run the steps, ping, close stdin.
  stdio: {
    // Arguments and environment your server needs to start (a data directory, a sandbox API key, ...).
    args: [],
    env: {},
    // TODO: what the server must advertise: a count (tools: 5) or the exact names (tools: ['search', 'fetch']).
    // Also resources, resourceTemplates and prompts. Left empty, the counts are recorded but not checked.
    expect: {},
    // TODO: scripted calls with expectations, run in order on one session, for example:
    //   { tool: 'search', arguments: { query: 'x' }, expect: { text: 'found' } },
    //   { tool: 'search', arguments: { query: '' }, expect: { isError: true } },
    //   { resource: 'notes://1', expect: { text: 'Welcome' } },
    //   { prompt: 'summarize', arguments: { id: '1' }, expect: { messages: 1 } },
    steps: [],
  },
  // Streamable HTTP behind a bearer token: unauthenticated and wrong-token requests must get 401 with
  // WWW-Authenticate: Bearer; the right token gets a full round trip. {host}, {port} and {token} are
  // filled in by the harness. Change the args/env to how your server is told its transport, host, port
  // and token, or set \`http: false\` if it has no HTTP transport (reported as not applicable).
  http: {
    args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
    env: { MCP_SERVER_TOKEN: '{token}' },
    path: '/mcp',
  },
  // Started on a non-loopback host without a token: the server must refuse (exit non-zero) without ever
  // listening. Use the same flags as http; set \`bind: false\` if it has no HTTP transport.
  bind: {
    args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'],
  },
  // Every server process must exit by itself (stdin EOF, SIGTERM) within graceMs and leave nothing behind.
  leaks: { graceMs: 10_000 },
});
`;
}

/** The workflow init writes: the required release job, inline (plan → pack once → one job per cell → merge). */
export function renderWorkflow(): string {
  return `# The required release job: mcp-matrix plan → npm pack once → one job per SDK cell → merge (the gate).
# Written by \`mcp-matrix init\`. Make the "mcp-matrix" check required in the branch protection rules.
# Locally, the same sequence: npx mcp-matrix plan --json; npm pack; npx mcp-matrix run --cell ID --tarball FILE; npx mcp-matrix merge.
name: mcp-matrix

on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

env:
  CONFIG: matrix.config.ts

jobs:
  plan:
    runs-on: ubuntu-latest
    outputs:
      matrix: \${{ steps.plan.outputs.matrix }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - id: plan
        run: |
          npx --no-install mcp-matrix plan --json --config "$CONFIG" > plan.json
          echo "matrix=$(node -p 'JSON.stringify({ include: require("./plan.json").include })')" >> "$GITHUB_OUTPUT"

  pack:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - run: |
          mkdir -p package-tarball
          npm pack --pack-destination package-tarball
      - uses: actions/upload-artifact@v4
        with:
          name: package-tarball
          path: package-tarball/*.tgz
          if-no-files-found: error

  cell:
    name: cell \${{ matrix.id }} (\${{ matrix.version }})
    needs: [plan, pack]
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix: \${{ fromJSON(needs.plan.outputs.matrix) }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - uses: actions/download-artifact@v4
        with:
          name: package-tarball
          path: package-tarball
      - env:
          CELL: \${{ matrix.id }}
        run: npx --no-install mcp-matrix run --config "$CONFIG" --cell "$CELL" --tarball "$(ls package-tarball/*.tgz)" --out "cell-results/$CELL" --progress simple
      - if: always()
        uses: actions/upload-artifact@v4
        with:
          name: mcp-matrix-cell-\${{ matrix.id }}
          path: cell-results/\${{ matrix.id }}

  merge:
    name: mcp-matrix
    needs: [plan, cell]
    if: always()
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - uses: actions/download-artifact@v4
        with:
          pattern: mcp-matrix-cell-*
          path: cell-results
      # The gate: a planned cell without results (or one from another plan) fails here.
      - run: npx --no-install mcp-matrix merge cell-results/*/results.json --out matrix-results
      - if: always()
        uses: actions/upload-artifact@v4
        with:
          name: mcp-matrix-results
          path: matrix-results
`;
}
