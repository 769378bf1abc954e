// A loopback port for a server that must listen on a fixed port for a whole test (a fixed metrics port). A port from
// listen(0) is in the kernel's ephemeral range, where any other file's listen(0) or outgoing connection can take it
// between the pick and the server's listen (a true race under load); below that range only an explicit bind takes one.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';

const RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
/** How far below the ephemeral range the ports are looked for; each caller starts at its own place in it. */
const SPAN = 8000;

/** The lowest port the kernel hands out by itself (Linux's default when it cannot tell). */
export function ephemeralLow(): number {
  const [low] = existsSync(RANGE) ? readFileSync(RANGE, 'utf8').trim().split(/\s+/).map(Number) : [];
  return Number.isInteger(low) ? low! : 32768;
}

/**
 * A loopback port below the kernel's ephemeral range that is free now. `owner` (a test file's name) picks where the
 * search starts, so two files looking at once start far apart and never take each other's.
 */
export async function fixedPort(owner: string): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, high - SPAN);
  if (high - low < 100) throw new Error(`no room below the ephemeral range (${high}) for a fixed port`);
  let hash = 0;
  for (const c of owner) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const start = low + (hash % Math.floor((high - low) / 100)) * 100;
  for (let i = 0; i < high - low; i++) {
    const port = low + ((start - low + i) % (high - low));
    if (await free(port)) return port;
  }
  throw new Error(`no free loopback port in ${low}-${high - 1}`);
}

function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
