// Shared by every measurement: the repository's paths, medians and formatting, a child run timed in
// wall time AND CPU time (the children's user + system time, read from /proc/self/stat around it).
// CPU-s is the steadier figure on a shared machine: other engineers' load stretches wall time, not ours.
import { execFileSync, spawn, type ExecFileSyncOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file runs from bench/.build/measure/ (compiled) or bench/measure/ (source). */
export const ROOT = fileURLToPath(new URL(import.meta.url.includes('/.build/') ? '../../../' : '../../', import.meta.url));
export const RUN_BOUND_MS = 20 * 60_000;
/** The cores this machine gives a run: CPU-s divided by these is the least wall time a run can take. */
export const CORES = os.availableParallelism();

export const median = (xs: readonly (number | undefined)[]): number | undefined => {
  const v = xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1]! + v[m]!) / 2;
};
export function round(x: number, d?: number): number;
export function round(x: number | undefined, d?: number): number | undefined;
export function round(x: number | undefined, d = 0): number | undefined {
  return x === undefined ? undefined : Math.round(x * 10 ** d) / 10 ** d;
}
export const ms = (x: number | undefined): string => (x === undefined ? '–' : `${Math.round(x)} ms`);
export const sec = (x: number | undefined): string => (x === undefined ? '–' : `${(x / 1000).toFixed(1)} s`);
export const pct = (x: number | undefined): string => (x === undefined ? '–' : `${(x * 100).toFixed(1)} %`);
export const ratio = (x: number | undefined): string => (x === undefined ? '–' : `${x.toFixed(2)}x`);
export const log = (...a: unknown[]): void => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);
export const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

export function table(title: string, head: string[], rows: unknown[][]): string {
  const all = [head, ...rows].map((r) => r.map((c) => String(c ?? '–')));
  const w = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]): string => `  ${r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ')}`;
  return [`\n${title}`, line(all[0]!), `  ${w.map((n) => '-'.repeat(n)).join('  ')}`, ...all.slice(1).map(line)].join('\n');
}

/** A command's trimmed stdout, or undefined when it fails. */
export function sh(cmd: string, args: string[], opts: ExecFileSyncOptions = {}): string | undefined {
  try {
    return String(execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], ...opts })).trim();
  } catch {
    return undefined;
  }
}

/** User + system CPU of every reaped child of this process (and theirs), in ms: fields 16 and 17 of /proc/self/stat. */
export function childCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name, field 3 is at index 0: cutime is field 16, cstime field 17 (clock ticks of 10 ms).
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

export interface Timed {
  wallMs: number;
  /** CPU of the child and every descendant it reaped; undefined without /proc. Exact only when no other child ends meanwhile. */
  cpuMs: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const running = new Set<number>();
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}
process.on('SIGINT', () => {
  for (const pid of running) killGroup(pid);
  process.exit(130);
});

/** Run a child in its own process group; resolve with wall and CPU time, exit code and output tails. */
export function timed(
  cmd: string,
  args: string[],
  { cwd = ROOT, env = process.env, boundMs = RUN_BOUND_MS }: { cwd?: string; env?: NodeJS.ProcessEnv; boundMs?: number } = {},
): Promise<Timed> {
  return new Promise((resolve) => {
    const cpu0 = childCpuMs();
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pid = child.pid;
    if (pid !== undefined) running.add(pid);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
    const timer = setTimeout(() => pid !== undefined && killGroup(pid), boundMs);
    let settled = false;
    const done = (code: number | null, signal: NodeJS.Signals | null, why = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      const cpu1 = childCpuMs();
      const cpuMs = cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0;
      resolve({ wallMs: performance.now() - t0, cpuMs, code, signal, stdout: out, stderr: err + why });
    };
    child.on('error', (e) => done(null, null, `\n${e.message}`));
    child.on('close', (code, signal) => done(code, signal));
  });
}

/** The commit a checkout is at (short), for the record. */
export const gitHead = (dir: string): string => sh('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']) ?? 'unknown';
export const rel = (p: string): string => path.relative(ROOT, p);
