// What the stand-in CLI (fake-mcp-matrix.mjs) prints and writes: a plan of `specs` (its `source` as given) in
// FAKE_DIR/plan.json, and each cell's piece in FAKE_DIR/pieces/<id>.json, as the real plan and run would.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RunResult } from '../../src/results/types.js';
import { makeRun, pieceOf, type CellSpec } from '../reports/helpers/make-run.js';

export function writeFakePlan(
  fake: string,
  specs: CellSpec[],
  source: { tarball: string } | { directory: string },
  pieces: (run: RunResult, id: string) => RunResult = (r) => r,
): void {
  mkdirSync(path.join(fake, 'pieces'), { recursive: true });
  const run = makeRun(specs);
  const plan = {
    configHash: run.plan.configHash,
    package: run.plan.package,
    include: run.plan.cells.map((c) => ({ id: c.id, pin: c.pin, version: c.version, major: c.major })),
    source,
    attempt: 1,
    frozen: { version: 1, hash: run.plan.configHash, shape: 'shape', cells: run.plan.cells, lockstep: [] },
  };
  writeFileSync(path.join(fake, 'plan.json'), JSON.stringify(plan));
  for (const cell of run.cells)
    writeFileSync(
      path.join(fake, 'pieces', `${cell.id}.json`),
      JSON.stringify(pieces(pieceOf(run, cell.id, run.startedAt, run.finishedAt), cell.id)),
    );
}
