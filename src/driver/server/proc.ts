// Linux /proc readers: a process group's members, who carries the run's cookie, who listens on which port. Each
// returns null when /proc cannot answer (callers record "unverified"); the orchestrator reads the cookie here too.

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';

export interface ProcInfo {
  pid: number;
  state: string;
  cmdline: string;
}

export interface Listener {
  address: string;
  port: number;
  inode: string;
}

export function procAvailable(): boolean {
  return existsSync('/proc/self/stat') && existsSync('/proc/net/tcp');
}

function readStat(pid: number): { state: string; pgrp: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may contain spaces and parentheses: the fields start after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '?', pgrp: Number(rest[2]) };
  } catch {
    return null;
  }
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

/** Every pid /proc lists, or null when /proc cannot answer. */
function allPids(): number[] | null {
  if (!procAvailable()) return null;
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return null;
  }
}

/** Live (non-zombie) members of a process group; zombies may never be reaped inside a container. */
export function groupMembers(pgid: number): ProcInfo[] | null {
  const pids = allPids();
  if (!pids) return null;
  const out: ProcInfo[] = [];
  for (const pid of pids) {
    const stat = readStat(pid);
    if (!stat || stat.pgrp !== pgid || stat.state === 'Z' || stat.state === 'X') continue;
    out.push({ pid, state: stat.state, cmdline: readCmdline(pid) });
  }
  return out;
}

/** A Node process (so it has the probe and a SIGUSR2 handler; to anything else SIGUSR2 is fatal). */
export function isNodeProcess(pid: number): boolean {
  try {
    return /^node/.test(basename(readlinkSync(`/proc/${pid}/exe`)));
  } catch {
    return false;
  }
}

/** True when nothing of the group is left; falls back to kill(-pgid, 0) without /proc. */
export function groupGone(pgid: number): boolean {
  const members = groupMembers(pgid);
  if (members) return members.length === 0;
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

function hexToIPv4(hex: string): string {
  const bytes = hex.match(/../g) ?? [];
  return bytes
    .map((b) => parseInt(b, 16))
    .reverse()
    .join('.');
}

function hexToIPv6(hex: string): string {
  const words: string[] = [];
  for (let i = 0; i < 32; i += 8) {
    const word = (hex.slice(i, i + 8).match(/../g) ?? []).reverse().join('');
    words.push(word.slice(0, 4), word.slice(4, 8));
  }
  const text = words.map((w) => parseInt(w, 16).toString(16)).join(':');
  if (text === '0:0:0:0:0:0:0:0') return '::';
  if (text.startsWith('0:0:0:0:0:ffff:')) return hexToIPv4(hex.slice(24));
  return text.replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** Sockets in LISTEN state, by inode, from /proc/net/tcp and tcp6 (the caller's network namespace). */
export function listeningSockets(): Map<string, Listener> | null {
  const out = new Map<string, Listener>();
  let any = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
      any = true;
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue;
      const [addr = '', port = '0'] = (f[1] ?? '').split(':');
      const address = file.endsWith('6') ? hexToIPv6(addr) : hexToIPv4(addr);
      const inode = f[9] ?? '';
      out.set(inode, { address, port: parseInt(port, 16), inode });
    }
  }
  return any ? out : null;
}

export function socketInodes(pid: number): string[] {
  const out: string[] = [];
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) out.push(m[1]);
    } catch {
      // the fd closed while we looked
    }
  }
  return out;
}

/** TCP listeners held by any process of the group, or null when /proc cannot tell. */
export function groupListeners(pgid: number): (Listener & { pid: number })[] | null {
  const members = groupMembers(pgid);
  const sockets = listeningSockets();
  if (!members || !sockets) return null;
  const out: (Listener & { pid: number })[] = [];
  for (const member of members) {
    for (const inode of socketInodes(member.pid)) {
      const listener = sockets.get(inode);
      if (listener) out.push({ ...listener, pid: member.pid });
    }
  }
  return out;
}

/** The environment a process was started with (its exec-time environ), or null when unreadable. */
export function environOf(pid: number): Map<string, string> | null {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return null;
  }
  const env = new Map<string, string>();
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

export interface Carrier extends ProcInfo {
  pgrp: number;
  /** The values of the variables asked for, as the process's environment holds them. */
  vars: Record<string, string>;
}

/**
 * Live processes whose environment holds `name` (with `value`, when given), whatever their process
 * group or session: a child started with `detached: true` keeps the environment it inherited. Returns
 * null without /proc. `also` names further variables to read back (attribution).
 */
export function carriers(name: string, value?: string, also: string[] = []): Carrier[] | null {
  const pids = allPids();
  if (!pids) return null;
  const out: Carrier[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const env = environOf(pid);
    const found = env?.get(name);
    if (found === undefined || (value !== undefined && found !== value)) continue;
    const stat = readStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    const vars: Record<string, string> = { [name]: found };
    for (const key of also) {
      const v = env!.get(key);
      if (v !== undefined) vars[key] = v;
    }
    out.push({ pid, state: stat.state, pgrp: stat.pgrp, cmdline: readCmdline(pid), vars });
  }
  return out;
}

/** Start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat): a pid plus this names one process. */
export function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The process that holds a TCP listener on `port` (any address), or null when /proc cannot tell. */
export function portHolder(port: number): ProcInfo | null {
  const sockets = listeningSockets();
  if (!sockets) return null;
  const inodes = new Set([...sockets.values()].filter((l) => l.port === port).map((l) => l.inode));
  if (inodes.size === 0) return null;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (socketInodes(pid).some((inode) => inodes.has(inode))) {
      return { pid, state: readStat(pid)?.state ?? '?', cmdline: readCmdline(pid) };
    }
  }
  return null;
}
