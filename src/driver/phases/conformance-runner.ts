// The conformance suite's process, shared by the scenarios of one phase (../probe/suite-gate.ts runs the CLI
// once per scenario in it): loading the suite costs ten times a scenario. A scenario runs here only after the one
// before left the process as it found it; else the next gets a new process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DriverSpec } from '../../contract/protocol.js';
import { signalGroup } from '../server/proc.js';
import { verdictTimer, type VerdictTimer } from '../timer-verdict.js';

type ConformanceSpec = Exclude<DriverSpec['phases']['conformance'], false | undefined>;

/** How one scenario's run of the CLI ended: its exit code and output, its timeout, or a suite that could not start. */
export type ScenarioEnd =
  | { ended: 'exit'; code: number | null; output: string; durationMs: number }
  | { ended: 'timeout'; output: string; durationMs: number }
  | { ended: 'error'; error: Error; durationMs: number };

export interface SuiteRunner {
  /** Runs the CLI with `args` in its turn (one scenario at a time). */
  run(args: string[], timeoutMs: number): Promise<ScenarioEnd>;
  /** Ends the suite's process. */
  close(): void;
}

/** The most of a scenario's output kept (its last lines name why it left no checks). */
const KEEP = 4000;
/** How long a finished scenario may take to leave its process (the gate closes idle connections for 200 ms). */
const SETTLE_MS = 5000;

type Event = { kind: 'exit'; code: number } | { kind: 'next' } | { kind: 'closed'; code: number | null; error?: Error };

/** One suite process: its frames read off stdout as events, its output kept for the scenario running. */
class SuiteProcess {
  output = '';
  private pending = '';
  private readonly events: Event[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  readonly child: ChildProcessWithoutNullStreams;
  private readonly frame: string;

  constructor(child: ChildProcessWithoutNullStreams, frame: string) {
    this.child = child;
    this.frame = frame;
    child.stdin.on('error', () => undefined);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.read(chunk));
    // Only what Node itself prints on a crash reaches stderr: the gate sends the scenario's stderr to stdout, in order.
    child.stderr.on('data', (chunk: string) => this.keep(chunk));
    child.once('error', (error) => this.push({ kind: 'closed', code: null, error }));
    child.once('close', (code) => {
      this.keep(this.pending);
      this.pending = '';
      this.push({ kind: 'closed', code });
    });
  }

  get running(): boolean {
    return !this.closed;
  }

  send(args: string[]): void {
    this.output = '';
    this.child.stdin.write(`${JSON.stringify(args)}\n`);
  }

  /** The next frame or the process's end; undefined when `ms` passed first. */
  async next(ms: number): Promise<Event | undefined> {
    // A frame read in the turn after a late timer (a stalled driver) is that frame, not the scenario's timeout.
    let timer: VerdictTimer | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = verdictTimer(() => resolve(undefined), ms)));
    try {
      for (;;) {
        const event = this.events.shift();
        if (event) return event;
        if (this.closed) return { kind: 'closed', code: this.child.exitCode };
        const woke = new Promise<'woke'>((resolve) => (this.wake = () => resolve('woke')));
        if ((await Promise.race([woke, timedOut])) === undefined) return undefined;
      }
    } finally {
      timer?.clear();
      this.wake = undefined;
    }
  }

  kill(): void {
    this.child.stdin.end();
    if (this.child.pid !== undefined && !this.closed) signalGroup(this.child.pid, 'SIGKILL');
  }

  private push(event: Event): void {
    if (this.closed) return;
    if (event.kind === 'closed') this.closed = true;
    this.events.push(event);
    this.wake?.();
  }

  private keep(text: string): void {
    this.output = (this.output + text).slice(-KEEP);
  }

  /** Output up to a frame is the running scenario's; a frame is `\n<frame> exit <code>\n` or `\n<frame> next\n`. */
  private read(chunk: string): void {
    this.pending += chunk;
    const marker = new RegExp(`\\n${this.frame} (?:exit (-?\\d+)|next)\\n`);
    for (let m = marker.exec(this.pending); m; m = marker.exec(this.pending)) {
      this.keep(this.pending.slice(0, m.index));
      this.pending = this.pending.slice(m.index + m[0].length);
      this.push(m[1] !== undefined ? { kind: 'exit', code: Number(m[1]) } : { kind: 'next' });
    }
    // Keep back only what could be the start of a frame.
    const hold = this.frame.length + 32;
    if (this.pending.length > hold) {
      this.keep(this.pending.slice(0, -hold));
      this.pending = this.pending.slice(-hold);
    }
  }
}

/** The suite's runner for one phase; its first process is started now, loading while the server starts. */
export function suiteRunner(spec: ConformanceSpec, driver: DriverSpec): SuiteRunner {
  // The gate the suite's process runs its scenarios through: shipped beside the probe, in the driver's directory.
  const gate = pathToFileURL(join(dirname(driver.probe), 'suite-gate.js')).href;
  // NODE_COMPILE_CACHE: Node reads back the code it compiled for the suite's files (checked against each file's
  // source and Node's own version and flags before use), which saves ~12 % of loading the suite.
  const compileCache = spec.suite.compileCache ? { NODE_COMPILE_CACHE: spec.suite.compileCache } : {};
  const start = (): SuiteProcess => {
    const frame = `mcp-matrix-frame-${randomBytes(12).toString('hex')}`;
    const env = { ...driver.baseEnv, NO_COLOR: '1', ...compileCache, MCP_MATRIX_SUITE_FRAME: frame };
    // Its own group, killed whole on a timeout; the run's cookie in its env lets the harness sweep it whatever happens.
    const child = spawn(spec.suite.node, ['--import', gate, spec.suite.cli], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    return new SuiteProcess(child, frame);
  };
  let current: SuiteProcess | undefined = start();
  // After a scenario: 'next' when the process may run another one; anything else ends it.
  let settled: Promise<boolean> = Promise.resolve(true);

  const ready = async (): Promise<SuiteProcess> => {
    const reusable = await settled;
    if (current?.running && reusable) return current;
    current?.kill();
    current = start();
    return current;
  };

  return {
    async run(args, timeoutMs) {
      const proc = await ready();
      const started = Date.now();
      proc.send(args);
      const event = await proc.next(timeoutMs);
      const durationMs = Date.now() - started;
      if (!event) {
        proc.kill();
        settled = Promise.resolve(false);
        return { ended: 'timeout', output: proc.output, durationMs };
      }
      if (event.kind === 'closed') {
        settled = Promise.resolve(false);
        return event.error
          ? { ended: 'error', error: event.error, durationMs }
          : { ended: 'exit', code: event.code, output: proc.output, durationMs };
      }
      const code = event.kind === 'exit' ? event.code : null;
      settled = proc.next(SETTLE_MS).then((e) => e?.kind === 'next');
      return { ended: 'exit', code, output: proc.output, durationMs };
    },
    close() {
      current?.kill();
      current = undefined;
    },
  };
}
