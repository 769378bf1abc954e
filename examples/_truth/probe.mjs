// Independent ground truth for examples/*: the plain SDK client, none of mcp-matrix's code.
//   node examples/_truth/probe.mjs stdio <command> [args…]     (env passes through)
//   node examples/_truth/probe.mjs http <url> [bearer-token]
// TRUTH_CALL='{"name":"t","arguments":{}}' also calls that tool and prints the result.
// TRUTH_ROOTS='file:///a file:///b' declares the roots capability, answers roots/list with them and
// prints the server→client requests it saw.
// Prints one JSON object: server info, negotiated protocol, capabilities, names of every
// tool / prompt / resource / resource template (every page, only advertised capabilities), ping.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [mode, target, ...rest] = process.argv.slice(2);
const transport =
  mode === 'stdio'
    ? new StdioClientTransport({ command: target, args: rest, env: process.env, stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(target), {
        requestInit: rest[0] ? { headers: { Authorization: `Bearer ${rest[0]}` } } : {},
      });
// The client hands the negotiated version to the transport: record it on the way.
let negotiated;
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => ((negotiated = v), setVersion?.(v));
const roots = process.env.TRUTH_ROOTS?.split(' ').map((uri) => ({ uri }));
const client = new Client({ name: 'ground-truth', version: '1.0.0' }, roots ? { capabilities: { roots: {} } } : {});
const serverRequests = [];
if (roots) client.setRequestHandler(ListRootsRequestSchema, () => (serverRequests.push('roots/list'), { roots }));
await client.connect(transport);
const caps = client.getServerCapabilities() ?? {};
async function all(list, key) {
  const out = [];
  let cursor;
  do {
    const page = await list(cursor ? { cursor } : {});
    out.push(...page[key].map((x) => x.name ?? x.uriTemplate ?? x.uri));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
const truth = {
  server: client.getServerVersion(),
  protocolVersion: negotiated,
  capabilities: Object.keys(caps),
  tools: caps.tools ? await all((p) => client.listTools(p), 'tools') : null,
  prompts: caps.prompts ? await all((p) => client.listPrompts(p), 'prompts') : null,
  resources: caps.resources ? await all((p) => client.listResources(p), 'resources') : null,
  resourceTemplates: caps.resources ? await all((p) => client.listResourceTemplates(p), 'resourceTemplates') : null,
  call: process.env.TRUTH_CALL ? await client.callTool(JSON.parse(process.env.TRUTH_CALL)).catch((e) => String(e)) : undefined,
  serverRequests: roots ? serverRequests : undefined,
  ping: await client.ping().then(
    () => 'ok',
    (e) => String(e),
  ),
};
for (const k of ['tools', 'prompts', 'resources', 'resourceTemplates']) if (truth[k]) truth[`${k}Count`] = truth[k].length;
console.log(JSON.stringify(truth, null, 2));
await client.close();
