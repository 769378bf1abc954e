// Ctrl-C (and SIGTERM) in the middle of a real matrix run: exit 130, a partial results.json marked
// interrupted, no process of the run alive and no cell directory left.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, readResults, ROOT, tempDir } from './helpers/cli.js';
import { processes, processesMentioning, runDirs, sleep } from './helpers/procs.js';
import { TEST_CACHE_ENV } from '../helpers/node-runtimes.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function ppid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

const DRIVER = /(\/tmp\/[^ ]*mcp-matrix-[^/ ]+)\/cell-[^/ ]+\/\.mcp-matrix\/driver\/index\.js/;

/** Our run's driver processes (children of the CLI), with the run dir their path names. */
function ourDrivers(cliPid: number): { pid: number; runDir: string }[] {
  return processes().flatMap((p) => {
    const m = DRIVER.exec(p.cmdline);
    return m && ppid(p.pid) === cliPid ? [{ pid: p.pid, runDir: m[1]! }] : [];
  });
}

describe('interrupting a running matrix', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s while cells run their phases: exit 130, partial results, no survivors',
    async (signal) => {
      const out = await tempDir('mm-interrupt-');
      dirs.push(out);
      const child = spawn(
        process.execPath,
        [BIN, 'run', '--config', 'matrix.config.ts', '--out', out, '--progress', 'silent', '--concurrency', '2'],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            ...TEST_CACHE_ENV,
            NO_COLOR: '1',
            CI: 'true',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout.resume();
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

      // Wait until a cell is inside its phases: our driver runs and has started a server.
      let runDir: string | undefined;
      const seen = new Set<number>();
      const deadline = Date.now() + 240_000;
      while (Date.now() < deadline && child.exitCode === null) {
        const drivers = ourDrivers(child.pid!);
        runDir ??= drivers[0]?.runDir;
        if (runDir) {
          const members = processesMentioning(runDir);
          for (const p of members) seen.add(p.pid);
          if (members.some((p) => p.cmdline.includes('reference-mcp-server'))) break;
        }
        await sleep(100);
      }
      expect(runDir, `the run never reached a driver; stderr: ${stderr}`).toBeDefined();
      expect(existsSync(path.join(runDir!)), 'the run dir exists while the run is going').toBe(true);
      await sleep(300);
      for (const p of processesMentioning(runDir!)) seen.add(p.pid);

      // Stopping is bounded by the CLI's own timers (the forced stop 1 s after the signal, then 0.9 s at most); the wall
      // time after the signal follows the machine's load as well, so it is printed, and what would be a hang is the CLI
      // not ending by itself before this guard kills it.
      const sentAt = Date.now();
      child.kill(signal);
      let guard = false;
      const timer = setTimeout(() => {
        guard = true;
        child.kill('SIGKILL');
      }, 60_000);
      const code = await exited;
      clearTimeout(timer);
      const stopMs = Date.now() - sentAt;

      expect(guard, `the CLI ended by itself after ${signal} (hang guard 60 s); stderr: ${stderr}`).toBe(false);
      expect(code, stderr).toBe(130);
      console.log(`${signal} while cells run: exit after ${stopMs} ms`);
      expect(stderr).toMatch(new RegExp(`${signal}: stopping every cell`));
      const results = await readResults(out);
      expect(results.interrupted).toBe(true);
      expect(results.exitCode).toBe(130);
      expect(results.verdict).toBe('interrupted');
      // Cells that were interrupted say so; none is reported as a verdict failure of the server.
      for (const cell of results.cells) {
        for (const p of cell.phases) expect(p.verdict === 'failed' ? `${cell.id} ${p.phase}: ${p.message}` : 'ok').toBe('ok');
      }

      // No process of the run survives: no pid seen during the run is alive.
      // Killed ones end when the kernel gets to them: on a loaded machine that can be later than a fixed pause.
      const alive = () =>
        processes()
          .filter((p) => seen.has(p.pid) && p.cmdline.includes('mcp-matrix-'))
          .map((p) => `${p.pid} ${p.cmdline}`);
      const gone = Date.now() + 15_000;
      while (alive().length && Date.now() < gone) await sleep(100);
      expect(alive()).toEqual([]);
      expect(seen.size, 'the poll saw the run’s processes').toBeGreaterThan(0);
      // The run dir is gone at once (removed, or renamed to <run dir>.removing for a detached remover when
      // the disk is slower than the stop bound); within a bounded time nothing names it and nothing is left.
      expect(existsSync(runDir!), `${runDir} was left behind`).toBe(false);
      const until = Date.now() + 30_000;
      const left = () => [
        ...processesMentioning(runDir!).map((p) => `${p.pid} ${p.cmdline}`),
        ...runDirs().filter((d) => d.startsWith(runDir!)),
      ];
      while (left().length && Date.now() < until) await sleep(200);
      expect(left()).toEqual([]);
    },
    300_000,
  );
});
