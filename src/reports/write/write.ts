// The only file in reports that writes to the disk (load.ts only reads): mkdir -p, then each report
// written atomically (temporary file + rename), so an interrupted write never leaves a half results.json behind.

import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, open, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import path, { join } from 'node:path';
import type { RunResult } from '../../results/types.js';
import { asInterrupted } from '../../judge/verdict.js';
import { ATTESTATION_FILE, renderAttestation } from './attestation.js';
import { renderJson } from '../json/json.js';
import { renderJunit } from '../junit.js';
import { renderMarkdown } from '../markdown/markdown.js';
import { renderHtml } from '../html/page.js';
import { renderSarif } from '../sarif/sarif.js';

export interface WriteOptions {
  /** Also write junit.xml (default true). */
  junit?: boolean;
  /** The run's abort: a write in progress stops (its temporary file is removed). */
  signal?: AbortSignal;
}

export const RESULTS_FILE = 'results.json';
export const MARKDOWN_FILE = 'matrix.md';
export const JUNIT_FILE = 'junit.xml';
export const HTML_FILE = 'matrix.html';
export const SARIF_FILE = 'matrix.sarif';

export type ReportFormat = 'json' | 'markdown' | 'html' | 'junit' | 'sarif';

/** Every report, in the order written: its format (the API's name), its file and its renderer. */
export const REPORTS: readonly { format: ReportFormat; file: string; render: (run: RunResult) => string }[] = [
  { format: 'json', file: RESULTS_FILE, render: renderJson },
  { format: 'markdown', file: MARKDOWN_FILE, render: renderMarkdown },
  { format: 'html', file: HTML_FILE, render: renderHtml },
  { format: 'sarif', file: SARIF_FILE, render: renderSarif },
  { format: 'junit', file: JUNIT_FILE, render: renderJunit },
];

/**
 * Each write its own temporary file: a forced exit's write may start while the graceful one is still in flight
 * (one shared name made the graceful rename fail: "harness error: ENOENT … results.json.<pid>.tmp"). What is still in
 * flight when the process exits is removed then, so no temporary file outlives the run.
 */
const inFlight = new Set<string>();
let writes = 0;
function tempName(file: string): string {
  if (writes === 0) process.once('exit', removeTempsInFlight);
  const temp = `${file}.${process.pid}.${++writes}.tmp`;
  inFlight.add(temp);
  return temp;
}

/** Removes every temporary file a write has not renamed or removed yet (run at process exit). */
export function removeTempsInFlight(): void {
  for (const temp of inFlight) rmSync(temp, { force: true });
  inFlight.clear();
}

/** Writes results.json, matrix.md, matrix.html, matrix.sarif and (unless `junit: false`) junit.xml into `outDir`; returns their paths. */
export async function writeReportFiles(run: RunResult, outDir: string, options: WriteOptions = {}): Promise<string[]> {
  const checked = await checkOutDir(outDir);
  if (checked) throw new Error(checked);
  await makeDirs(outDir);
  const written: string[] = [];
  const files = render(run, options);
  for (const [name, content] of files) {
    const path = join(outDir, name);
    await writeAtomic(path, content, options.signal);
    written.push(path);
  }
  // The evidence bound to the tarball, over results.json's exact bytes; beside the reports, not one of them.
  const statement = renderAttestation(run, files[0]![1]);
  if (statement) await writeAtomic(join(outDir, ATTESTATION_FILE), statement, options.signal);
  return written;
}

/**
 * The run's reports, never contradicting an interrupt: when `signal` fires before or while they are
 * written, the write in progress stops and they are written again as an interrupted run (exit 130),
 * so no file says PASSED over a run the CLI ends with 130. Returns the run as written.
 */
export async function writeRunReports(
  run: RunResult,
  outDir: string,
  options: WriteOptions & { signal: AbortSignal },
): Promise<{ run: RunResult; written: string[] }> {
  if (run.interrupted) return { run, written: await writeReportFiles(run, outDir, { junit: options.junit }) };
  const written = await writeReportFiles(run, outDir, options).catch((error: unknown) => {
    if (!options.signal.aborted) throw error;
    return [];
  });
  if (!options.signal.aborted) return { run, written };
  const interrupted = asInterrupted(run);
  return { run: interrupted, written: await writeReportFiles(interrupted, outDir, { junit: options.junit }) };
}

/** The same files, synchronously: for a forced exit, which cannot await (`outDir` was checked when the run began). */
export function writeReportFilesSync(run: RunResult, outDir: string, options: WriteOptions = {}): string[] {
  const missing: string[] = [];
  for (let d = path.resolve(outDir); !isDir(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing) mkdirSync(d);
  return render(run, options).map(([name, content]) => {
    const file = join(outDir, name);
    const temp = tempName(file);
    try {
      writeFileSync(temp, content, 'utf8');
      renameSync(temp, file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    } finally {
      inFlight.delete(temp);
    }
    return file;
  });
}

function isDir(d: string): boolean {
  try {
    return statSync(d).isDirectory();
  } catch {
    return false;
  }
}

function render(run: RunResult, options: WriteOptions): [string, string][] {
  const json = renderJson(run);
  // Render from the stored form, so `report results.json` later gives byte-identical files.
  const stored = JSON.parse(json) as RunResult;
  return REPORTS.filter((r) => r.format !== 'junit' || options.junit !== false).map((r) => [
    r.file,
    r.format === 'json' ? json : r.render(stored),
  ]);
}

async function writeAtomic(path: string, content: string, signal?: AbortSignal): Promise<void> {
  const temp = tempName(path);
  try {
    await writeFile(temp, content, { encoding: 'utf8', ...(signal ? { signal } : {}) });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    inFlight.delete(temp);
  }
}

// Kernel pseudo-filesystems (statfs f_type): Node's recursive mkdir loops forever on /proc/x.
const PSEUDO_FS: Record<number, string> = {
  0x9fa0: 'proc',
  0x62656572: 'sysfs',
  0x1cd1: 'devpts',
  0x64626720: 'debugfs',
  0x74726163: 'tracefs',
  0x73636673: 'securityfs',
  0x27e0eb: 'cgroup',
  0x63677270: 'cgroup2',
  0xcafe4a11: 'bpf',
  0x6165676c: 'pstore',
  0x62656570: 'configfs',
};

/**
 * Why `outDir` cannot receive the reports, or undefined when it can: checked before anything runs,
 * so a bad `--out` costs nothing. Creates nothing: it probe-writes into `outDir` when it exists,
 * else into its nearest existing ancestor.
 */
export async function checkOutDir(outDir: string): Promise<string | undefined> {
  const target = path.resolve(outDir);
  let existing = target;
  for (;;) {
    const info = await stat(existing).catch((error: NodeJS.ErrnoException) => error);
    if (!(info instanceof Error)) {
      if (!info.isDirectory())
        return existing === target
          ? `${target} exists and is not a directory; pass a directory (or a path that does not exist yet) to --out`
          : `${target} cannot be created: ${existing} is a file, not a directory`;
      break;
    }
    if (info.code !== 'ENOENT' && info.code !== 'ENOTDIR') return `${target} cannot be used: ${info.message}`;
    const parent = path.dirname(existing);
    if (parent === existing) return `${target} cannot be created: no part of it exists`;
    existing = parent;
  }
  const fsType = await statfs(existing).then(
    (s) => PSEUDO_FS[s.type],
    () => undefined,
  );
  if (fsType) return `${target} is on the kernel's ${fsType} pseudo-filesystem (${existing}); pass a directory on a real disk to --out`;
  const probe = join(existing, `.mcp-matrix-write-probe-${process.pid}`);
  try {
    const handle = await open(probe, 'wx');
    await handle.close();
    await rm(probe, { force: true });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return `${target} is not writable${existing === target ? '' : ` (its nearest existing folder ${existing} is not)`}: ${e.code ?? ''}${e.code ? ' ' : ''}${e.message.replace(/^\w+: /, '')}`;
  }
  return undefined;
}

/** mkdir -p one level at a time: bounded by the path's depth, whatever the file system answers. */
async function makeDirs(dir: string): Promise<void> {
  const target = path.resolve(dir);
  const missing: string[] = [];
  for (let d = target; ; d = path.dirname(d)) {
    const exists = await stat(d).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (exists) break;
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing)
    await mkdir(d).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
}
