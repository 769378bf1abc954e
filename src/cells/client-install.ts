// A client variant's client, installed once per run apart from every server (<runDir>/clients/<client id>/),
// with the driver shipped into it: the driver's bare imports then resolve to that client and nothing else.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PlannedClient } from '../plan/clients.js';
import { installDriver, type DriverLayout } from './driver-ship.js';
import { installCell } from './install.js';
import { describeInfraError } from '../util/infra.js';
import { errorMessage, fail, ok, type Result } from '../util/result.js';

export interface ClientInstall {
  dir: string;
  /** The driver shipped into the client's install. */
  driver: DriverLayout;
  durationMs: number;
  attempts: number;
}

export interface ClientInstallOptions {
  attempts: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function clientDir(runDir: string, client: Pick<PlannedClient, 'id'>): string {
  return path.join(runDir, 'clients', client.id);
}

/**
 * Installs the client's install set; any failure is infrastructure (the plan found the versions on the
 * registry, and the client is the harness's instrument, not the server under test).
 */
export async function installClient(runDir: string, client: PlannedClient, options: ClientInstallOptions): Promise<Result<ClientInstall>> {
  const dir = clientDir(runDir, client);
  const what = `the client ${client.package}@${client.version} (${client.pin})`;
  try {
    await mkdir(dir, { recursive: true });
    const manifest = {
      name: 'mcp-matrix-client',
      private: true,
      description: `mcp-matrix client ${client.id}`,
      dependencies: client.installSet,
    };
    await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await writeFile(path.join(dir, '.npmrc'), 'fund=false\naudit=false\nupdate-notifier=false\nprefer-offline=true\n');
    const install = await installCell(dir, {
      attempts: options.attempts,
      timeoutMs: options.timeoutMs,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (install.kind !== 'installed') {
      const cause = install.kind === 'not-measured' && install.cause ? install.cause : `npm install (${install.code}): ${install.message}`;
      return fail('infrastructure', `${what} could not be installed into ${dir}: ${cause}`);
    }
    const driver = await installDriver(dir);
    return ok({ dir, driver, durationMs: install.durationMs, attempts: install.attempts });
  } catch (error) {
    return fail('infrastructure', `${what} could not be installed into ${dir}: ${describeInfraError(error) ?? errorMessage(error)}`);
  }
}
