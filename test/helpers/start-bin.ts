// A package's bin started as a user starts it (node, the bin file; a PnP cell's hooks in NODE_OPTIONS), sent
// initialize over stdio: its first line of output, or its exit and stderr; or the driver's stdio phase run on it.
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { stdioPhase } from '../../src/driver/phases/stdio.js';
import type { PhaseResult, PhaseResultOf } from '../../src/results/types.js';
import { levels } from '../driver/helpers/levels.js';
import type { PhaseBench } from '../driver/helpers/phase-bench.js';

export function initializeBin(
  bin: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin], { stdio: ['pipe', 'pipe', 'pipe'], ...options });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes('\n')) child.stdin.end();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
  );
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * The driver's stdio phase (from src, in the test's process, as phases' tests run it) on a cell's installed bin: the
 * phase's own result, with its verdict, message and stderr. `env`: a PnP cell's NODE_OPTIONS, as its driver sets them.
 */
export function stdioOnBin(
  bench: PhaseBench,
  cell: { cellDir: string; packageDir: string; bin: string },
  env: Record<string, string> = {},
): Promise<PhaseResultOf<'stdio'>> {
  const ctx = bench.context({ cellDir: cell.cellDir, packageDir: cell.packageDir });
  return stdioPhase(ctx, { command: { bin: cell.bin, args: [], env }, expect: {}, steps: [], timeoutMs: 60_000, checks: levels('stdio') });
}

/**
 * What the harness says of fixtures/broken/dependency-undeclared-import's failed stdio phase under either strict leg:
 * the import, the dependency's file and version, and the fix, not the package under test.
 */
export function expectDependencyCause(explained: PhaseResult): void {
  expect(explained.message).toMatch(
    /^initialize: .*\bcode 1\b.*: cannot find zod, imported by index\.js of mini-tool-schemas@0\.2\.0, which does not declare it: an undeclared import inside the dependency mini-tool-schemas@0\.2\.0, not the package's own; the fix is an upgrade of mini-tool-schemas to a version that declares it, or an override \(packageExtensions, in pnpm's or Yarn's settings\)$/,
  );
  expect(explained.details).toMatchObject({
    missingImport: {
      package: 'zod',
      importer: { name: 'mini-tool-schemas', version: '0.2.0', file: 'index.js' },
      case: 'dependency-undeclared',
    },
  });
}
