// A scratch MCP server package, as an author would have it: SDK 1.x, stdio only (or, with `http`, a
// Streamable HTTP transport behind a bearer token), written into a temp directory for init and quick-start tests.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const STDIO = `#!/usr/bin/env node
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

export function build() {
  const server = new McpServer({ name: 'scratch-notes', version: '0.1.0' });
  server.registerTool('shout', { description: 'Upper-case a text', inputSchema: { text: z.string(), times: z.number().optional() } }, async ({ text }) => ({
    content: [{ type: 'text', text: text.toUpperCase() }],
  }));
  server.registerTool('count_notes', { description: 'How many notes there are' }, async () => ({ content: [{ type: 'text', text: '2' }] }));
  server.registerResource('note', new ResourceTemplate('scratch://notes/{id}', { list: undefined }), { description: 'A note' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, text: 'note ' + id }],
  }));
  server.registerPrompt('summarize', { description: 'Summarize a note', argsSchema: { id: z.string() } }, ({ id }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'Summarize note ' + id } }],
  }));
  return server;
}
`;

const STDIO_MAIN = `
if (!process.argv.includes('--transport')) {
  await build().connect(new StdioServerTransport());
  process.stdin.once('end', () => process.exit(0));
}
`;

const HTTP_MAIN = `
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const { values: opts } = parseArgs({ options: { transport: { type: 'string', default: 'stdio' }, listen: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '0' } } });
if (opts.transport === 'web') {
  const token = process.env.NOTES_TOKEN || undefined;
  if (!token && !/^(127\\.|::1$|localhost$)/.test(opts.listen)) {
    console.error('scratch-notes: refusing to listen on ' + opts.listen + ' without NOTES_TOKEN');
    process.exit(2);
  }
  const http = createServer(async (req, res) => {
    if (token && req.headers.authorization !== 'Bearer ' + token) {
      res.writeHead(401, { 'www-authenticate': 'Bearer realm="notes"' }).end();
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(opts.port), opts.listen);
  process.once('SIGTERM', () => {
    http.close(() => process.exit(0));
    http.closeAllConnections();
  });
}
`;

/** `dir/<name>`: package.json (SDK range in dependencies, as most servers declare it) and bin/server.js. */
export async function writeScratchServer(dir: string, options: { http?: boolean; range?: string } = {}): Promise<string> {
  const pkg = path.join(dir, 'scratch-notes');
  await mkdir(path.join(pkg, 'bin'), { recursive: true });
  await writeFile(
    path.join(pkg, 'package.json'),
    JSON.stringify(
      {
        name: 'scratch-notes',
        version: '0.1.0',
        type: 'module',
        bin: { 'scratch-notes': './bin/server.js' },
        files: ['bin/'],
        dependencies: { '@modelcontextprotocol/sdk': options.range ?? '^1.23.0', zod: '^4.2.0' },
      },
      null,
      2,
    ),
  );
  await writeFile(path.join(pkg, 'bin/server.js'), STDIO + STDIO_MAIN + (options.http ? HTTP_MAIN : ''), { mode: 0o755 });
  return pkg;
}
