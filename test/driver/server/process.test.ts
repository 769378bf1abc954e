import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listeningSockets, procAvailable, socketInodes } from '../../../src/driver/server/proc.js';
import { NoiseLog, TailBuffer } from '../../../src/driver/server/output.js';
import { isNodeScript } from '../../../src/driver/server/process.js';

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
