// Pack the package once (or take a given tarball) and fingerprint it; every cell installs this file. The package
// is packed by its own package manager (package-manager.ts): `pnpm pack` and `yarn pack` write `workspace:` and
// `catalog:` dependencies as real versions, as their publish does, where `npm pack` leaves them for npm to refuse.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../process/exec.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';
import { describeInfraError, infraCause, MACHINE_CODES, machineCodeIn } from '../util/infra.js';
import { npmJsonError } from '../npm/errors.js';
import { describeDetection, detectPackageManager, type PackageManager } from './package-manager.js';
import { ensurePmTool, pmEnv, type PmTool, type PmToolOptions } from './pm-tool.js';

export interface Tarball {
  file: string;
  size: number;
  /** Subresource-integrity form, as npm writes it in package-lock.json: `sha512-<base64>`. */
  sha512: string;
}

export type PackOptions = Omit<PmToolOptions, 'runDir' | 'signal'>;

/** packDirectory's shape: what a run packs its package directory with (tests: a fixture packed once, RunOptions.pack). */
export type DirectoryPacker = typeof packDirectory;

export async function packDirectory(
  dir: string,
  destination: string,
  signal?: AbortSignal,
  options: PackOptions = {},
): Promise<Result<Tarball>> {
  const pm = detectPackageManager(dir);
  if (!pm.ok) return pm;
  if (pm.value.name === 'npm') return npmPack(dir, destination, signal);
  const tool = await ensurePmTool(pm.value, { ...options, runDir: destination, ...(signal ? { signal } : {}) });
  if (!tool.ok) return tool;
  return pmPack(dir, destination, pm.value, tool.value, signal);
}

async function npmPack(dir: string, destination: string, signal?: AbortSignal): Promise<Result<Tarball>> {
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

/** `pnpm pack` or `yarn pack` into a fresh directory, then moved to `destination` under npm's file name. */
async function pmPack(dir: string, destination: string, pm: PackageManager, tool: PmTool, signal?: AbortSignal): Promise<Result<Tarball>> {
  let name: string;
  try {
    const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
    name = `${String(manifest.name ?? 'package')
      .replace(/^@/, '')
      .replace('/', '-')}-${String(manifest.version ?? '0.0.0')}.tgz`;
  } catch (error) {
    return fail('usage', `cannot read ${path.join(dir, 'package.json')}: ${errorMessage(error)}`);
  }
  let scratch: string;
  try {
    scratch = await mkdtemp(path.join(destination, '.mcp-matrix-pack-'));
  } catch (error) {
    return fail(
      'infrastructure',
      `${pm.name} pack could not write into ${destination}: ${describeInfraError(error) ?? errorMessage(error)}`,
    );
  }
  try {
    const into = path.join(scratch, name);
    const args =
      pm.name === 'pnpm' ? ['pack', '--pack-destination', scratch] : pm.yarnBerry ? ['pack', '--out', into] : ['pack', '--filename', into];
    const out = await run(tool.command, [...tool.prefix, ...args], {
      cwd: dir,
      timeoutMs: 300_000,
      env: pmEnv(tool),
      ...(signal ? { signal } : {}),
    });
    const what = `${pm.name} pack (${tool.label}; ${describeDetection(pm)})`;
    if (!out.ok) {
      const machine = machineCodeIn(`${out.stderr}\n${out.stdout}`);
      if (machine)
        return fail('infrastructure', `${what} could not write the tarball to ${destination}: ${infraCause(machine)} (${machine}).`);
      return fail(
        'usage',
        `${what} failed in ${dir} (exit ${out.exitCode ?? '?'}): ${lastLines(out.stderr || out.stdout || out.error || '')}`,
      );
    }
    const packed = (await readdir(scratch)).filter((f) => f.endsWith('.tgz'));
    if (packed.length !== 1) return fail('usage', `${what} wrote ${packed.length} tarballs in ${scratch}: ${lastLines(out.stdout)}`);
    const file = path.join(destination, name);
    await rename(path.join(scratch, packed[0]!), file);
    return fingerprint(file);
  } catch (error) {
    return fail(
      'infrastructure',
      `${pm.name} pack could not write the tarball to ${destination}: ${describeInfraError(error) ?? errorMessage(error)}`,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function lastLines(text: string, n = 6): string {
  return text.trim().split('\n').slice(-n).join('\n');
}
