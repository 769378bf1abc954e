// Which unit files share their worker's loaded modules (vitest's `isolate: false`, the unit-shared project) and which
// load them anew for each file (the unit project). Loading src anew was half the CPU of files that only call
// functions (docs/performance.md); a file that starts processes, servers or timers, or replaces a module (vi.mock),
// stays isolated: what it leaves running or replaced would reach the next file of its worker.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Processes, sockets, timers, module replacement: any of them keeps a file isolated. */
const NEEDS_ISOLATION =
  /\b(spawn|spawnSync|fork|execFile|execFileSync|execSync|exec|execa|runDriver|phaseBench|cli|listen|createServer|setInterval|setTimeout)\(|\bvi\.(mock|doMock|unmock|resetModules|stubGlobal|useFakeTimers)\(|\bchromium\b/;

function testFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(root, path.join(dir, e.name)) : e.name.endsWith('.test.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** The unit files (under test/, not e2e, integration or `slow`) that only call functions: relative to `root`. */
export function sharedUnitFiles(root: string, slow: RegExp): string[] {
  return testFiles(root, 'test')
    .filter((f) => !slow.test(f))
    .filter((f) => !NEEDS_ISOLATION.test(readFileSync(path.join(root, f), 'utf8')));
}
