import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { resolveConfig } from '../../src/config/resolve.js';

let dir: string;
afterEach(async () => dir && rm(dir, { recursive: true, force: true }));

async function withConfig(source: string): Promise<string> {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cfg-'));
  await writeFile(path.join(dir, 'matrix.config.ts'), source);
  return dir;
}

// The first load in a worker starts jiti and Babel (12 s seen in a loaded CI): a hang guard well above that.
describe('loadConfig', { timeout: 60_000 }, () => {
  it('loads TypeScript, a function export, and applies defaults', async () => {
    const cwd = await withConfig(`
      const pin: string = '2.0.0';
      export default () => ({ cells: [{ pin, role: 'rep' }], http: { path: '/x' }, bind: {}, leaks: {} });
    `);
    const loaded = await loadConfig(cwd);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const cfg = resolveConfig(loaded.value);
    expect(cfg.cells).toEqual([{ pin: '2.0.0', role: 'rep', id: '2.0.0', allowedToFail: false }]);
    expect(cfg.source).toEqual({ kind: 'directory', dir: cwd });
    expect(cfg.http && cfg.http.path).toBe('/x');
    expect(cfg.bind && cfg.bind.dropEnv).toEqual(['MCP_SERVER_TOKEN']);
    expect(cfg.leaks).toEqual({ graceMs: 10_000, checks: { shutdown: 'require', 'temp-files': 'warn' } });
    // The default client declares nothing and sends `arguments: {}` for a tool step without arguments.
    expect(cfg.client).toEqual({ capabilities: {}, roots: [], noArguments: 'omit' });
  });

  it('configured roots declare the roots capability, unless it is declared already', async () => {
    const cwd = await withConfig(`
      export default { cells: [{ pin: '2.0.0' }], client: { roots: [{ uri: 'file:///srv' }], noArguments: 'omit' } };
    `);
    const loaded = await loadConfig(cwd);
    if (!loaded.ok) throw loaded.error;
    expect(resolveConfig(loaded.value).client).toEqual({
      capabilities: { roots: {} },
      roots: [{ uri: 'file:///srv' }],
      noArguments: 'omit',
    });
    await rm(cwd, { recursive: true, force: true });
    const again = await withConfig(`
      export default { cells: [{ pin: '2.0.0' }], client: { capabilities: { roots: { listChanged: true } }, roots: [{ uri: 'file:///srv' }] } };
    `);
    const second = await loadConfig(again);
    if (!second.ok) throw second.error;
    expect(resolveConfig(second.value).client.capabilities).toEqual({ roots: { listChanged: true } });
  });

  it('reports a missing config with what to do', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cfg-'));
    const loaded = await loadConfig(dir);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error.message).toMatch(/no matrix\.config\.ts .*--config/);
  });

  it('reports a syntax error as a usage failure naming the file', async () => {
    const cwd = await withConfig('export default {{{');
    const loaded = await loadConfig(cwd);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) {
      expect(loaded.error.kind).toBe('usage');
      expect(loaded.error.message).toContain('matrix.config.ts');
    }
  });

  it('reports validation problems as details', async () => {
    const cwd = await withConfig(`export default { cells: [{ pin: '1.0.0', colour: 'red' }] }`);
    const loaded = await loadConfig(cwd);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok)
      expect(loaded.error.details).toEqual([
        'cells[0].colour: unknown key',
        expect.stringMatching(/^every key is described in .*docs\/config\.md$/),
      ]);
  });

  describe('a config that never settles ends with a message, bounded', () => {
    const saved = process.env.MCP_MATRIX_CONFIG_TIMEOUT_MS;
    afterEach(() => {
      if (saved === undefined) delete process.env.MCP_MATRIX_CONFIG_TIMEOUT_MS;
      else process.env.MCP_MATRIX_CONFIG_TIMEOUT_MS = saved;
    });
    it.each([
      ['a default-export promise', 'export default new Promise(() => {});'],
      ['a function returning a promise', 'export default () => new Promise(() => {});'],
      ['a top-level await', 'await new Promise(() => {});\nexport default {};'],
    ])('%s', async (_name, source) => {
      process.env.MCP_MATRIX_CONFIG_TIMEOUT_MS = '300';
      const cwd = await withConfig(source);
      const loaded = await loadConfig(cwd);
      expect(loaded).toMatchObject({
        ok: false,
        error: {
          kind: 'usage',
          message: expect.stringMatching(
            /could not load .*matrix\.config\.ts: it did not finish loading within 0\.3 s \(.*never settles\)/,
          ),
        },
      });
    });

    it.each([
      ['while it loads', (c: AbortController) => setTimeout(() => c.abort(), 200)],
      ['before it loads', (c: AbortController) => c.abort()],
    ])("the run's abort %s ends the wait at once, saying so (not after the bound)", { timeout: 120_000 }, async (_name, interrupt) => {
      process.env.MCP_MATRIX_CONFIG_TIMEOUT_MS = '60000';
      const cwd = await withConfig('export default new Promise(() => {});');
      const controller = new AbortController();
      const started = Date.now();
      interrupt(controller);
      const loaded = await loadConfig(cwd, undefined, controller.signal);
      expect(loaded).toEqual({
        ok: false,
        error: { kind: 'usage', message: `loading ${path.join(cwd, 'matrix.config.ts')} was interrupted` },
      });
      // Before the 60 s bound: the abort ended the wait, not the bound (the test's timeout is the hang guard).
      expect(Date.now() - started).toBeLessThan(60_000);
    });
  });

  it('a config that loads is not disturbed by an abort signal that never fires', async () => {
    const cwd = await withConfig(`export default { cells: [{ pin: 'latest@1' }], stdio: {} };`);
    const loaded = await loadConfig(cwd, undefined, new AbortController().signal);
    expect(loaded.ok ? loaded.value.config.cells : loaded.error).toEqual([{ pin: 'latest@1' }]);
  });
});

describe('loadConfig: the mcp-matrix import', { timeout: 60_000 }, () => {
  it("resolves `import { defineConfig } from 'mcp-matrix'` to the running harness where the directory has no install", async () => {
    const cwd = await withConfig(`import { defineConfig } from 'mcp-matrix';
      export default defineConfig({ cells: [{ pin: 'latest@1' }], stdio: {} });`);
    const loaded = await loadConfig(cwd);
    expect(loaded.ok ? loaded.value.config.cells : loaded.error).toEqual([{ pin: 'latest@1' }]);
  });
});
