// What the orchestrator process itself spawned and when (from bench/measure/probe-cli.ts's log): counts,
// ordering, overlap of installs and phases, and installs by kind (server, client, runtime).
import path from 'node:path';
import { median } from './util.js';

export interface SpawnEntry {
  kind: 'spawn' | 'fork';
  command: string;
  args: string[];
  cwd?: string;
  start: number;
  end?: number;
}
/** A harness mark (src/util/marks.ts): `<cell id>:<moment>` and when, in epoch ms. */
export interface MarkEntry {
  name: string;
  at: number;
}
export interface ProbeLog {
  startedAt: number;
  exitedAt: number;
  maxRssKb: number;
  vmHwmKb?: number;
  spawns: SpawnEntry[];
  /** Absent in logs from before the marks. */
  marks?: MarkEntry[];
}
interface Span {
  cell: string | undefined;
  start: number;
  end: number;
}
export interface CellTimeline {
  /** The cell's first npm install started (install reuse's resolution, when it resolves first). */
  installStart: number;
  /** Its last npm install ended. */
  installEnd: number;
  driverStart: number | undefined;
  driverEnd: number | undefined;
  /** The harness's marks of this cell (src/util/marks.ts), ms from the CLI's start, each moment's first; absent in logs from before them. */
  marks?: Record<string, number>;
}
export type Orchestrator = ReturnType<typeof analyzeSpawns>;
export type Installs = ReturnType<typeof installCounts>;

const isNpm = (s: SpawnEntry): boolean => ['npm', 'npm-cli.js', 'npm.cmd'].includes(path.basename(s.command));

function keyOf(s: SpawnEntry): string {
  if (s.kind === 'fork') return 'driver (fork)';
  if (!isNpm(s)) return path.basename(s.command);
  const [a, b] = s.args;
  if (a === 'config') return `npm config ${b ?? ''}`.trim();
  if (a === 'view') return 'npm view';
  if (a?.startsWith('--')) return `npm ${a}`;
  return `npm ${a ?? ''}`.trim();
}

export function analyzeSpawns(probe: ProbeLog) {
  const t0 = probe.startedAt;
  const counts: Record<string, number> = {};
  for (const s of probe.spawns) counts[keyOf(s)] = (counts[keyOf(s)] ?? 0) + 1;
  const cellOf = (s: SpawnEntry): string | undefined => /cell-([^/]+)/.exec(s.cwd ?? '')?.[1];
  const span = (s: SpawnEntry): Span => ({ cell: cellOf(s), start: s.start - t0, end: (s.end ?? probe.exitedAt) - t0 });
  const installs = probe.spawns.filter((s) => keyOf(s) === 'npm install').map(span);
  const drivers = probe.spawns.filter((s) => s.kind === 'fork').map(span);
  const pack = probe.spawns.filter((s) => keyOf(s) === 'npm pack').map(span)[0];
  const firstInstall = Math.min(...installs.map((i) => i.start));
  // An install that starts while another cell's driver runs: installs and phases overlap.
  const installsDuringOtherPhases = installs.filter((i) =>
    drivers.some((d) => d.cell !== i.cell && d.start < i.end && d.end > i.start),
  ).length;
  const lastEnd = Math.max(...drivers.map((d) => d.end), ...installs.map((i) => i.end));
  const driverOf = (i: Span): Span | undefined => drivers.find((d) => d.cell === i.cell);
  // A cell's npm installs as one span: install reuse runs two (the resolution, then the install onto the copied
  // tree); reading each as a cell's install counted the resolution's end → fork as "install end → driver start".
  const byCell = new Map<string, Span>();
  for (const i of installs) {
    const key = i.cell ?? '?';
    const seen = byCell.get(key);
    byCell.set(key, seen ? { cell: key, start: Math.min(seen.start, i.start), end: Math.max(seen.end, i.end) } : { ...i, cell: key });
  }
  const cellInstalls = [...byCell.values()];
  // Per cell: install start → driver end; the sum over the span is the average number of busy cells.
  const busy = cellInstalls.map((i) => (driverOf(i)?.end ?? i.end) - i.start).reduce((a, b) => a + b, 0);
  const gaps = cellInstalls.flatMap((i) => {
    const d = driverOf(i);
    return d ? [d.start - i.end] : [];
  });
  const marks = marksByCell(probe);
  const perCell: Record<string, CellTimeline> = Object.fromEntries(
    cellInstalls.map((i) => {
      const d = driverOf(i);
      const m = marks[i.cell ?? '?'];
      return [
        i.cell ?? '?',
        { installStart: i.start, installEnd: i.end, driverStart: d?.start, driverEnd: d?.end, ...(m ? { marks: m } : {}) },
      ];
    }),
  );
  return {
    counts,
    perCell,
    beforeFirstSpawnMs: probe.spawns[0] ? probe.spawns[0].start - t0 : undefined,
    packStartMs: pack?.start,
    packMs: pack ? pack.end - pack.start : undefined,
    packBeforeInstalls: pack ? installs.every((i) => i.start >= pack.end) : undefined,
    firstInstallMs: Number.isFinite(firstInstall) ? firstInstall : undefined,
    installsDuringOtherPhases,
    installs: installs.length,
    averageBusyCells: lastEnd > firstInstall ? busy / (lastEnd - firstInstall) : undefined,
    installEndToDriverStartMs: median(gaps),
    afterLastCellMs: probe.exitedAt - t0 - lastEnd,
    processLifetimeMs: probe.exitedAt - t0,
  };
}

/** The harness's marks (`<cell id>:<moment>`) per cell: each moment's first time, in ms from the CLI's start. */
export function marksByCell(probe: ProbeLog): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const m of probe.marks ?? []) {
    const at = m.name.lastIndexOf(':');
    const cell = m.name.slice(0, at);
    const moment = m.name.slice(at + 1);
    (out[cell] ??= {})[moment] ??= m.at - probe.startedAt;
  }
  return out;
}

/**
 * Installs by kind, from the orchestrator's spawn log: a server install is an `npm install` in a cell's
 * directory, and npm's resolution there (`--package-lock-only`, install reuse asking which tree) is counted
 * apart; a client install one under `<run dir>/clients/` or into a new client cache entry; the conformance
 * suite's install (its cache entry, or `<run dir>/conformance`) is counted apart from the clients; a runtime
 * install an `npm pack` of a Node binary package (`node-<platform>-<arch>@<version>`; a cached or host runtime
 * spawns nothing). The distinct counts say whether anything was installed twice: one install per distinct
 * set is installs = distinct (cell dirs, client cache keys, Node releases).
 */
export function installCounts(probe: ProbeLog) {
  const installs = probe.spawns.filter((s) => isNpm(s) && s.args[0] === 'install');
  const dir = (s: SpawnEntry): string => (s.cwd ?? '').split(path.sep).join('/');
  const runtime = probe.spawns.filter((s) => isNpm(s) && s.args[0] === 'pack' && /^node-[a-z0-9]+-[a-z0-9]+@/.test(s.args[1] ?? ''));
  const inCell = installs.filter((s) => /\/cell-[^/]+$/.test(dir(s)));
  const resolutions = inCell.filter((s) => s.args.includes('--package-lock-only'));
  const servers = inCell.filter((s) => !s.args.includes('--package-lock-only'));
  // The client cache's key dir of an install into a new entry (`<key>/.partial-…`), else the run's `clients/<id>`.
  const cacheKey = (s: SpawnEntry): string | undefined => /\/([^/]+@[^/]+-[0-9a-f]{12})\/\.partial-[^/]+$/.exec(dir(s))?.[1];
  const isSuite = (s: SpawnEntry): boolean =>
    /^@modelcontextprotocol\+conformance@/.test(cacheKey(s) ?? '') || /\/conformance$/.test(dir(s));
  const tools = installs.filter((s) => /\/clients\/[^/]+$/.test(dir(s)) || cacheKey(s) !== undefined || isSuite(s));
  const suite = tools.filter(isSuite);
  const clients = tools.filter((s) => !isSuite(s));
  const distinct = (xs: SpawnEntry[], key: (s: SpawnEntry) => string): number => new Set(xs.map(key)).size;
  const drivers = probe.spawns.filter((s) => s.kind === 'fork');
  const life = (s: SpawnEntry): number => (s.end ?? probe.exitedAt) - s.start;
  const total = (xs: SpawnEntry[]): number => xs.reduce((a, x) => a + life(x), 0);
  const first = (xs: SpawnEntry[]): number | undefined => (xs.length ? Math.min(...xs.map((s) => s.start)) - probe.startedAt : undefined);
  return {
    server: servers.length,
    client: clients.length,
    runtime: runtime.length,
    /** npm's resolutions in cell dirs (install reuse), not installs. */
    resolutions: resolutions.length,
    /** The conformance suite's installs (not a client variant's). */
    suite: suite.length,
    other: installs.length - inCell.length - tools.length,
    distinct: {
      server: distinct(servers, dir),
      client: distinct(clients, (s) => cacheKey(s) ?? dir(s)),
      runtime: distinct(runtime, (s) => s.args[1] ?? ''),
    },
    runtimeMs: total(runtime),
    drivers: drivers.length,
    // Where the time goes: the work of each kind (summed process lifetimes) and when each kind began.
    work: { serverMs: total(servers), clientMs: total(clients), driverMs: total(drivers) },
    medianMs: { server: median(servers.map(life)), client: median(clients.map(life)), driver: median(drivers.map(life)) },
    firstMs: { server: first(servers), client: first(clients), driver: first(drivers) },
    lastEndMs: Math.max(0, ...[...installs, ...drivers].map((s) => (s.end ?? probe.exitedAt) - probe.startedAt)),
  };
}
