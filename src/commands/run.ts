// `mcp-matrix run`: the matrix, its reports, and an exit code that tells CI what happened.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { prepareConfig, type PrepareOptions } from '../orchestrator/prepare.js';
import { runMatrix } from '../orchestrator/run-matrix.js';
import type { ProgressMode } from '../orchestrator/progress.js';
import { publishInto } from '../reports/publish.js';
import { writeReports } from '../reports/write.js';
import { renderPublished, renderTable } from '../reports/markdown.js';
import { publishToGithub } from './github.js';
import type { Failure } from '../util/result.js';

export const DEFAULT_OUT = 'matrix-results';

export interface RunCommandOptions extends PrepareOptions {
  cells: string[];
  out?: string;
  concurrency?: number;
  keep: boolean;
  progress: ProgressMode;
  signal: AbortSignal;
  junit: boolean;
  publish?: string;
}

export async function runCommand(options: RunCommandOptions, log: Logger): Promise<number | Failure> {
  const prepared = await prepareConfig(options);
  if (!prepared.ok) return prepared.error;
  const { config, registry } = prepared.value;
  const result = await runMatrix(config, registry, {
    cwd: options.cwd,
    cells: options.cells,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    keep: options.keep,
    progress: options.progress,
    signal: options.signal,
    ...(options.config ? { configFlag: options.config } : {}),
    onPlan: (plan) => {
      for (const f of plan.lockstep)
        (f.level === 'error' ? log.error : log.warn)(`${f.level === 'error' ? 'lockstep error: ' : 'lockstep: '}${f.message}`);
    },
  });
  if (!result.ok) return result.error;
  const run = result.value;
  const outDir = path.resolve(options.cwd, options.out ?? DEFAULT_OUT);
  const written = await writeReports(run, outDir, { junit: options.junit });
  log.info('');
  log.info(renderTable(run));
  log.info('');
  const unconfigured = Object.entries(config.skipped).flatMap(([phase, why]) => (why === 'not configured' ? [phase] : []));
  if (unconfigured.length > 0)
    log.info(
      `skipped (not configured): ${unconfigured.join(', ')}; add ${unconfigured.length > 1 ? 'them' : 'it'} to the config to test ${unconfigured.length > 1 ? 'them' : 'it'} (docs/config.md)`,
    );
  for (const cell of run.cells) {
    for (const p of cell.phases) {
      if (p.verdict === 'failed' || p.verdict === 'not-measured')
        log.error(`${cell.id} · ${p.phase}: ${p.verdict === 'failed' ? 'FAIL' : 'not measured'}: ${p.message ?? ''}`);
    }
    if (cell.verdict === 'failed') log.error(`  reproduce: ${cell.repro}`);
    if (cell.cellDir)
      log.info(
        `kept ${cell.id}: cd ${cell.cellDir}  (log: .mcp-matrix/driver.log; re-run its phases: node .mcp-matrix/driver/index.js .mcp-matrix/spec.json)`,
      );
  }
  for (const w of run.warnings) log.warn(w);
  if (options.publish) {
    const published = await publishToDoc(options.publish, run, options.cwd);
    if (published) log.error(published);
  }
  await publishToGithub(run, log);
  log.info(
    `${run.verdict.toUpperCase()} · ${run.cells.length} cell(s) in ${(run.durationMs / 1000).toFixed(1)} s · ${written.map((f) => path.relative(options.cwd, f)).join(', ')}`,
  );
  return run.exitCode;
}

async function publishToDoc(file: string, run: Parameters<typeof renderTable>[0], cwd: string): Promise<string | undefined> {
  const target = path.resolve(cwd, file);
  const doc = await readFile(target, 'utf8').catch(() => undefined);
  if (doc === undefined) return `--publish: cannot read ${target}`;
  const out = publishInto(doc, renderPublished(run));
  if (!out.ok) return `--publish: ${out.error}`;
  await writeFile(target, out.text);
  return undefined;
}
