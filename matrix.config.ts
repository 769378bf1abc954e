// The project's own matrix: the bundled reference server on its declared 1.x floor, the latest 1.x,
// a representative 2.x and the latest 2.x. `npm run matrix` runs it.
import { defineConfig } from './src/index.js';

export default defineConfig({
  package: './fixtures/reference-server',
  bin: 'reference-mcp-server',
  cells: [
    { pin: 'floor@1', role: 'lower supported boundary' },
    { pin: 'latest@1', role: 'latest supported 1.x' },
    { pin: '2.0.0', role: 'representative 2.x' },
    { pin: 'latest@2', role: 'latest supported 2.x' },
  ],
  stdio: {
    expect: {
      tools: ['add_note', 'get_note', 'list_notes', 'search_notes', 'delete_note', 'stats', 'wait'],
      resourceTemplates: 2,
      prompts: ['summarize_note', 'draft_note'],
    },
    steps: [
      {
        tool: 'add_note',
        arguments: { title: 'Matrix', body: 'written by mcp-matrix', tags: ['matrix'] },
        expect: { text: 'Created note-3' },
      },
      { tool: 'search_notes', arguments: { query: 'mcp-matrix' }, expect: { text: 'note-3' } },
      { tool: 'stats', expect: { structuredContent: { notes: 3 } } },
      { tool: 'search_notes', arguments: { query: 'x', limit: 0 }, expect: { isError: true, text: 'Invalid limit' } },
      // An image and an embedded resource: answer parity compares their types, mimeType, annotations and digests.
      { tool: 'get_note', arguments: { id: 'note-1', format: 'card' }, expect: { text: 'Welcome' } },
      { resource: 'notes://note-1', expect: { text: 'Welcome' } },
      { resource: 'notes://tag/matrix', expect: { text: 'note-3' } },
      { prompt: 'summarize_note', arguments: { id: 'note-1' }, expect: { messages: 1 } },
      { prompt: 'draft_note', arguments: { topic: 'release evidence' }, expect: { text: 'release evidence' } },
      // The call the lifecycle checks cancel in flight and send a second initialize beside (docs/phases.md).
      { tool: 'wait', arguments: { ms: 600 }, slow: true, expect: { text: 'Waited 600 ms' } },
    ],
  },
  http: {
    args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
    env: { MCP_SERVER_TOKEN: '{token}' },
    path: '/mcp',
  },
  bind: { args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'] },
  leaks: { graceMs: 10_000 },
  // The 1.x floor (1.23.0) lists prompt arguments without the zod 4 `.describe()` text that later 1.x
  // and 2.x carry: a measured SDK difference, not the server's. Every other surface field must match.
  surface: {
    allow: [
      { item: 'prompt draft_note', path: 'arguments[0].description' },
      { item: 'prompt summarize_note', path: 'arguments[0].description' },
    ],
  },
});
