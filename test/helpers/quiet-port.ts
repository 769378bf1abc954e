// A port for a server the test starts to listen on. A port bound and closed again (listen(0)) is free for any other
// test file's listen(0) or outgoing connection meanwhile: a true race, met under load in the seconds before a server
// listens. The kernel hands out those ports only from its ephemeral range (32768-60999 by default), so one under it,
// picked at random from many and free now, is taken meanwhile only by a process that names that very port.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';

const RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
/** Above the ports servers are commonly fixed to (3000, 5432, 8080 and the like). */
const LOW = 10_000;
const given = new Set<number>();

/** The first port of the kernel's ephemeral range (listen(0) and connect() take theirs from it). */
export function ephemeralLow(): number {
  const low = existsSync(RANGE) ? Number(readFileSync(RANGE, 'utf8').trim().split(/\s+/)[0]) : NaN;
  return Number.isInteger(low) && low > LOW ? low : 32_768;
}

/** A port under the ephemeral range that no process listens on now (every IPv4 address), never the same one twice. */
export async function quietPort(): Promise<number> {
  const high = ephemeralLow();
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
