// 7. The driver's memory under a flood: fixtures/broken/flood writes 64 MiB on stderr, 20 000 noise lines and a
// 4 MiB line on stdout. The e2e test (test/e2e/broken.test.ts › flood) proves the capture is bounded (the stderr
// tail, the noise lines); how much memory the driver needs for it is a measurement, so its bound lives here: peak
// RSS varies with the machine's load (V8's concurrent GC runs on threads that a busy machine starves).
import { mkdtemp, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunResult } from '../../src/results/types.js';
import { BIN } from '../measure/harness.js';
import type { Flood, Rep, Target } from './rep.js';
import { log, median, ROOT, timed } from '../measure/util.js';

const CONFIG = path.join(ROOT, 'fixtures/broken/flood/matrix.config.ts');
/** The driver's peak RSS under the flood: 106–110 MB on the control (_base) and 119–129 MB measured with it. */
export const FLOOD_RSS_LIMIT_MB = 150;

export async function measureFlood(tmp: string): Promise<Flood> {
  const out = path.join(await mkdtemp(path.join(tmp, 'flood-')), 'out');
  const r = await timed(process.execPath, [BIN, 'run', '--config', CONFIG, '--progress', 'silent', '--out', out], {
    env: { ...process.env, MCP_MATRIX_CONFORMANCE: 'off' },
  });
  const results = await readFile(path.join(out, 'results.json'), 'utf8').then(
    (t) => JSON.parse(t) as RunResult,
    () => undefined,
  );
  if (!results) throw new Error(`flood: no results.json (exit ${r.code ?? r.signal}): ${r.stderr.trim().split('\n').slice(-8).join('\n')}`);
  const cell = results.cells[0];
  const flood = {
    driverPeakRssMb: cell?.summary.driverPeakRssMb,
    wallMs: r.wallMs,
    stdio: cell?.phases.find((p) => p.phase === 'stdio')?.verdict,
  };
  log(`flood: driver peak RSS ${flood.driverPeakRssMb} MB, stdio ${flood.stdio}`);
  return flood;
}

export function floodTargets(reps: Rep[]): Target[] {
  const rss = reps.map((r) => r.flood?.driverPeakRssMb).filter((x): x is number => x !== undefined);
  if (!rss.length) return [];
  const value = median(rss)!;
  return [
    {
      name: 'driver peak RSS under the flood fixture (64 MiB stderr, 4 MiB stdout line)',
      value,
      limit: FLOOD_RSS_LIMIT_MB,
      shown: `${value} MB (max ${Math.max(...rss)})`,
      pass: Math.max(...rss) < FLOOD_RSS_LIMIT_MB,
    },
  ];
}
