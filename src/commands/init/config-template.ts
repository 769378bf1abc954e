// The matrix.config.ts `mcp-matrix init` writes, as text: its cells, and the stdio steps, expectations and
// http phase from what the server's real surface showed in the scratch cell.
import type { HttpConfig } from '../../config/define.js';
import type { ItemShape } from '../../driver/client/surface.js';
import type { PhaseResult } from '../../results/types.js';
import type { InitCell } from './cells.js';
import { rangesLine, type InitPlan } from './plan.js';

/** What init saw the real server do in its scratch cell. */
export interface Detected {
  sdk: { name: string; version: string };
  server: { name?: string | undefined; version?: string | undefined; protocol?: string | undefined };
  /** Names per kind; null when the capability is not advertised. */
  surface: Record<string, string[] | null>;
  shapes: Record<string, ItemShape[]>;
  http?: HttpConfig;
  phases: Record<string, PhaseResult>;
}

const q = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
const list = (items: string[]): string => `[${items.map(q).join(', ')}]`;
const key = (k: string): string => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : q(k));
const record = (r: Record<string, string>): string =>
  Object.keys(r).length === 0
    ? '{}'
    : `{ ${Object.entries(r)
        .map(([k, v]) => `${key(k)}: ${q(v)}`)
        .join(', ')} }`;

const EXAMPLE_VALUE: Record<string, string> = {
  string: "'example'",
  number: '1',
  integer: '1',
  boolean: 'true',
  array: '[]',
  object: '{}',
};

function exampleArguments(args: Record<string, string> | undefined, json: boolean): string {
  const entries = Object.entries(args ?? {});
  if (entries.length === 0) return '';
  return `, arguments: { ${entries.map(([k, t]) => `${key(k)}: ${json ? (EXAMPLE_VALUE[t] ?? 'null') : "'example'"}`).join(', ')} }`;
}

/** One commented example step per kind the server has, built from its real names and arguments. */
export function exampleSteps(d: Detected): string[] {
  const lines: string[] = [];
  const tool = d.shapes.tools?.[0];
  if (tool)
    lines.push(
      `      // { tool: ${q(tool.name)}${exampleArguments(tool.arguments, true)}, expect: { text: 'TODO: a part of the answer' } },`,
    );
  const resource = d.shapes.resources?.[0];
  const template = d.shapes.resourceTemplates?.[0];
  if (resource?.uri) lines.push(`      // { resource: ${q(resource.uri)}, expect: { text: 'TODO: a part of the contents' } },`);
  else if (template?.uri)
    lines.push(
      `      // { resource: ${q(template.uri.replace(/\{[^}]*\}/g, 'example'))}, expect: { text: 'TODO: a part of the contents' } },  // from ${template.uri}`,
    );
  const prompt = d.shapes.prompts?.[0];
  if (prompt) lines.push(`      // { prompt: ${q(prompt.name)}${exampleArguments(prompt.arguments, false)}, expect: { messages: 1 } },`);
  return lines;
}

function expectLines(d: Detected): string[] {
  const lines: string[] = [];
  for (const kind of ['tools', 'resourceTemplates', 'prompts']) {
    const names = d.surface[kind];
    lines.push(`      ${kind}: ${list(names ?? [])},${names === null || names === undefined ? ' // not advertised' : ''}`);
  }
  const resources = d.surface.resources;
  if (resources && resources.length > 0) {
    lines.push(`      // resources: ${list(resources)},  // listed when init ran; resource lists are often data, so left unchecked`);
  }
  return lines;
}

/** The matrix.config.ts init writes: what the real server showed, valid as written, examples commented. */
export function renderConfig(plan: InitPlan, cells: InitCell[], d: Detected): string {
  const declared = rangesLine(plan);
  const binNote =
    plan.otherBins.length > 0
      ? `  // The package has other bins too (${plan.otherBins.join(', ')}): name the one that starts the MCP server.\n`
      : '';
  const steps = exampleSteps(d);
  const httpBlock = d.http
    ? [
        '  // Streamable HTTP behind a bearer token: without a token and with a wrong one → 401 with WWW-Authenticate: Bearer;',
        '  // with it → a full round trip. {host}, {port} and {token} are filled in by the harness.',
        `  http: { args: ${list(d.http.args ?? [])}, env: ${record(d.http.env ?? {})}, path: '/mcp' },`,
        '  // Started as http is (its args and env, the host swapped to a non-loopback one) and without the token: the',
        '  // server must refuse without ever listening outside loopback.',
        '  bind: {},',
      ]
    : [
        '  // No HTTP transport was given to init: the http and bind phases are off. For a Streamable HTTP server, run',
        '  //   mcp-matrix init --force --http "--transport http --port {port}" --http-env MCP_TOKEN={token}',
        '  // with its own flags and token variable, or write them here, e.g.:',
        "  //   http: { args: ['--transport', 'http', '--host', '{host}', '--port', '{port}'], env: { MCP_TOKEN: '{token}' } },",
        '  //   bind: {},  // started as http is, on a non-loopback host and without the token: it must refuse',
        '  http: false,',
        '  bind: false,',
      ];
  return `// The acceptance matrix of ${plan.name || 'this package'}: the packed package, installed as a user installs it, on every
// SDK version package.json claims to support. Written by \`mcp-matrix init\` from what the server showed in a scratch
// cell (${d.server.name ?? 'the server'} ${d.server.version ?? ''} with ${d.sdk.name} ${d.sdk.version}); edit freely.
// Declared SDK ranges: ${declared}. Every key: docs/config.md of mcp-matrix.
//   npx mcp-matrix plan             what would run (pins resolved against the registry; installs nothing)
//   npx mcp-matrix run              every cell; results in matrix-results/
//   npx mcp-matrix run --cell ID    one cell
import { defineConfig } from 'mcp-matrix';

export default defineConfig({
  // The directory to \`npm pack\` (relative to this file). Every cell installs the packed tarball.
  package: '.',
${binNote}  bin: ${q(plan.bin)},
  // One cell per SDK pin: floor@N is the lowest N.x your declared range admits, latest@N the newest N.x. The
  // lockstep check keeps the cells and package.json's ranges together: when you change a range, move these too.
  cells: [
${cells.map((c) => `    { pin: ${q(c.pin)}, role: ${q(c.role)}${c.install ? `, install: ${q(c.install)}` : ''} },${c.pin === c.version ? '' : ` // ${c.version} today`}`).join('\n')}
  ],
  // stdio: the bin is started with these args and env; initialize, list everything, run the steps, ping, close stdin.
  stdio: {
    args: [],
    env: {},
    // What the server advertised when init ran (exact names: a missing or an extra one fails the phase).
    expect: {
${expectLines(d).join('\n')}
    },
    // Scripted calls with expectations, run in order on one session.${steps.length ? ' Examples from the real surface: fill in the\n    // TODOs, then uncomment.' : ''}
    steps: [${steps.length ? `\n${steps.join('\n')}\n    ` : ''}],
  },
${httpBlock.join('\n')}
  // Every server process must exit by itself (stdin EOF${d.http ? ', SIGTERM' : ''}) within graceMs and leave nothing behind.
  leaks: { graceMs: 10_000 },
});
`;
}
