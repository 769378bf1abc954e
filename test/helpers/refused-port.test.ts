// refusedPort (test/helpers/refused-port.ts): a port outside listen(0)'s range that refuses connections.
import net from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { refusedPort } from './refused-port.js';

describe('refusedPort', () => {
  it("refuses a connection, and lies below the kernel's ephemeral range", async () => {
    const port = await refusedPort();
    const range = '/proc/sys/net/ipv4/ip_local_port_range';
    const [low] = existsSync(range) ? readFileSync(range, 'utf8').trim().split(/\s+/).map(Number) : [1024];
    expect(port).toBeLessThan(Math.min(low!, 1024));
    const error = await new Promise<NodeJS.ErrnoException>((resolve) =>
      net
        .connect({ host: '127.0.0.1', port })
        .once('error', resolve)
        .once('connect', function (this: net.Socket) {
          this.destroy();
          resolve(Object.assign(new Error('connected'), { code: 'CONNECTED' }));
        }),
    );
    expect(error.code).toBe('ECONNREFUSED');
  });
});
