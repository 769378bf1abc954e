// `mcp-matrix merge`: fan-in of single-cell runs of one plan; a planned cell without evidence fails the gate.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { parseResults } from '../reports/json.js';
import { renderTable } from '../reports/markdown.js';
import { mergeResults } from '../reports/merge.js';
import { checkOutDir, writeReports } from '../reports/write.js';
import type { RunResult } from '../results/types.js';
import type { Failure } from '../util/result.js';
import { publishToGithub } from './github.js';
import { DEFAULT_OUT } from './run.js';

export async function mergeCommand(files: string[], options: { cwd: string; out?: string }, log: Logger): Promise<number | Failure> {
  const outDir = path.resolve(options.cwd, options.out ?? DEFAULT_OUT);
  const badOut = await checkOutDir(outDir);
  if (badOut) return { kind: 'usage', message: `--out: ${badOut}` };
  const pieces: { file: string; run: RunResult }[] = [];
  for (const file of files) {
    const target = path.resolve(options.cwd, file);
    const text = await readFile(target, 'utf8').catch(() => undefined);
    if (text === undefined) return { kind: 'usage', message: `cannot read ${target}` };
    const parsed = parseResults(text);
    if (!parsed.ok) return { kind: 'usage', message: `${target}: ${parsed.error}` };
    pieces.push({ file, run: parsed.run });
  }
  const merged = mergeResults(pieces);
  if (!merged.ok) {
    for (const e of merged.errors) log.error(`merge: ${e}`);
    return merged.exitCode;
  }
  const written = await writeReports(merged.run, outDir, { junit: true });
  log.info(renderTable(merged.run));
  await publishToGithub(merged.run, log);
  log.info(
    `${merged.run.verdict.toUpperCase()} · merged ${pieces.length} piece(s) · ${written.map((f) => path.relative(options.cwd, f)).join(', ')}`,
  );
  return merged.run.exitCode;
}
