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
    expect: { tools: 6, resourceTemplates: 2, prompts: 2 },
    steps: [],
  },
  http: {
    args: ['--transport', 'streamable-http', '--host', '{host}', '--port', '{port}'],
    env: { MCP_SERVER_TOKEN: '{token}' },
    path: '/mcp',
  },
  bind: { args: ['--transport', 'streamable-http', '--host', '0.0.0.0', '--port', '{port}'] },
  leaks: { graceMs: 10_000 },
});
