// A client installed apart from any server, for real: the exact client package, the driver shipped into it
// (so the driver's bare imports resolve to that client), and a client that cannot be installed named as such.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientDir, installClient } from '../../src/cells/client-install.js';
import type { PlannedClient } from '../../src/plan/clients.js';
import { tempDir } from '../e2e/helpers/cli.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const client = (version: string): PlannedClient => ({
  id: `client-${version}`,
  pin: version,
  major: 1,
  version,
  package: '@modelcontextprotocol/sdk',
  installSet: { '@modelcontextprotocol/sdk': version },
});

describe('installClient', () => {
  it('installs the client under <runDir>/clients/<id>/ with the driver in it, resolving that client', async () => {
    const runDir = await tempDir('mm-client-install-');
    dirs.push(runDir);
    const r = await installClient(runDir, client('1.0.0'), { attempts: 2, timeoutMs: 240_000 });
    expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
    if (!r.ok) return;
    expect(r.value.dir).toBe(clientDir(runDir, { id: 'client-1.0.0' }));
    expect(r.value.dir).toBe(path.join(runDir, 'clients', 'client-1.0.0'));
    // Shipped from the harness's driver program (its manifest makes its files ES modules there).
    const driverDir = path.dirname(r.value.driver.entry);
    expect(driverDir).toBe(path.join(r.value.dir, '.mcp-matrix', 'driver'));
    expect(existsSync(path.join(driverDir, 'package.json'))).toBe(true);
    // What a bare import from the shipped driver resolves to: the client's install, at the pinned version.
    const fromDriver = createRequire(r.value.driver.entry);
    const own = path.join(r.value.dir, 'node_modules', '@modelcontextprotocol', 'sdk');
    expect(fromDriver.resolve('@modelcontextprotocol/sdk/client/index.js').startsWith(own + path.sep)).toBe(true);
    expect(JSON.parse(await readFile(path.join(own, 'package.json'), 'utf8')).version).toBe('1.0.0');
  }, 300_000);

  it('a client that cannot be installed is infrastructure, naming the client, its directory and npm’s code', async () => {
    const runDir = await tempDir('mm-client-install-');
    dirs.push(runDir);
    const r = await installClient(runDir, client('1.0.999'), { attempts: 1, timeoutMs: 240_000 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('infrastructure');
    expect(r.error.message).toMatch(
      new RegExp(
        `^the client @modelcontextprotocol/sdk@1\\.0\\.999 \\(1\\.0\\.999\\) could not be installed into ${runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/clients/client-1\\.0\\.999: npm install \\(ETARGET\\)`,
      ),
    );
  }, 300_000);
});
