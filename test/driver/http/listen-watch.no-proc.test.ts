// Without /proc (macOS, a locked-down container) the port's owner cannot be verified: the probe's own
// record of the listen is the next best evidence ("probe"), else the answer is taken on trust
// ("unverified"). /proc is switched off for this file only; the servers and sockets are real.
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listensOf, waitUntilListening } from '../../../src/driver/http/listen-watch.js';
import { phaseBench, type PhaseBench } from '../helpers/phase-bench.js';
import { quietPort } from '../../helpers/quiet-port.js';

vi.mock('../../../src/driver/server/proc.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/driver/server/proc.js')>()),
  procAvailable: () => false,
  groupListeners: () => null,
}));

const python = spawnSync('python3', ['-c', 'print(1)']).status === 0;

let bench: PhaseBench;
beforeAll(async () => {
  bench = await phaseBench('mcp-matrix-no-proc-');
});
afterAll(() => bench?.dispose());

describe('waitUntilListening without /proc', () => {
  it('a Node server the probe saw listen: "probe"', async () => {
    const port = await quietPort();
    const bin = bench.server(
      'listen.mjs',
      "import net from 'node:net';\nnet.createServer().listen(Number(process.argv[2]), '127.0.0.1');\n",
    );
    const proc = bench.context().startServer('http', { bin, args: [String(port)], env: {} }, { PATH: process.env.PATH ?? '' });
    expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toEqual({ ok: true, identity: 'probe', ms: expect.any(Number) });
    expect(listensOf(proc)).toEqual([{ address: '127.0.0.1', port, source: 'probe' }]);
    await proc.kill();
  });

  it.skipIf(!python)('the probe\'s record trailing the listen (a loaded machine connects in between): still "probe"', async () => {
    const port = await quietPort();
    // The probe's synchronous record normally follows the kernel's listen within microseconds; a CI run under load
    // connected in between and read "unverified". Here the record comes only once the harness has connected (the
    // child's accept), written as the probe writes it: the listen is a child's the probe cannot run in (Python), the
    // record the parent's. (A fixed 300 ms lag instead left a loaded machine less than PROBE_TRAIL_MS's 1000.)
    const child =
      'import socket, sys, time\ns = socket.socket()\ns.bind(("127.0.0.1", int(sys.argv[1])))\ns.listen()\nc, _ = s.accept()\nprint("accepted", flush=True)\ntime.sleep(60)\n';
    const bin = bench.server(
      'late-record.mjs',
      [
        "import { spawn } from 'node:child_process';",
        "import { appendFileSync } from 'node:fs';",
        'const port = Number(process.argv[2]);',
        `const c = spawn('python3', ['-c', ${JSON.stringify(child)}, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });`,
        "c.stdout.once('data', () => appendFileSync(process.env.MCP_MATRIX_PROBE_FILE, JSON.stringify({ type: 'listen', address: '127.0.0.1', port, family: 'IPv4', pid: process.pid }) + '\\n'));",
        'setInterval(() => {}, 1000);',
        '',
      ].join('\n'),
    );
    const proc = bench.context().startServer('http', { bin, args: [String(port)], env: {} }, { PATH: process.env.PATH ?? '' });
    expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toEqual({ ok: true, identity: 'probe', ms: expect.any(Number) });
    await proc.kill();
  });

  it.skipIf(!python)(
    'the trailing record waited for after other records of the probe (a listen of its own elsewhere): still "probe"',
    async () => {
      const port = await quietPort();
      // As above, but the server first listens on a port of its own choosing, so its probe file holds more than the
      // probe's first record when the port it was given answers: the probe runs in it all the same.
      const child =
        'import socket, sys, time\ns = socket.socket()\ns.bind(("127.0.0.1", int(sys.argv[1])))\ns.listen()\nc, _ = s.accept()\nprint("accepted", flush=True)\ntime.sleep(60)\n';
      const bin = bench.server(
        'late-record-after-others.mjs',
        [
          "import net from 'node:net';",
          "import { spawn } from 'node:child_process';",
          "import { appendFileSync } from 'node:fs';",
          'const port = Number(process.argv[2]);',
          "net.createServer().listen(0, '127.0.0.1', () => {",
          `  const c = spawn('python3', ['-c', ${JSON.stringify(child)}, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });`,
          "  c.stdout.once('data', () => appendFileSync(process.env.MCP_MATRIX_PROBE_FILE, JSON.stringify({ type: 'listen', address: '127.0.0.1', port, family: 'IPv4', pid: process.pid }) + '\\n'));",
          '});',
          'setInterval(() => {}, 1000);',
          '',
        ].join('\n'),
      );
      const proc = bench.context().startServer('http', { bin, args: [String(port)], env: {} }, { PATH: process.env.PATH ?? '' });
      expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toEqual({ ok: true, identity: 'probe', ms: expect.any(Number) });
      expect(listensOf(proc).map((l) => l.port)).toContain(port);
      expect(listensOf(proc)).toHaveLength(2);
      await proc.kill();
    },
  );

  it.skipIf(!python)('a server the probe cannot see into: "unverified"', async () => {
    const port = await quietPort();
    const bin = bench.server(
      'listen.py',
      '#!/usr/bin/env python3\nimport socket, sys, time\ns = socket.socket()\ns.bind(("127.0.0.1", int(sys.argv[1])))\ns.listen()\ntime.sleep(60)\n',
    );
    const proc = bench.context().startServer('http', { bin, args: [String(port)], env: {} }, { PATH: process.env.PATH ?? '' });
    expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toEqual({ ok: true, identity: 'unverified', ms: expect.any(Number) });
    expect(listensOf(proc)).toEqual([]);
    await proc.kill();
  });

  it("a listen the probe saw on another port does not make the port it was given the server's own", async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    const other = await quietPort();
    const bin = bench.server('other.mjs', `import net from 'node:net';\nnet.createServer().listen(${other}, '127.0.0.1');\n`);
    const proc = bench.context().startServer('http', { bin, args: [], env: {} }, { PATH: process.env.PATH ?? '' });
    try {
      expect(await waitUntilListening(proc, '127.0.0.1', other, 10_000)).toMatchObject({ ok: true, identity: 'probe' });
      expect(await waitUntilListening(proc, '127.0.0.1', port, 10_000)).toEqual({
        ok: true,
        identity: 'unverified',
        ms: expect.any(Number),
      });
    } finally {
      await proc.kill();
      await new Promise((r) => holder.close(r));
    }
  });
});
