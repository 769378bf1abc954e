// Microsoft's SARIF validator (`Sarif.Multitool validate`, the self-contained binary inside the
// @microsoft/sarif-multitool npm package: no .NET needed). It exits 0 whatever it finds, so its own
// SARIF output is read: every result at level error or warning, as `file: RULE message-id (arguments)`.
// `--rule-kind Sarif;Gh` adds the rules of GitHub's code scanning ingestion (GH1xxx/GH2xxx) to the spec's.
import { execFile } from 'node:child_process';
import { accessSync, chmodSync, constants, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const require = createRequire(import.meta.url);

/** The validator binary for this platform (the package's index resolves its platform package). */
export function validatorPath(): string {
  const bin = require('@microsoft/sarif-multitool') as string;
  // Its postinstall (chmod u+x) does not run where npm holds back install scripts: the file is ours to mark.
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    chmodSync(bin, statSync(bin).mode | 0o100);
  }
  return bin;
}

interface ValidatorResult {
  ruleId?: string;
  ruleIndex?: number;
  level?: string;
  message: { id?: string; text?: string; arguments?: string[] };
  locations?: { physicalLocation?: { artifactLocation?: { uri?: string } } }[];
}

export interface Validation {
  errors: string[];
  warnings: string[];
}

/** Validates each file; what the validator says, by level. */
export async function validateSarif(files: string[]): Promise<Validation> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mm-sarif-validate-'));
  try {
    const out = path.join(dir, 'validation.sarif');
    await promisify(execFile)(
      validatorPath(),
      ['validate', ...files, '--output', out, '--log', 'ForceOverwrite', '--rule-kind', 'Sarif;Gh', '--quiet'],
      {
        timeout: 240_000,
      },
    );
    const log = JSON.parse(await readFile(out, 'utf8')) as {
      runs: { tool: { driver: { rules?: { defaultConfiguration?: { level?: string } }[] } }; results?: ValidatorResult[] }[];
    };
    const found: Validation = { errors: [], warnings: [] };
    for (const run of log.runs)
      for (const r of run.results ?? []) {
        const level = r.level ?? run.tool.driver.rules?.[r.ruleIndex ?? -1]?.defaultConfiguration?.level ?? 'warning';
        const file = path.basename(r.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? '?');
        const line = `${file}: ${r.ruleId} ${r.message.id ?? r.message.text ?? ''} (${(r.message.arguments ?? []).join(' | ')})`;
        if (level === 'error') found.errors.push(line);
        else if (level === 'warning') found.warnings.push(line);
      }
    return found;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
