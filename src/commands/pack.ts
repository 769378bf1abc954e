// `mcp-matrix pack`: the CI's pack job. The package is packed as a local run packs it (its own package manager,
// src/pack/pack.ts), or the plan's given tarball is copied; either way the file, its size and sha512 are printed
// as `key=value` lines and, under GitHub Actions, written to the step's outputs.
import { appendFile, copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { fingerprint, packDirectory, type Tarball } from '../pack/pack.js';
import { errorMessage, fail, ok, type Failure, type Result } from '../util/result.js';

/** `mcp-matrix pack`'s options. */
export interface PackCommandOptions {
  cwd: string;
  /** The package directory (default `.`); ignored with a plan. */
  dir?: string;
  /** plan.json (`plan --json`): its `source` says what to pack or which tarball to pass on. */
  plan?: string;
  out?: string;
  signal?: AbortSignal;
}

export async function packCommand(
  options: PackCommandOptions,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | Failure> {
  const out = path.resolve(options.cwd, options.out ?? 'package-tarball');
  const source = options.plan ? await planSource(path.resolve(options.cwd, options.plan)) : ok({ directory: options.dir ?? '.' });
  if (!source.ok) return source.error;
  try {
    await mkdir(out, { recursive: true });
  } catch (error) {
    return { kind: 'infrastructure', message: `pack: cannot create ${out}: ${errorMessage(error)}` };
  }
  const packed = await packOrCopy(source.value, options.cwd, out, options.signal);
  if (!packed.ok) return packed.error;
  const lines = [`tarball=${path.relative(options.cwd, packed.value.file)}`, `size=${packed.value.size}`, `sha512=${packed.value.sha512}`];
  for (const line of lines) log.info(line);
  if (env.GITHUB_ACTIONS === 'true' && env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, `${lines.join('\n')}\n`);
  return 0;
}

async function packOrCopy(
  source: { directory: string } | { tarball: string },
  cwd: string,
  out: string,
  signal?: AbortSignal,
): Promise<Result<Tarball>> {
  if ('directory' in source) return packDirectory(path.resolve(cwd, source.directory), out, signal);
  const file = path.join(out, path.basename(source.tarball));
  const from = path.resolve(cwd, source.tarball);
  if (from !== file)
    try {
      await copyFile(from, file);
    } catch (error) {
      return fail('usage', `pack: cannot copy the plan's tarball ${from}: ${errorMessage(error)}`);
    }
  return fingerprint(file);
}

async function planSource(file: string): Promise<Result<{ directory: string } | { tarball: string }>> {
  let source: unknown;
  try {
    source = (JSON.parse(await readFile(file, 'utf8')) as { source?: unknown }).source;
  } catch (error) {
    return fail('usage', `pack --plan: cannot read ${file}: ${errorMessage(error)}`);
  }
  const s = source as { directory?: unknown; tarball?: unknown } | undefined;
  if (typeof s?.directory === 'string') return ok({ directory: s.directory });
  if (typeof s?.tarball === 'string') return ok({ tarball: s.tarball });
  return fail('usage', `pack --plan: ${file} has no source.directory or source.tarball (write it with plan --json)`);
}
