// @upstash/context7-mcp@4.1.1, as published on npm: a documentation server (two tools) on the 2.x SDK
// ("@modelcontextprotocol/server" and "node" at exactly "2.0.0"). Besides stdio and an API-key HTTP endpoint
// (/mcp), it has an OAuth resource-server endpoint, /mcp/oauth: JWT access tokens checked with jose against
// the authorization server named by OAUTH_AUTH_SERVER_URL (issuer) and OAUTH_JWKS_URL, and Protected
// Resource Metadata (RFC 9728) naming RESOURCE_URL. That endpoint is what this config measures, with the
// harness's own local authorization server (`auth: 'oauth'`).
// Ground truth, established without mcp-matrix: ./GROUND-TRUTH.md.
//
// Run it:   npm pack @upstash/context7-mcp@4.1.1    (in this folder)
//           npx mcp-matrix run --config examples/context7-mcp/matrix.config.ts
import { defineConfig } from '../../src/index.js';

export default defineConfig({
  tarball: './upstash-context7-mcp-4.1.1.tgz',
  // The package pins exactly 2.0.0: the only 2.x version whose cell holds one copy of each SDK package.
  cells: [{ pin: '2.0.0', role: 'the exact 2.x version the package declares' }],
  stdio: {
    // stdio is its default transport. Its tools call the context7.com API, which a test machine may not
    // reach: no tool step, the listing is what is compared.
    expect: { tools: ['resolve-library-id', 'query-docs'], resources: 0, resourceTemplates: 0, prompts: 0 },
  },
  http: {
    // No host option: it listens on every interface (`*:PORT`); the phase talks to it on 127.0.0.1.
    args: ['--transport', 'http', '--port', '{port}'],
    env: {
      OAUTH_AUTH_SERVER_URL: '{issuer}',
      OAUTH_JWKS_URL: '{jwksUri}',
      // What its metadata calls `resource`, and the origin its 401 challenge points resource_metadata at.
      RESOURCE_URL: '{audience}',
      // Otherwise its HTTP mode also serves Prometheus metrics on the fixed port 9464.
      OTEL_SDK_DISABLED: 'true',
    },
    path: '/mcp/oauth',
    auth: 'oauth',
  },
  // Not measured here: with no host option it always listens on every interface, and its other endpoint
  // (/mcp) takes any API key or none; the bind phase asks only http.path, so its message would tell half of it.
  bind: false,
  // conformance: on (it is on whenever http is): the suite runs through the harness's proxy with a valid JWT from the
  // run's authorization server (GROUND-TRUTH.md, "The conformance suite behind OAuth").
  // stdio: exits 0 about 2.5 s after stdin EOF. HTTP: exits 0 on SIGTERM within 50 ms.
  leaks: { graceMs: 10_000 },
  lockstep: 'off', // the package admits one 2.x version; there is no range to cover
});
