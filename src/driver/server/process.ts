// Starting and owning one server process: its own process group, bounded output capture, exit
// tracking and group kill. The driver owns every process, so no SDK escalation hides a hung server.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { launchOf } from './launch.js';
import { NoiseLog, TailBuffer, type Clip } from './output.js';
import { groupGone, groupMembers, signalGroup, type ProcInfo } from './proc.js';
import { settledWithin } from '../timer-verdict.js';
import { driverLoop } from '../loop-turns.js';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

export interface ServerOptions {
  bin: string;
  args: string[];
  env: Record<string, string>;
  probe: string;
  probeFile: string;
  packageDir: string;
  cellDir: string;
  /** stdio: the caller reads stdout as the protocol; otherwise stdout lines are recorded as noise. */
  protocolStdout: boolean;
  onSpawned(pid: number): void;
  onReaped(pid: number): void;
  /** Masks secrets before any output is cut (the driver's redactor). */
  clip?: Clip;
}

/** A bin is started with this Node, its `#!` flags and `--import <probe>` when it is JavaScript; else it is run as is. */
export { isNodeScript } from './launch.js';

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export class ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  readonly stderr: TailBuffer;
  readonly noise: NoiseLog;
  readonly startedAt = Date.now();
  readonly exited: Promise<ExitInfo>;
  /** Exit plus end of its stdio streams: everything it wrote has been read. */
  readonly closed: Promise<ExitInfo>;
  readonly spawnError: Promise<Error>;
  exitInfo: ExitInfo | undefined;
  /** Its exit was read after the driver stalled: the earliest time it could have happened (the loop's last look). */
  exitEarliestAt: number | undefined;
  /** When the driver asked it to stop (stdin EOF or SIGTERM): the leaks phase measures from here. */
  stopRequestedAt: number | undefined;
  stopKind: 'stdin EOF' | 'SIGTERM' | undefined;
  /** Its stdin's EOF was sent after the driver stalled: when (its grace runs from then). */
  stopSentLateAt: number | undefined;
  private reaped = false;
  readonly options: ServerOptions;

  constructor(options: ServerOptions) {
    this.options = options;
    this.stderr = new TailBuffer(8192, options.clip);
    this.noise = new NoiseLog(20, 300, options.clip);
    const probeUrl = pathToFileURL(options.probe).href;
    // As a user's shell runs it: the `#!` line's interpreter and flags (the variant's Node when that is node).
    const launch = launchOf(options.bin);
    const env: Record<string, string> = {
      ...options.env,
      ...(launch.kind === 'node' ? launch.env : {}),
      MCP_MATRIX_PROBE_FILE: options.probeFile,
      // Stack frames carry real paths (a /tmp symlink would otherwise hide the package).
      MCP_MATRIX_PACKAGE_DIR: real(options.packageDir),
      MCP_MATRIX_CELL_DIR: real(options.cellDir),
    };
    const [command, args] =
      launch.kind === 'node'
        ? [process.execPath, ['--import', probeUrl, ...launch.flags, options.bin, ...options.args]]
        : [options.bin, options.args];
    // Node children (a launcher, a wrapper script) load the probe too: what they load is the server's.
    env.NODE_OPTIONS = [env.NODE_OPTIONS, `--import=${probeUrl}`].filter(Boolean).join(' ');
    closeSync(openSync(options.probeFile, 'w'));
    this.child = spawn(command, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env, cwd: options.cellDir });
    this.pid = this.child.pid;
    this.spawnError = new Promise((resolve) => this.child.once('error', resolve));
    const loop = driverLoop();
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal, at: Date.now() };
        this.exitEarliestAt = loop.stalledSince(this.exitInfo.at);
        resolve(this.exitInfo);
      });
      // A failed spawn never emits 'exit'.
      this.child.once('error', () => {
        if (this.pid === undefined) {
          this.exitInfo = { code: null, signal: null, at: Date.now() };
          resolve(this.exitInfo);
        }
      });
    });
    this.closed = new Promise((resolve) => {
      this.child.once('close', (code, signal) => resolve(this.exitInfo ?? { code, signal, at: Date.now() }));
      void this.spawnError.then(() => this.exited.then(resolve));
    });
    // EPIPE on a dead server's stdin must not crash the driver.
    this.child.stdin?.on('error', () => {});
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => this.stderr.push(chunk));
    if (!options.protocolStdout) this.recordStdoutAsNoise();
    if (this.pid !== undefined) options.onSpawned(this.pid);
  }

  private recordStdoutAsNoise(): void {
    let partial = '';
    // The rest of an endless line whose start was already recorded: dropped up to its newline.
    let skipping = false;
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        if (skipping) skipping = false;
        else if (line.trim()) this.noise.push(line.replace(/\r$/, ''));
      }
      if (partial.length > 4096) {
        if (!skipping) this.noise.push(partial, true);
        skipping = true;
        partial = '';
      }
    });
  }

  get running(): boolean {
    return this.pid !== undefined && this.exitInfo === undefined;
  }

  /** Resolves with the exit, or null when `ms` passes first (no fixed sleep: the 'exit' event wins, even read late). */
  waitExit(ms: number): Promise<ExitInfo | null> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return settledWithin<ExitInfo, null>(this.exited, ms, () => null);
  }

  endStdin(): void {
    if (this.stopRequestedAt === undefined) {
      // A pipe's end goes out on a later loop turn: after a stall of the driver, the server's EOF came only then.
      const loop = driverLoop();
      this.child.stdin?.once('finish', () => {
        const at = Date.now();
        if (loop.stalledSince(at) !== undefined) this.stopSentLateAt = at;
      });
    }
    this.stopRequestedAt ??= Date.now();
    this.stopKind ??= 'stdin EOF';
    this.child.stdin?.end();
  }

  /**
   * SIGTERM to its whole process group, as Ctrl-C, systemd (KillMode=control-group) and `kill -- -<pgid>` do:
   * a `#!/bin/sh` bin that runs Node without `exec` stops with its Node child. A member that outlives it is a leak.
   */
  terminate(): void {
    this.stopRequestedAt ??= Date.now();
    this.stopKind ??= 'SIGTERM';
    if (this.running && this.pid !== undefined) signalGroup(this.pid, 'SIGTERM');
  }

  members(): ProcInfo[] | null {
    return this.pid === undefined ? [] : groupMembers(this.pid);
  }

  /** SIGKILL the whole group, wait (bounded) until it is gone, then report it reaped. */
  async kill(ms = 3000): Promise<boolean> {
    if (this.pid === undefined) return true;
    const deadline = Date.now() + ms;
    signalGroup(this.pid, 'SIGKILL');
    await this.waitExit(ms);
    while (!groupGone(this.pid) && Date.now() < deadline) {
      signalGroup(this.pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.markReapedIfGone();
  }

  markReapedIfGone(): boolean {
    if (this.pid === undefined || this.reaped) return true;
    if (this.running || !groupGone(this.pid)) return false;
    this.reaped = true;
    this.options.onReaped(this.pid);
    return true;
  }

  probeRecords(): Record<string, unknown>[] {
    try {
      return readFileSync(this.options.probeFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        });
    } catch {
      return [];
    }
  }
}
