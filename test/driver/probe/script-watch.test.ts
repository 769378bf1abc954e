// The probe's SDK watch on a Node without in-thread module hooks (this host's Node 20): the ES modules a
// server loads are read from V8's script list in the server's own thread (script-watch.ts), so the
// watch starts no second thread (module.register's hooks thread cost ~0.1 CPU-s per server), still
// names the SDK copy an ES module loads, and never lets a `debugger` statement stop the server.
// Real processes, the probe preloaded as the driver does.

import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchScripts } from '../../../src/driver/probe/script-watch.js';
import { ROOT, removeDir, tempDir } from '../helpers/cell.js';

const run = promisify(execFile);
const inThreadHooks = typeof (createRequire(import.meta.url)('node:module') as { registerHooks?: unknown }).registerHooks === 'function';
let cell: string;
let probe: string;

beforeAll(async () => {
  cell = tempDir('mm-script-watch-');
  probe = join(cell, 'probe', 'probe.js');
  await build({
    entryPoints: [join(ROOT, 'src/driver/probe/probe.ts'), join(ROOT, 'src/driver/probe/probe-hooks.ts')],
    outdir: join(cell, 'probe'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
  // An SDK copy the server imports as an ES module, under the name the watch is given.
  const sdk = join(cell, 'node_modules', '@modelcontextprotocol', 'sdk');
  mkdirSync(join(sdk, 'dist'), { recursive: true });
  writeFileSync(
    join(sdk, 'package.json'),
    JSON.stringify({ name: '@modelcontextprotocol/sdk', version: '1.99.0', type: 'module', main: 'dist/index.js' }),
  );
  writeFileSync(join(sdk, 'dist', 'index.js'), 'export const sdk = true;\n');
  writeFileSync(join(cell, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(cell, 'server.js'),
    `import { sdk } from '@modelcontextprotocol/sdk';
if (process.argv[2] === 'debugger') debugger;
const threads = Number(/Threads:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1]);
process.stdout.write(JSON.stringify({ sdk, threads }));
`,
  );
}, 120_000);

afterAll(() => removeDir(cell));

/** The server run with the probe preloaded, with or without the SDK names to watch; its output and the probe's records. */
async function probed(
  watch: boolean,
  mode = '',
): Promise<{ threads: number; sdk: boolean; records: { type: string; name?: string; version?: string }[] }> {
  const probeFile = join(cell, `probe-${watch}-${mode}.jsonl`);
  writeFileSync(probeFile, '');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    MCP_MATRIX_PROBE_FILE: probeFile,
    ...(watch ? { MCP_MATRIX_SDK_PACKAGES: JSON.stringify(['@modelcontextprotocol/sdk']) } : {}),
  };
  const { stdout } = await run(process.execPath, ['--import', pathToFileURL(probe).href, join(cell, 'server.js'), mode], {
    cwd: cell,
    env,
    timeout: 30_000,
  });
  const records = readFileSync(probeFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; name?: string; version?: string });
  return { ...(JSON.parse(stdout) as { threads: number; sdk: boolean }), records };
}

describe.skipIf(inThreadHooks)('the SDK watch without in-thread module hooks', () => {
  it('names the SDK copy an ES module loads, and starts no thread of its own', async () => {
    const without = await probed(false);
    const watched = await probed(true);
    expect(watched.sdk).toBe(true);
    expect(watched.records.filter((r) => r.type === 'sdk')).toEqual([
      expect.objectContaining({ name: '@modelcontextprotocol/sdk', version: '1.99.0' }),
    ]);
    expect(without.records.filter((r) => r.type === 'sdk')).toEqual([]);
    expect(watched.threads).toBe(without.threads);
  });

  it('a `debugger` statement in the server does not stop it', async () => {
    const out = await probed(true, 'debugger');
    expect(out.sdk).toBe(true);
  });
});

describe('watchScripts', () => {
  it('reports the scripts compiled before it started and after, by file URL or path', async () => {
    const seen: string[] = [];
    expect(watchScripts((url) => seen.push(url))).toBe(true);
    expect(seen.some((u) => u.includes('script-watch'))).toBe(true);
    const later = join(cell, 'later.mjs');
    writeFileSync(later, 'export default 1;\n');
    await import(pathToFileURL(later).href);
    expect(seen).toContain(pathToFileURL(later).href);
    expect(seen.every((u) => !u.startsWith('node:'))).toBe(true);
  });
});
