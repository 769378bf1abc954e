// The two files `mcp-matrix init` writes, as text: a matrix.config.ts and a GitHub workflow.
import type { HttpConfig } from '../config/define.js';
import type { ItemShape } from '../driver/surface.js';
import type { PhaseResult } from '../results/types.js';
import type { InitCell } from './init-cells.js';
import type { InitPlan } from './init-plan.js';
import type { WorkflowRepo } from './init-repo.js';

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
  const declared = Object.entries(plan.ranges)
    .map(([n, r]) => `${n} "${r}"`)
    .join(' · ');
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
${cells.map((c) => `    { pin: ${q(c.pin)}, role: ${q(c.role)} },${c.pin === c.version ? '' : ` // ${c.version} today`}`).join('\n')}
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

/** The repository init saw: a root package with npm and a package-lock.json unless told otherwise. */
export const DEFAULT_REPO: WorkflowRepo = {
  workingDirectory: '.',
  pm: 'npm',
  yarnBerry: false,
  lockfile: 'package-lock.json',
  engines: false,
};

/** The Node every job but a Node variant's runs on, when the package declares no engines.node. */
export const DEFAULT_NODE = 'lts/*';

/** The workflow init writes: the required release job, inline (plan → pack once → one job per cell → merge). */
export function renderWorkflow(repo: WorkflowRepo = DEFAULT_REPO): string {
  const wd = repo.workingDirectory;
  const at = (p: string) => (wd === '.' ? p : `${wd}/${p}`);
  // Yarn Plug'n'Play has no node_modules: its \`yarn node\` resolves packages, and \`yarn mcp-matrix\` starts the CLI.
  const nodeRun = repo.pm === 'yarn' ? 'yarn node' : 'node';
  const exec = { npm: 'npx --no-install mcp-matrix', pnpm: 'pnpm exec mcp-matrix', yarn: 'yarn mcp-matrix' }[repo.pm];
  const install =
    repo.pm === 'pnpm'
      ? 'pnpm install --frozen-lockfile'
      : repo.pm === 'yarn'
        ? `yarn install ${repo.yarnBerry ? '--immutable' : '--frozen-lockfile'}`
        : repo.lockfile
          ? 'npm ci'
          : 'npm install';
  const pack =
    repo.pm === 'pnpm'
      ? 'pnpm pack --pack-destination package-tarball'
      : repo.pm === 'yarn'
        ? `yarn pack ${repo.yarnBerry ? '--out' : '--filename'} package-tarball/package.tgz`
        : 'npm pack --pack-destination package-tarball';
  const lockDir = repo.lockfile ? repo.lockfile.split('/').slice(0, -1).join('/') || '.' : wd;
  // The install runs where the lockfile is (a workspace root installs every member).
  const installStep = `      - run: ${install}${lockDir !== wd ? `\n        working-directory: ${lockDir}` : ''}`;
  const node = (variant: boolean) =>
    repo.engines
      ? `${variant ? "          node-version: ${{ matrix.node || '' }}\n" : ''}          node-version-file: ${at('package.json')}`
      : `          node-version: ${variant ? `\${{ matrix.node || '${DEFAULT_NODE}' }}` : DEFAULT_NODE}`;
  const setup = (variant = false) =>
    [
      ...(repo.pm === 'pnpm' ? ['      - uses: pnpm/action-setup@v4'] : []),
      ...(repo.pm === 'yarn' ? ['      - run: corepack enable'] : []),
      '      - uses: actions/setup-node@v6',
      '        with:',
      node(variant),
      ...(repo.lockfile
        ? // setup-node looks for the lockfile at the root; elsewhere it is named.
          [`          cache: ${repo.pm}`, ...(repo.lockfile.includes('/') ? [`          cache-dependency-path: ${repo.lockfile}`] : [])]
        : []),
    ].join('\n');
  const defaults = wd === '.' ? '' : `    defaults:\n      run:\n        working-directory: ${wd}\n`;
  const where =
    wd === '.'
      ? ''
      : `# The package is ${wd}: GitHub reads workflows only from the repository root, so this one is here and every
# run step works in ${wd} (defaults.run.working-directory).
`;
  return `# The required release job: mcp-matrix plan → pack once → one job per SDK variant → merge (the gate).
# Written by \`mcp-matrix init\`. Make the "mcp-matrix" check required in the branch protection rules (docs/github.md).
# Locally, the same sequence: ${exec} plan --json > plan.json; ${pack.replace(' package-tarball/package.tgz', ' FILE')}; ${exec} run --plan plan.json --cell ID --tarball FILE; ${exec} merge --plan plan.json DIR.
${where}name: mcp-matrix${wd === '.' ? '' : ` (${wd})`}

on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

# Pull requests: a newer run cancels the older one. Pushes: every commit keeps its run (its own sha).
concurrency:
  group: mcp-matrix-\${{ github.workflow }}-\${{ github.event_name == 'pull_request' && github.ref || github.sha }}
  cancel-in-progress: \${{ github.event_name == 'pull_request' }}

env:
  CONFIG: matrix.config.ts
  # Secrets for the servers: never here (every step, the install included, would see them). Give them to the
  # run step only (its env:, as \${{ secrets.NAME }}) and to the servers in the config, e.g.
  # env: { API_KEY: process.env.API_KEY ?? '' }. Fork and Dependabot pull requests get no secrets.

jobs:
  # Resolves against the registry once: plan.json (the frozen plan) is what every cell job runs, re-runs too.
  plan:
    runs-on: ubuntu-latest
    timeout-minutes: 15
${defaults}    outputs:
      matrix: \${{ steps.plan.outputs.matrix }}
    steps:
      - uses: actions/checkout@v6
${setup()}
${installStep}
      - id: plan
        run: |
          ${exec} plan --json --config "$CONFIG" > plan.json
          echo "matrix=$(node -p 'JSON.stringify({ include: require("./plan.json").include })')" >> "$GITHUB_OUTPUT"
      - uses: actions/upload-artifact@v7
        with:
          name: mcp-matrix-plan
          path: ${at('plan.json')}
          if-no-files-found: error
          overwrite: true

  pack:
    runs-on: ubuntu-latest
    timeout-minutes: 15
${defaults}    steps:
      - uses: actions/checkout@v6
${setup()}
${installStep}
      # A TypeScript server's tarball must contain its build (dist/): build before packing.
      - run: npm run build --if-present
      - run: |
          mkdir -p package-tarball
          ${pack}
      - uses: actions/upload-artifact@v7
        with:
          name: package-tarball
          path: ${at('package-tarball/*.tgz')}
          if-no-files-found: error
          overwrite: true

  # One job per variant of the plan (a cell without axes is one variant, its id the cell's).
  cell:
    name: cell \${{ matrix.id }} (\${{ matrix.version }})
    needs: [plan, pack]
    runs-on: ubuntu-latest
    timeout-minutes: 30
${defaults}    strategy:
      fail-fast: false
      matrix: \${{ fromJSON(needs.plan.outputs.matrix) }}
    steps:
      - uses: actions/checkout@v6
      # A Node variant's job runs on its exact release (plan --json's \`node\`): the harness then uses this binary, no download.
${setup(true)}
${installStep}
      - uses: actions/download-artifact@v8
        with:
          name: package-tarball
          path: ${at('package-tarball')}
      - uses: actions/download-artifact@v8
        with:
          name: mcp-matrix-plan
          path: ${wd}
      # The mcp-matrix action ships in the installed package: copied to a fixed place (uses: takes no expressions).
      - run: |
          mkdir -p "$GITHUB_WORKSPACE/.mcp-matrix-action"
          ${nodeRun} -e 'require("fs").copyFileSync(require.resolve("mcp-matrix/action.yml"), process.argv[1])' "$GITHUB_WORKSPACE/.mcp-matrix-action/action.yml"
      # A piece of the fan-out: merge alone writes the annotations and the step summary; this job uploads cell-results/.
      - uses: ./.mcp-matrix-action
        with:
          config: \${{ env.CONFIG }}
          working-directory: ${wd}
          plan: plan.json
          cell: \${{ matrix.id }}
          tarball: package-tarball/*.tgz
          out: cell-results/attempt-\${{ github.run_attempt }}/\${{ matrix.id }}
${repo.pm === 'yarn' ? `          cli: ${exec}\n` : ''}          piece: 'true'
          artifact: ''
      # cell-results/ holds attempt-<n>/<id>/: merge-multiple downloads give the same layout for 1 artifact or 256.
      - if: always()
        uses: actions/upload-artifact@v7
        with:
          name: mcp-matrix-cell-\${{ matrix.id }}-attempt-\${{ github.run_attempt }}
          path: ${at('cell-results/')}
          overwrite: true

  merge:
    name: mcp-matrix
    needs: [plan, pack, cell]
    if: always()
    runs-on: ubuntu-latest
    timeout-minutes: 15
${defaults}    steps:
      # Names every dependency that did not succeed, first: a plan or pack failure is the cause, not "no results".
      - name: the jobs merge depends on
        # Before the checkout: the working directory does not exist yet.
        working-directory: .
        env:
          PLAN: \${{ needs.plan.result }}
          PACK: \${{ needs.pack.result }}
          CELLS: \${{ needs.cell.result }}
        run: |
          bad=0
          for dep in "plan:$PLAN" "pack:$PACK" "cell:$CELLS"; do
            name="\${dep%%:*}"; result="\${dep#*:}"
            [ "$result" = success ] && continue
            level=error; [ "$name" = cell ] && level=warning || bad=1
            echo "::$level title=mcp-matrix $name job $result::the $name job's result is $result."
            echo "- the **$name** job's result is **$result**." >> "$GITHUB_STEP_SUMMARY"
          done
          exit "$bad"
      - uses: actions/checkout@v6
${setup()}
${installStep}
      - uses: actions/download-artifact@v8
        with:
          name: mcp-matrix-plan
          path: ${wd}
      - uses: actions/download-artifact@v8
        with:
          pattern: mcp-matrix-cell-*
          merge-multiple: true
          path: ${at('cell-results')}
      # The gate: a planned variant without results, twice, or from another plan fails here.
      - run: ${exec} merge --plan plan.json cell-results --out matrix-results
      - if: always()
        uses: actions/upload-artifact@v7
        with:
          name: mcp-matrix-results
          path: ${at('matrix-results')}
          overwrite: true
      # GitHub code scanning (optional): matrix.sarif's findings (bind exposure, auth and spec checks, SDK mismatches,
      # leaks) as alerts. Uncomment the step, and give this job the permission it needs:
      #   permissions:
      #     contents: read
      #     security-events: write
      # - if: always() && hashFiles('${at('matrix-results/matrix.sarif')}') != ''
      #   uses: github/codeql-action/upload-sarif@v4
      #   with:
      #     sarif_file: ${at('matrix-results/matrix.sarif')}
      #     category: mcp-matrix${wd === '.' ? '' : `-${wd.replace(/[^\w.-]+/g, '-')}`}
`;
}
