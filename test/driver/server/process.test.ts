import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listeningSockets, procAvailable, socketInodes } from '../../../src/driver/server/proc.js';
import { NoiseLog, TailBuffer } from '../../../src/driver/server/output.js';
import { isNodeScript, ServerProcess } from '../../../src/driver/server/process.js';

describe('bounded output capture', () => {
  it('keeps only the tail of stderr however much is written', () => {
    const b = new TailBuffer(100);
    for (let i = 0; i < 10_000; i++) b.push(`line ${i}\n`);
    const tail = b.tail();
    expect(tail.length).toBeLessThanOrEqual(100);
    expect(tail.endsWith('line 9999')).toBe(true);
  });

  it('keeps the first lines of stdout noise, cut, and counts the rest', () => {
    const n = new NoiseLog(3, 5);
    for (let i = 0; i < 10; i++) n.push(`noise-${i}`);
    expect(n.lines).toEqual(['noise…', 'noise…', 'noise…']);
    expect(n.dropped).toBe(7);
  });
});

describe('isNodeScript', () => {
  it('recognises JS by extension', () => {
    expect(isNodeScript('/x/server.mjs')).toBe(true);
    expect(isNodeScript('/x/server.cjs')).toBe(true);
    expect(isNodeScript('/nonexistent/binary')).toBe(false);
  });
});

describe.runIf(procAvailable())('/proc listeners', () => {
  it('finds our own listening socket by inode and port', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const sockets = listeningSockets()!;
      const mine = socketInodes(process.pid)
        .map((i) => sockets.get(i))
        .filter(Boolean);
      expect(mine).toContainEqual(expect.objectContaining({ address: '127.0.0.1', port }));
    } finally {
      server.close();
    }
  });
});

/** A zombie (exited, its exit not read yet) or gone. */
function exited(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe.runIf(procAvailable())('waitExit after a stall', () => {
  // stdio's crash wording waits 500 ms for the exit: a driver descheduled past that bound must still read the
  // exit (the true cause), not 'no exit' (then worded "Connection closed" or "write EPIPE").
  it('an exit that came while the driver was busy past the bound is the answer, not null', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-matrix-process-test-'));
    try {
      const proc = new ServerProcess({
        bin: '/bin/sh',
        args: ['-c', 'read line; exit 1'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        probe: join(dir, 'probe.mjs'),
        probeFile: join(dir, 'probe.jsonl'),
        packageDir: dir,
        cellDir: dir,
        protocolStdout: true,
        onSpawned: () => {},
        onReaped: () => {},
      });
      const exit = proc.waitExit(50);
      const begun = Date.now();
      proc.child.stdin!.write('crash\n');
      // Busy (as a descheduled driver is) until its exit has happened, unread, and the 50 ms bound is past.
      const guard = begun + 60_000;
      while ((!exited(proc.pid!) || Date.now() - begun <= 100) && Date.now() < guard);
      expect(exited(proc.pid!)).toBe(true);
      await expect(exit).resolves.toMatchObject({ code: 1, signal: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
