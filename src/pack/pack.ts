// Pack the package once (or take a given tarball) and fingerprint it; every cell installs this file.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../process/exec.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';
import { infraCause, MACHINE_CODES, machineCodeIn } from '../util/infra.js';
import { npmJsonError } from '../npm/errors.js';

export interface Tarball {
  file: string;
  size: number;
  /** Subresource-integrity form, as npm writes it in package-lock.json: `sha512-<base64>`. */
  sha512: string;
}

export async function packDirectory(dir: string, destination: string, signal?: AbortSignal): Promise<Result<Tarball>> {
  const out = await run('npm', ['pack', '--json', '--pack-destination', destination, '--loglevel=error'], {
    cwd: dir,
    timeoutMs: 300_000,
    ...(signal ? { signal } : {}),
  });
  if (!out.ok) {
    // A full disk or no file descriptors is the machine's, not the package's: not measured (exit 3).
    const code = npmJsonError(out.stdout)?.code;
    const machine = code && (MACHINE_CODES as readonly string[]).includes(code) ? code : machineCodeIn(`${out.stderr}\n${out.stdout}`);
    if (machine)
      return fail(
        'infrastructure',
        `npm pack could not write the tarball to ${destination}: ${infraCause(machine)} (${machine}). Free the space (or raise the limit) and run again.`,
      );
    return fail(
      'usage',
      `npm pack failed in ${dir} (exit ${out.exitCode ?? '?'}): ${lastLines(out.stderr || out.stdout || out.error || '')}`,
    );
  }
  // Lifecycle scripts may print before the JSON; the report is the last JSON array.
  const start = out.stdout.lastIndexOf('\n[');
  const json = start >= 0 ? out.stdout.slice(start + 1) : out.stdout.slice(out.stdout.indexOf('['));
  let filename: string | undefined;
  try {
    const parsed = JSON.parse(json) as { filename?: string }[] | { filename?: string };
    filename = Array.isArray(parsed) ? parsed.at(-1)?.filename : parsed.filename;
  } catch (error) {
    return fail('usage', `npm pack printed no JSON report: ${errorMessage(error)}`);
  }
  if (!filename) return fail('usage', 'npm pack reported no filename');
  return fingerprint(path.join(destination, filename.replace(/^@/, '').replace('/', '-')));
}

export async function fingerprint(file: string): Promise<Result<Tarball>> {
  try {
    const { size } = await stat(file);
    const hash = createHash('sha512');
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    return ok({ file, size, sha512: `sha512-${hash.digest('base64')}` });
  } catch (error) {
    return fail('usage', `cannot read tarball ${file}: ${errorMessage(error)} (check --tarball)`);
  }
}

function lastLines(text: string, n = 6): string {
  return text.trim().split('\n').slice(-n).join('\n');
}
