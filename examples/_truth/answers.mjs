// Independent ground truth for answer parity (examples/*/ANSWERS.md): the plain SDK client, none of
// mcp-matrix's code. Starts a stdio server, makes each call of TRUTH_CALLS and prints every answer as
// it came over the wire (the JSON-RPC result or error, before the client parses it), one JSON object.
//   TRUTH_CALLS='[{"tool":"echo","arguments":{"message":"hi"}},{"resource":"demo://x"},{"prompt":"p"}]' \
//     node examples/_truth/answers.mjs <command> [args…]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
const calls = JSON.parse(process.env.TRUTH_CALLS ?? '[]');
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'ignore' });
const client = new Client({ name: 'ground-truth', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);
// Every message from the server, raw: the answer to a call is the last one carrying its id.
const wire = new Map();
const onmessage = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.id !== undefined) wire.set(message.id, message.error ? { error: message.error } : message.result);
  onmessage?.(message, extra);
};
const answers = {};
for (const call of calls) {
  const before = new Set(wire.keys());
  const label = call.tool ? `tools/call ${call.tool}` : call.resource ? `resources/read ${call.resource}` : `prompts/get ${call.prompt}`;
  try {
    if (call.tool) await client.callTool({ name: call.tool, arguments: call.arguments ?? {} });
    else if (call.resource) await client.readResource({ uri: call.resource });
    else await client.getPrompt({ name: call.prompt, arguments: call.arguments ?? {} });
  } catch (error) {
    answers[`${label} (client error)`] = String(error.message ?? error);
  }
  const id = [...wire.keys()].find((k) => !before.has(k));
  answers[label] = wire.get(id);
}
console.log(JSON.stringify({ server: client.getServerVersion(), answers }, null, 2));
await client.close();
