// @modelcontextprotocol/server-everything@2026.8.31, as published on npm: stdio by default and Streamable
// HTTP with `streamableHttp`, WITHOUT any authentication; built with tsc against @modelcontextprotocol/sdk
// "^1.30.0". Ground truth, established without mcp-matrix: ./GROUND-TRUTH.md.
//
// Run it:   npm pack @modelcontextprotocol/server-everything@2026.8.31    (in this folder)
//           npx mcp-matrix run --config examples/server-everything/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './modelcontextprotocol-server-everything-2026.8.31.tgz',
  // One cell keeps the project's own test group short; a release job would add floor@1.
  cells: [{ pin: 'latest@1', role: 'latest 1.x' }],
  stdio: {
    // The tool list depends on the client: get-roots-list appears only for a client that declares `roots`
    // (see `client` below), the sampling / elicitation tools only for clients that declare those.
    expect: {
      tools: [
        'echo',
        'get-annotated-message',
        'get-env',
        'get-resource-links',
        'get-resource-reference',
        'get-structured-content',
        'get-sum',
        'get-tiny-image',
        'gzip-file-as-resource',
        'toggle-simulated-logging',
        'toggle-subscriber-updates',
        'trigger-long-running-operation',
        'get-roots-list',
        'simulate-research-query',
      ],
      prompts: ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt'],
      resources: 7,
      resourceTemplates: 2,
    },
    steps: [
      // The first tool step is also the HTTP phase's round-trip call.
      { tool: 'echo', arguments: { message: 'hello matrix' }, expect: { text: 'Echo: hello matrix', isError: false } },
      { tool: 'get-sum', arguments: { a: 2, b: 3 }, expect: { text: 'The sum of 2 and 3 is 5.' } },
      // Answers with what the client gave in roots/list: the cell's own scratch directory.
      { tool: 'get-roots-list', arguments: {}, expect: { text: 'Current MCP Roots (1 total)' } },
      { resource: 'demo://resource/static/document/features.md', expect: { text: '# Everything Server - Features' } },
      { prompt: 'args-prompt', arguments: { city: 'Paris' }, expect: { messages: 1, text: "What's weather in Paris?" } },
    ],
  },
  // The driver's client declares `roots` and answers the server's roots/list request (sent right after
  // initialization) with one root: a scratch directory of its own per cell.
  client: { roots: [{ uri: 'file://{tmp}' }] },
  http: {
    // The transport is a positional argument; the port comes from PORT. There is no host option: it
    // listens on every interface (`*:PORT`), and there is no token to give it.
    args: ['streamableHttp'],
    env: { PORT: '{port}' },
    path: '/mcp',
    // No auth by design: the 401 sub-checks are skipped (shown as "no auth", never as ok); the round trip
    // (initialize, list, the first tool step, ping, session DELETE) still runs.
    auth: 'none',
  },
  // Started the same way without a token, it listens on the wildcard address again: the bind phase
  // reports that (it is the truth: this server exposes itself on every interface).
  bind: { args: ['streamableHttp'], env: { PORT: '{port}' } },
  // stdio: exits on stdin EOF (~0.2 s). HTTP: no SIGTERM handler, so the default action ends it at once.
  leaks: { graceMs: 10_000 },
  lockstep: 'off', // one cell on purpose: the floor of "^1.30.0" is left out of this short run
});
