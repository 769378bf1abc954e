// Ship the in-cell driver (its own program: src/driver, built to dist/driver with its package.json)
// into a directory, so that its bare imports resolve to the SDK installed there and nowhere else.
import { access, cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DRIVER_SOURCE = fileURLToPath(new URL('../driver/', import.meta.url));
// The contract the driver shares with the harness (src/contract) ships beside it: the driver imports `../contract/`.
const CONTRACT_SOURCE = fileURLToPath(new URL('../contract/', import.meta.url));

/** Where a shipped driver lives: `<dir>/.mcp-matrix/` holds the driver, its spec and its log. */
export interface DriverLayout {
  dir: string;
  entry: string;
  probe: string;
  log: string;
}

/** Copy the built driver (with its package.json: `"type": "module"`) to `<dir>/.mcp-matrix/driver`. */
export async function installDriver(targetDir: string): Promise<DriverLayout> {
  const manifest = path.join(DRIVER_SOURCE, 'package.json');
  // Without its manifest the driver's files are not ES modules in a cell: a harness build error, said as such.
  await access(manifest).catch(() => {
    throw new Error(`the driver's package.json is missing from ${DRIVER_SOURCE} (rebuild mcp-matrix: npm run build)`);
  });
  const dir = path.join(targetDir, '.mcp-matrix');
  const driverDir = path.join(dir, 'driver');
  await mkdir(driverDir, { recursive: true });
  const filter = (src: string) => !src.endsWith('.d.ts') && !src.endsWith('tsconfig.json');
  await cp(DRIVER_SOURCE, driverDir, { recursive: true, filter });
  await cp(CONTRACT_SOURCE, path.join(dir, 'contract'), { recursive: true, filter });
  return {
    dir,
    entry: path.join(driverDir, 'index.js'),
    probe: path.join(driverDir, 'probe', 'probe.js'),
    log: path.join(dir, 'driver.log'),
  };
}
