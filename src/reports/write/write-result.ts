// The reports' write as a result, for the commands and the API: a failed write (a full disk, a
// read-only directory) is a typed failure naming its cause, never an exception across layers. Each
// file is written to a temporary file beside it and renamed (write.ts), so none is left half-written.
import path from 'node:path';
import type { RunResult } from '../../results/types.js';
import { describeInfraError } from '../../util/infra.js';
import { errorMessage, fail, ok, type Result } from '../../util/result.js';
import { writeReportFiles, type WriteOptions } from './write.js';

/** writeReportFiles, with its failure as a value: `infrastructure`, the directory and the cause. */
export async function writeReportsResult(run: RunResult, outDir: string, options: WriteOptions = {}): Promise<Result<string[]>> {
  try {
    return ok(await writeReportFiles(run, outDir, options));
  } catch (error) {
    return fail(
      'infrastructure',
      `could not write the reports into ${path.resolve(outDir)}: ${describeInfraError(error) ?? errorMessage(error)}; no report was left half-written (each file is replaced only once it is whole)`,
    );
  }
}
