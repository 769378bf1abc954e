// What a run leaves behind, seen from outside: processes (via /proc) and mcp-matrix-* temp dirs.
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ProcEntry {
  pid: number;
  cmdline: string;
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Live (non-zombie) processes, with their command lines. */
export function processes(): ProcEntry[] {
  const out: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    if (!stat || state === 'Z' || state === 'X') continue;
    const cmdline = read(`/proc/${name}/cmdline`).split('\0').filter(Boolean).join(' ');
    if (cmdline) out.push({ pid: Number(name), cmdline });
  }
  return out;
}

/** Processes (other than this one) whose command line contains any of `needles`. */
export function processesMentioning(...needles: string[]): ProcEntry[] {
  return processes().filter((p) => p.pid !== process.pid && needles.some((n) => n && p.cmdline.includes(n)));
}

/**
 * Processes (other than this one) that mention any of `needles` and belong to the run whose TMPDIR is `tmp`: their
 * command line names it, or they work in it (a server starts in its cell, and what it spawns inherits that). Another
 * run of the same fixture on the machine, under another TMPDIR, is not this run's.
 */
export function processesOfRun(tmp: string, ...needles: string[]): ProcEntry[] {
  const inside = [tmp, realpathOr(tmp)].map((d) => `${d}${path.sep}`);
  return processesMentioning(...needles).filter((p) => {
    const cwd = cwdOf(p.pid);
    return inside.some((d) => p.cmdline.includes(d) || `${cwd}${path.sep}`.startsWith(d));
  });
}

function cwdOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return '';
  }
}

function realpathOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** `mcp-matrix-*` directories directly under `tmp` (default: the OS temp dir): the harness's run dirs. */
export function runDirs(tmp: string = os.tmpdir()): string[] {
  try {
    return (
      readdirSync(tmp)
        // The harness's own run dirs only (mkdtemp of `mcp-matrix-`: six random characters). A test's scratch dir
        // such as `mcp-matrix-old-client-test-XXXXXX` may hold the same fixture's tarball while it runs beside.
        .filter((n) => /^mcp-matrix-[A-Za-z0-9]{6}$/.test(n))
        .map((n) => path.join(tmp, n))
    );
  } catch {
    return [];
  }
}

/** Run dirs that still hold something of `pkg` (its packed tarball or a cell that installed it). */
export function runDirsHolding(pkg: string, tmp?: string): string[] {
  return runDirs(tmp).filter((dir) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return false;
    }
    return entries.some(
      (e) =>
        (e.startsWith(`${pkg}-`) && e.endsWith('.tgz')) || (e.startsWith('cell-') && existsSync(path.join(dir, e, 'node_modules', pkg))),
    );
  });
}

/**
 * Values of `name` in the environment of every live process that carries `marker` in its environment (and, when given,
 * a variable that starts with `carrying`, such as `TMPDIR=<a run's own temp dir>/`).
 */
export function environValues(name: string, marker: string, carrying?: string): string[] {
  const out = new Set<string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const vars = read(`/proc/${entry}/environ`).split('\0');
    if (!vars.some((v) => v.startsWith(`${marker}=`))) continue;
    if (carrying !== undefined && !vars.some((v) => v.startsWith(carrying))) continue;
    for (const v of vars) if (v.startsWith(`${name}=`) && v.length > name.length + 1) out.add(v.slice(name.length + 1));
  }
  return [...out];
}

/** Live processes (other than this one) whose environment holds `name=value`: what a run started keeps what it was given. */
export function processesCarrying(name: string, value: string): ProcEntry[] {
  return processes().filter((p) => p.pid !== process.pid && read(`/proc/${p.pid}/environ`).split('\0').includes(`${name}=${value}`));
}

/** Every file under `dir` (skipping node_modules), for grepping outputs. */
export function filesUnder(dir: string, skip = new Set(['node_modules'])): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!skip.has(e.name)) walk(p);
      } else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
