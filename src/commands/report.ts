// `mcp-matrix report <results.json>`: re-render every format without re-running anything.
import path from 'node:path';
import type { Logger } from '../logger.js';
import { loadResults } from '../reports/json/load.js';
import { renderTable } from '../reports/markdown/markdown.js';
import { checkOutDir } from '../reports/write/write.js';
import { writeReportsResult } from '../reports/write/write-result.js';
import type { Failure } from '../util/result.js';

export async function reportCommand(
  file: string,
  options: { cwd: string; out?: string; junit: boolean },
  log: Logger,
): Promise<number | Failure> {
  // The API's loader: read, schema version and shape, and stored verdicts that agree with the phases and the plan.
  const target = path.resolve(options.cwd, file);
  const parsed = await loadResults(file, options.cwd);
  if (!parsed.ok) return parsed.error;
  const outDir = path.resolve(options.cwd, options.out ?? path.dirname(target));
  const badOut = await checkOutDir(outDir);
  if (badOut) return { kind: 'usage', message: `--out: ${badOut}` };
  const wrote = await writeReportsResult(parsed.run, outDir, { junit: options.junit });
  if (!wrote.ok) return wrote.error;
  const written = wrote.value;
  log.info(renderTable(parsed.run));
  log.info(`wrote ${written.map((f) => path.relative(options.cwd, f)).join(', ')}`);
  return 0;
}
