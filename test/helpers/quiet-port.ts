// A port for a server the test starts to listen on. A port bound and closed again (listen(0)) is free for any other
// test file's listen(0) or outgoing connection meanwhile: a true race, met under load in the seconds before a server
// listens. The kernel hands out those ports only from its ephemeral range (32768-60999 by default), so one under it,
// picked at random from many and free now, is taken meanwhile only by a process that names that very port.
import net from 'node:net';
import { ephemeralLow } from './fixed-port.js';

/** Above the ports servers are commonly fixed to (3000, 5432, 8080 and the like). */
const LOW = 10_000;
/** The top of the ephemeral range's neighbourhood is fixedPort()'s (test/helpers/fixed-port.ts): kept apart. */
const FIXED_SPAN = 8000;
const given = new Set<number>();

/**
 * A port under the ephemeral range (and under fixedPort's ports) that no process listens on now, on any IPv4 address,
 * never the same one twice in this process: for a server that must listen where it is told, once or several times.
 */
export async function quietPort(): Promise<number> {
  const high = ephemeralLow() - FIXED_SPAN;
  if (high - LOW < 1000) throw new Error(`no room between ${LOW} and the ephemeral range for a quiet port`);
  for (let i = 0; i < 200; i++) {
    const port = LOW + Math.floor(Math.random() * (high - LOW));
    if (given.has(port) || !(await free(port))) continue;
    given.add(port);
    return port;
  }
  throw new Error(`no free port found between ${LOW} and ${high - 1}`);
}

function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });
}
