// quietPort (test/helpers/quiet-port.ts): a port outside listen(0)'s range that a server can listen on.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralLow, quietPort } from './quiet-port.js';

describe('quietPort', () => {
  it("lies below the kernel's ephemeral range, is never handed out twice, and can be listened on", async () => {
    const ports = [await quietPort(), await quietPort(), await quietPort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow());
    }
    const s = net.createServer();
    await new Promise<void>((resolve, reject) => s.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
    await new Promise((r) => s.close(r));
  });
});
