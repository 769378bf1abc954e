// Named moments of a cell's run outside its driver (the install's steps, the driver's ship, the re-check,
// the removal), for the bench: each is a `performance.mark` that nothing in the harness reads or prints;
// bench/measure/probe-cli.ts collects them at exit so the bench can split a cell's time with timestamps.
import path from 'node:path';

export const MARK_PREFIX = 'mcp-matrix:';

/** `moment` of the cell whose directory is `cellDir` (its id is the directory's name, `cell-<id>`). */
export function markCell(cellDir: string, moment: string): void {
  performance.mark(`${MARK_PREFIX}${path.basename(cellDir).replace(/^cell-/, '')}:${moment}`);
}
