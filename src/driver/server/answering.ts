// Which process of a server's group answered: a bin may be a launcher whose child is the real server, so
// what the launcher loaded says nothing. When a server answers its group is read once (/proc): unseen members
// are named with why, and the probed process that answered is told from the launcher.

import { readFileSync } from 'node:fs';
import { basename, isAbsolute, relative, sep } from 'node:path';
import { environOf, groupMembers } from './proc.js';
import type { ServerProcess } from './process.js';

/** A member of an answering server's group that ran without the probe (the SDK it loaded is unseen). */
export interface Unobserved {
  pid: number;
  /** Its program and script, paths inside the cell relative to it: `node node_modules/x/dist/index.js`. */
  command: string;
  /** Why the probe is not in it, as its environment tells. */
  why: string;
}

/** A probed process as its probe record tells: the Node it runs, its parent. */
export interface Probed {
  pid: number;
  ppid?: number;
  node?: string;
}

interface Member {
  pid: number;
  ppid: number | undefined;
  cmdline: string[];
  env: Map<string, string> | null;
}

/** The servers that answered, each with its group as it was at that moment (null: /proc cannot tell). */
export class AnsweredServers {
  private readonly groups = new WeakMap<ServerProcess, Member[] | null>();

  add(proc: ServerProcess): this {
    if (!this.groups.has(proc)) this.groups.set(proc, snapshot(proc));
    return this;
  }

  has(proc: ServerProcess): boolean {
    return this.groups.has(proc);
  }

  /** Who answered for `proc`: the probed processes that did, and the members the probe never saw. */
  answering(proc: ServerProcess, cellDirs: readonly string[], probeUrl: string): { answering: Probed[]; unobserved: Unobserved[] } {
    const records = proc.probeRecords();
    const probed = probedOf(records);
    const members = this.groups.get(proc) ?? null;
    const seen = new Set(probed.map((p) => p.pid));
    const unseen = (members ?? []).filter((m) => !seen.has(m.pid));
    // A wrapper (a shell that runs node without exec) is an ancestor of a probed process: it is not what answered.
    const parent = new Map<number, number | undefined>([
      ...(members ?? []).map((m) => [m.pid, m.ppid] as const),
      ...probed.map((p) => [p.pid, p.ppid] as const),
    ]);
    const ancestors = new Set<number>();
    for (const p of probed) for (let a = parent.get(p.pid); a !== undefined && !ancestors.has(a); a = parent.get(a)) ancestors.add(a);
    const unobserved = unseen.filter((m) => !ancestors.has(m.pid)).map((m) => describe(m, cellDirs, probeUrl));
    const alive = members ? probed.filter((p) => members.some((m) => m.pid === p.pid)) : probed;
    return { answering: answeringOf(alive.length ? alive : probed, records), unobserved };
  }
}

/**
 * The probed processes that answered: those that loaded an SDK copy, else the innermost ones (a
 * launcher is the parent of the process it started, so it is never innermost).
 */
export function answeringOf(probed: readonly Probed[], records: readonly Record<string, unknown>[]): Probed[] {
  const loaders = new Set(records.filter((r) => r.type === 'sdk').map((r) => r.pid));
  const withSdk = probed.filter((p) => loaders.has(p.pid));
  if (withSdk.length) return withSdk;
  const parents = new Set(probed.map((p) => p.ppid));
  return probed.filter((p) => !parents.has(p.pid));
}

/** Every process the probe loaded in, once each, in start order. */
export function probedOf(records: readonly Record<string, unknown>[]): Probed[] {
  const out = new Map<number, Probed>();
  for (const r of records) {
    if (r.type !== 'probe' || typeof r.pid !== 'number' || out.has(r.pid)) continue;
    out.set(r.pid, {
      pid: r.pid,
      ...(typeof r.ppid === 'number' ? { ppid: r.ppid } : {}),
      ...(typeof r.node === 'string' ? { node: r.node } : {}),
    });
  }
  return [...out.values()];
}

/** Why a process that ran without the probe did, from its (exec-time) environment. */
export function whyUnprobed(env: Map<string, string> | null, probeUrl: string): string {
  if (!env) return 'its environment could not be read';
  const options = env.get('NODE_OPTIONS');
  if (options === undefined) return 'its environment has no NODE_OPTIONS, so it did not load the probe';
  if (!options.includes(probeUrl)) return `its NODE_OPTIONS "${options}" replaced the harness's, so it did not load the probe`;
  if (!env.has('MCP_MATRIX_PROBE_FILE')) return 'its environment dropped MCP_MATRIX_PROBE_FILE, so the probe recorded nothing';
  return 'the probe in its NODE_OPTIONS recorded nothing (it is not a Node program, or Node refused the option)';
}

function describe(m: Member, cellDirs: readonly string[], probeUrl: string): Unobserved {
  const inCell = (word: string): string => {
    const cell = isAbsolute(word) ? cellDirs.find((d) => word.startsWith(d + sep)) : undefined;
    return cell ? relative(cell, word) : word;
  };
  const [program, ...args] = m.cmdline;
  const script = args.find((a) => !a.startsWith('-'));
  const command = [program === undefined ? '?' : basename(program), ...(script ? [inCell(script)] : [])].join(' ');
  return { pid: m.pid, command, why: whyUnprobed(m.env, probeUrl) };
}

function snapshot(proc: ServerProcess): Member[] | null {
  if (proc.pid === undefined) return [];
  const members = groupMembers(proc.pid);
  if (!members) return null;
  const probed = new Set(probedOf(proc.probeRecords()).map((p) => p.pid));
  return members.map((m) => ({
    pid: m.pid,
    ppid: parentOf(m.pid),
    cmdline: readCmdline(m.pid),
    // Only the unprobed are explained; a probed process's environment is not read.
    env: probed.has(m.pid) ? null : environOf(m.pid),
  }));
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function readCmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}
