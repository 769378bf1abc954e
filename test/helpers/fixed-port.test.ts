// fixedPort (test/helpers/fixed-port.ts): a free loopback port below the kernel's ephemeral range.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralLow, fixedPort } from './fixed-port.js';

const listen = (port: number): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('fixedPort', () => {
  it('lies below the ephemeral range, can be listened on, and passes over a port taken', async () => {
    const port = await fixedPort('fixed-port.test');
    expect(port).toBeLessThan(ephemeralLow());
    expect(port).toBeGreaterThanOrEqual(1024);
    const held = await listen(port);
    try {
      const next = await fixedPort('fixed-port.test');
      expect(next).not.toBe(port);
      expect(next).toBeLessThan(ephemeralLow());
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });

  it('two owners start their search far apart', async () => {
    const [a, b] = await Promise.all([fixedPort('side-driver.integration'), fixedPort('variant-side.integration')]);
    expect(Math.abs(a - b)).toBeGreaterThanOrEqual(100);
  });
});
