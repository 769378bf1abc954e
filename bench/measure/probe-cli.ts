// Preloaded into the CLI process only (`node --import bench/.build/measure/probe-cli.js bin/mcp-matrix.js …`):
// records every child process the orchestrator starts (command, args, cwd, start/exit times) and the
// orchestrator's own peak RSS, and writes them as JSON to $MCP_MATRIX_BENCH_PROBE at exit.
// With them, the harness's own marks (src/util/marks.ts: a cell's steps outside its driver), as epoch ms.
// Children do not inherit it: npm is a separate program and the driver is forked with execArgv [].
import type { ChildProcess } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import type { MarkEntry, SpawnEntry } from './spawns.js';

const out = process.env.MCP_MATRIX_BENCH_PROBE;
// src/util/marks.ts's MARK_PREFIX (the bench is compiled file by file: it cannot import src/ at run time).
const MARK_PREFIX = 'mcp-matrix:';
if (out) {
  const require = createRequire(import.meta.url);
  const cp = require('node:child_process') as Record<'spawn' | 'fork', (...args: unknown[]) => ChildProcess>;
  const startedAt = Date.now();
  const spawns: SpawnEntry[] = [];
  const wrap = (kind: SpawnEntry['kind'], original: (...args: unknown[]) => ChildProcess) =>
    function (this: unknown, ...args: unknown[]): ChildProcess {
      const child = original.apply(this, args);
      const [command, list] = args;
      const opts = (args.find((a, i) => i > 0 && a && typeof a === 'object' && !Array.isArray(a)) ?? {}) as { cwd?: unknown };
      const entry: SpawnEntry = {
        kind,
        command: String(command),
        args: Array.isArray(list) ? list.map(String) : [],
        cwd: opts.cwd ? String(opts.cwd) : undefined,
        start: Date.now(),
        end: undefined,
      };
      spawns.push(entry);
      child.once('exit', () => (entry.end = Date.now()));
      return child;
    };
  // fork() calls the module's own spawn, not the export, so the two never count one child twice.
  cp.spawn = wrap('spawn', cp.spawn);
  cp.fork = wrap('fork', cp.fork);
  syncBuiltinESMExports();
  const marks = (): MarkEntry[] =>
    performance
      .getEntriesByType('mark')
      .filter((m) => m.name.startsWith(MARK_PREFIX))
      .map((m) => ({ name: m.name.slice(MARK_PREFIX.length), at: performance.timeOrigin + m.startTime }));
  process.once('exit', () => {
    let hwmKb: number | undefined;
    try {
      hwmKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
    } catch {
      hwmKb = undefined;
    }
    writeFileSync(
      out,
      JSON.stringify({ startedAt, exitedAt: Date.now(), maxRssKb: process.resourceUsage().maxRSS, vmHwmKb: hwmKb, spawns, marks: marks() }),
    );
  });
}
