// `mcp-matrix report <results.json>`: re-render every format without re-running anything.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { parseResults } from '../reports/json.js';
import { renderTable } from '../reports/markdown.js';
import { auditRun } from '../results/verdict.js';
import { checkOutDir } from '../reports/write.js';
import { writeReportsResult } from '../reports/write-result.js';
import type { Failure } from '../util/result.js';

export async function reportCommand(
  file: string,
  options: { cwd: string; out?: string; junit: boolean },
  log: Logger,
): Promise<number | Failure> {
  const target = path.resolve(options.cwd, file);
  const text = await readFile(target, 'utf8').catch(() => undefined);
  if (text === undefined) return { kind: 'usage', message: `cannot read ${target}: pass the results.json a run wrote` };
  const parsed = parseResults(text);
  if (!parsed.ok) return { kind: 'usage', message: `${target}: ${parsed.error}` };
  // Rendering trusts the stored verdicts only once they agree with the phases and the plan.
  const problems = auditRun(parsed.run);
  if (problems.length > 0)
    return {
      kind: 'usage',
      message: `${target} contradicts itself; refusing to render it (re-run \`mcp-matrix run\` to regenerate it):`,
      details: problems,
    };
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
