// `mcp-matrix init`: in an MCP server package, write a matrix.config.ts derived from its package.json
// (bin, declared SDK ranges → floor and latest cells per admitted major) and a GitHub workflow that
// runs it as the required release job (plan → pack once → one job per cell → merge).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import type { Logger } from '../logger.js';
import { DEFAULT_MAJORS } from '../config/resolve.js';
import { manifestInfo, type RawManifest } from '../plan/package-info.js';
import { errorMessage, fail, ok, type Failure, type Result } from '../util/result.js';

export const CONFIG_FILE = 'matrix.config.ts';
export const WORKFLOW_FILE = path.join('.github', 'workflows', 'mcp-matrix.yml');

export interface InitOptions {
  cwd: string;
  force: boolean;
}

export interface InitPlan {
  name: string;
  bin: string;
  /** Other bins the package declares (named in a comment). */
  otherBins: string[];
  /** Declared range per SDK package the harness pins (`@modelcontextprotocol/sdk`, `/server`). */
  ranges: Record<string, string>;
  /** SDK majors the declared ranges admit, ascending. */
  majors: number[];
}

/** The SDK packages whose declared range decides the cells: the primary package of each major. */
const PRIMARIES: { major: number; name: string }[] = Object.entries(DEFAULT_MAJORS)
  .map(([major, recipe]) => ({ major: Number(major), name: recipe.pinned[0]! }))
  .sort((a, b) => a.major - b.major);

export async function initCommand(options: InitOptions, log: Logger): Promise<number | Failure> {
  const manifestFile = path.join(options.cwd, 'package.json');
  let raw: RawManifest;
  try {
    raw = JSON.parse(await readFile(manifestFile, 'utf8')) as RawManifest;
  } catch (error) {
    return {
      kind: 'usage',
      message: `cannot read ${manifestFile}: ${errorMessage(error)}. Run mcp-matrix init in the directory of the MCP server package (where its package.json is).`,
    };
  }
  const derived = deriveInit(raw);
  if (!derived.ok) return derived.error;

  const targets = [CONFIG_FILE, WORKFLOW_FILE].map((f) => path.join(options.cwd, f));
  const existing = targets.filter((f) => existsSync(f));
  if (existing.length > 0 && !options.force) {
    return {
      kind: 'usage',
      message: `refusing to overwrite ${existing.map((f) => path.relative(options.cwd, f)).join(' and ')}: nothing was written. Pass --force to replace ${existing.length > 1 ? 'them' : 'it'}.`,
    };
  }
  const [configFile, workflowFile] = targets as [string, string];
  await writeFile(configFile, renderConfig(derived.value));
  await mkdir(path.dirname(workflowFile), { recursive: true });
  await writeFile(workflowFile, renderWorkflow());

  const plan = derived.value;
  log.info(
    `wrote ${CONFIG_FILE} (${plan.majors.length * 2} cells: ${plan.majors.map((m) => `floor@${m}, latest@${m}`).join(', ')}; bin ${plan.bin})`,
  );
  log.info(`wrote ${WORKFLOW_FILE} (plan → pack once → one job per cell → merge)`);
  log.info('next:');
  log.info('  npm install --save-dev mcp-matrix      # the config imports defineConfig from it; the workflow runs it');
  log.info(`  edit ${CONFIG_FILE}: fill in stdio.expect and stdio.steps (marked TODO), check http/bind`);
  log.info('  npx mcp-matrix plan                    # what would run, resolved against the registry');
  log.info(`  npx mcp-matrix run --cell latest-${plan.majors.at(-1)}        # one cell on this machine`);
  return 0;
}

/** Pure: package.json → what init writes, or a message saying what the package must declare. */
export function deriveInit(raw: RawManifest): Result<InitPlan> {
  const info = manifestInfo(raw);
  const name = info.name || '(unnamed package)';
  const bins = Object.keys(info.bins);
  if (bins.length === 0) {
    return fail(
      'usage',
      `${name} declares no "bin" in package.json: mcp-matrix starts the server through its bin, as an MCP client does. Add one, e.g. "bin": { "my-mcp-server": "./dist/cli.js" }, then run init again.`,
    );
  }
  const unscoped = info.name.replace(/^@[^/]+\//, '');
  const bin = bins.includes(unscoped) ? unscoped : bins[0]!;

  const ranges: Record<string, string> = {};
  const majors: number[] = [];
  const problems: string[] = [];
  for (const { major, name: sdk } of PRIMARIES) {
    const range = info.ranges[sdk];
    if (range === undefined) continue;
    ranges[sdk] = range;
    if (semver.validRange(range) === null) {
      problems.push(`the range "${range}" on ${sdk} is not a semver range (mcp-matrix needs one to find the floor, e.g. "^${major}.0.0")`);
      continue;
    }
    if (semver.intersects(range, `>=${major}.0.0 <${major + 1}.0.0-0`)) majors.push(major);
    else problems.push(`the range "${range}" on ${sdk} admits no ${major}.x version (${sdk} is the package of SDK major ${major})`);
  }
  if (problems.length > 0) return fail('usage', `cannot derive the cells from ${name}'s package.json:`, problems);
  if (majors.length === 0) {
    return fail(
      'usage',
      `${name} declares no range on ${PRIMARIES.map((p) => p.name).join(' or ')} in "dependencies" or "peerDependencies", so there is no SDK version to test. Add the range you support, e.g. "peerDependencies": { "@modelcontextprotocol/sdk": "^1.23.0" } for SDK 1.x and/or { "@modelcontextprotocol/server": "^2.0.0" } for SDK 2.x, then run init again.`,
    );
  }
  return ok({ name: info.name, bin, otherBins: bins.filter((b) => b !== bin), ranges, majors });
}

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
