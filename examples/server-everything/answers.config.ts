// Answer parity of @modelcontextprotocol/server-everything@2026.8.31 across both ends of its declared SDK
// range (^1.30.0): the same calls must give the same answers (content types, an image's mimeType,
// annotations, embedded resources, structuredContent, isError) on 1.30.0 and the latest 1.x.
// Ground truth, established without mcp-matrix: ./ANSWERS.md.
//
// Run it:   npm pack @modelcontextprotocol/server-everything@2026.8.31    (in this folder)
//           npx mcp-matrix run --config examples/server-everything/answers.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './modelcontextprotocol-server-everything-2026.8.31.tgz',
  cells: [
    { pin: 'floor@1', role: 'lowest 1.x the package declares' },
    { pin: 'latest@1', role: 'latest 1.x' },
  ],
  stdio: {
    steps: [
      { tool: 'echo', arguments: { message: 'hello matrix' }, expect: { text: 'Echo: hello matrix' } },
      { tool: 'get-tiny-image', arguments: {} },
      { tool: 'get-annotated-message', arguments: { messageType: 'error', includeImage: true } },
      // The embedded resource's text carries the time the server created it ("created at 8:38:26 PM"):
      // declared as varying, so parity compares its uri and mimeType and not that text (ANSWERS.md).
      { tool: 'get-resource-reference', arguments: { resourceType: 'Text', resourceId: 1 }, vary: ['content[1].resource.text'] },
      { tool: 'get-structured-content', arguments: { location: 'New York' } },
      { resource: 'demo://resource/static/document/features.md', expect: { text: '# Everything Server - Features' } },
      { prompt: 'args-prompt', arguments: { city: 'Paris' }, expect: { messages: 1, text: "What's weather in Paris?" } },
    ],
  },
  // Answers are what this config is about: the other phases are covered by ./matrix.config.ts.
  http: false,
  bind: false,
  conformance: false,
  leaks: { graceMs: 10_000 },
});
