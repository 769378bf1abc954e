// `mcp-matrix merge`: fan-in of single-cell runs of one plan; a planned cell without evidence fails the gate.
// Arguments are results.json files or directories holding them (the fan-out's downloaded artifacts); with
// `--plan`, every piece must belong to the frozen plan, and a re-run's piece replaces the older attempt's.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { parseResults } from '../reports/json/json.js';
import { renderTable } from '../reports/markdown/markdown.js';
import { mergeResults, type ExpectedPlan } from '../reports/merge/merge.js';
import { attemptOf, pickAttempts, type AttemptPiece } from '../reports/merge/attempts.js';
import { checkOutDir } from '../reports/write/write.js';
import { writeReportsResult } from '../reports/write/write-result.js';
import type { Failure } from '../util/result.js';
import { publishMergeErrors, publishToGithub } from './github.js';
import { DEFAULT_OUT } from '../api/run-core.js';
import { readFrozenPlan } from '../plan/frozen.js';

export async function mergeCommand(
  args: string[],
  options: { cwd: string; out?: string; plan?: string },
  log: Logger,
): Promise<number | Failure> {
  const outDir = path.resolve(options.cwd, options.out ?? DEFAULT_OUT);
  const badOut = await checkOutDir(outDir);
  if (badOut) return { kind: 'usage', message: `--out: ${badOut}` };
  let expected: ExpectedPlan | undefined;
  let planAttempt = 1;
  if (options.plan) {
    const file = path.resolve(options.cwd, options.plan);
    const read = await readFrozenPlan(file, options.plan);
    if (!read.ok) return read.error;
    expected = { file: options.plan, hash: read.value.hash, cells: read.value.cells };
    const attempt = (JSON.parse(await readFile(file, 'utf8')) as { attempt?: unknown }).attempt;
    planAttempt = typeof attempt === 'number' && Number.isInteger(attempt) && attempt > 0 ? attempt : 1;
  } else if (args.length === 0) return { kind: 'usage', message: 'merge: pass the results.json files (or their directories), or --plan' };
  const files: string[] = [];
  for (const arg of args) {
    const target = path.resolve(options.cwd, arg);
    const info = await stat(target).catch(() => undefined);
    if (!info) {
      // A directory the download step never created (no cell uploaded anything) is no evidence, not bad input.
      if (expected) continue;
      return { kind: 'usage', message: `cannot read ${target}` };
    }
    if (!info.isDirectory()) {
      files.push(arg);
      continue;
    }
    const found = (await readdir(target, { recursive: true }))
      .filter((f) => path.basename(f) === 'results.json')
      .sort()
      .map((f) => path.join(arg, f));
    files.push(...found);
  }
  const pieces: AttemptPiece[] = [];
  for (const file of files) {
    const target = path.resolve(options.cwd, file);
    const text = await readFile(target, 'utf8').catch(() => undefined);
    if (text === undefined) return { kind: 'usage', message: `cannot read ${target}` };
    const parsed = parseResults(text);
    if (!parsed.ok) return { kind: 'usage', message: `${target}: ${parsed.error}` };
    pieces.push({ file, attempt: attemptOf(file), run: parsed.run });
  }
  const { kept, notes } = pickAttempts(pieces, planAttempt);
  for (const note of notes) log.info(`merge: ${note}`);
  const merged = mergeResults(kept, expected);
  if (!merged.ok) {
    for (const e of merged.errors) log.error(`merge: ${e}`);
    await publishMergeErrors(merged.errors, log);
    return merged.exitCode;
  }
  const wrote = await writeReportsResult(merged.run, outDir, { junit: true });
  if (!wrote.ok) return wrote.error;
  const written = wrote.value;
  log.info(renderTable(merged.run));
  await publishToGithub(merged.run, log);
  log.info(
    `${merged.run.verdict.toUpperCase()} · merged ${kept.length} piece(s) · ${written.map((f) => path.relative(options.cwd, f)).join(', ')}`,
  );
  return merged.run.exitCode;
}
