// What a run prints through the logger, shared by the CLI's `run` and the API's `print`: the plan's
// expansion and lockstep findings as it resolves, then the table, the failures and the closing line.
import path from 'node:path';
import { rerunsIn, shellWord } from '../cells/rerun.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Logger } from '../logger.js';
import { describeExpansion, lockstepLines } from '../plan/expansion.js';
import { cellHasAxes, type Plan } from '../plan/plan.js';
import { renderTable } from '../reports/markdown/markdown.js';
import { parityLog } from '../reports/view/parity-lines.js';
import { renderLookupLines, renderReuseLines, renderTerminalFailures } from '../reports/terminal.js';
import { SNAPSHOT_FILE } from '../results/surface.js';
import type { RunResult } from '../results/types.js';
import { hasAxes } from '../results/variants.js';

/** As the plan resolves: the expansion (with axes) and the lockstep findings, each added to `shown`. */
export function printPlan(plan: Plan, log: Logger, shown: Set<string>): void {
  if (plan.cells.some(cellHasAxes)) log.info(describeExpansion(plan));
  for (const f of plan.lockstep) shown.add(`lockstep: ${f.message}`);
  for (const { level, line } of lockstepLines(plan)) log[level](line);
}

/** The run's table, what was not configured, look-ups and reuse, failures, kept cells, surface and answer differences. */
export function printResults(run: RunResult, config: Pick<ResolvedConfig, 'skipped'>, cwd: string, log: Logger): void {
  log.info('');
  log.info(renderTable(run));
  log.info('');
  const unconfigured = Object.entries(config.skipped).flatMap(([phase, why]) => (why === 'not configured' ? [phase] : []));
  const them = unconfigured.length > 1 ? 'them' : 'it';
  if (unconfigured.length > 0)
    log.info(`skipped (not configured): ${unconfigured.join(', ')}; add ${them} to the config to test ${them} (docs/config.md)`);
  for (const line of [...renderLookupLines(run), ...renderReuseLines(run)]) log.info(line);
  for (const line of renderTerminalFailures(run)) log.error(line);
  for (const line of keptLines(run, cwd)) log.info(line);
  for (const f of run.surface?.findings ?? []) log.error(`surface differs: ${f}`);
  for (const d of run.surface?.drift ?? [])
    log.error(`surface changed since ${SNAPSHOT_FILE}: ${d}  (commit the change with --update-surface)`);
  for (const line of parityLog(run)) log.error(line);
}

/** The run's warnings not printed yet (lockstep findings were, when the plan resolved). */
export function printWarnings(run: RunResult, shown: ReadonlySet<string>, log: Logger): void {
  for (const w of run.warnings) if (!shown.has(w)) log.warn(w);
}

/** `PASSED · 2 cell(s) in 41.0 s · matrix-results/results.json, …`: the last line. */
export function printSummary(run: RunResult, written: readonly string[], cwd: string, log: Logger): void {
  const counted = hasAxes(run.plan)
    ? `${run.cells.length} variant(s) of ${new Set(run.cells.map((c) => c.cell)).size} cell(s)`
    : `${run.cells.length} cell(s)`;
  const files = written.map((f) => path.relative(cwd, f)).join(', ');
  log.info(`${run.verdict.toUpperCase()} · ${counted} in ${(run.durationMs / 1000).toFixed(1)} s · ${files}`);
}

/** --keep: where each kept cell is (its home `cells/<id>`, shown relative to the working directory) and how to re-run each of its drivers. */
function keptLines(run: RunResult, cwd: string): string[] {
  const dirs = [...new Set(run.cells.flatMap((c) => (c.cellDir ? [c.cellDir] : [])))];
  if (dirs.length === 0) return [];
  const shown = (dir: string) => {
    const rel = path.relative(cwd, dir);
    return shellWord(rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : dir);
  };
  return [
    `kept ${dirs.length} cell director${dirs.length > 1 ? 'ies' : 'y'} (--keep); step into one and re-run a driver (its log: driver.log beside its spec):`,
    ...dirs.flatMap((dir) => {
      const reruns = rerunsIn(dir);
      return (reruns.length ? reruns : ['node .mcp-matrix/driver/index.js .mcp-matrix/spec.json']).map(
        (cmd) => `  cd ${shown(dir)} && ${cmd}`,
      );
    }),
  ];
}
