// Inside a server: the probe travels into every child it spawns. A launcher that sets NODE_OPTIONS of its own
// would leave the answering process unobserved, so the probe's `--import` is merged into the child's
// NODE_OPTIONS (the launcher's options first). Builtins only; never throws into the host program.

import { SDK_PACKAGES_ENV } from './sdk-load.js';

/** The probe's variables a child needs to record anything (its file, where the package and cell are, SDK names). */
export const PROBE_VARS = ['MCP_MATRIX_PROBE_FILE', 'MCP_MATRIX_PACKAGE_DIR', 'MCP_MATRIX_CELL_DIR', SDK_PACKAGES_ENV];

/**
 * A child's environment (`KEY=value` pairs, as child_process hands them to the system) with the probe
 * in it: `--import=<probeUrl>` merged into NODE_OPTIONS, and each of `vars` added when absent.
 */
export function carryProbe(envPairs: readonly string[], probeUrl: string, vars: Readonly<Record<string, string>>): string[] {
  const out = [...envPairs];
  const at = out.findIndex((p) => p.startsWith('NODE_OPTIONS='));
  const flag = `--import=${probeUrl}`;
  if (at < 0) out.push(`NODE_OPTIONS=${flag}`);
  else if (!out[at]!.includes(probeUrl)) {
    const own = out[at]!.slice('NODE_OPTIONS='.length).trim();
    out[at] = `NODE_OPTIONS=${own ? `${own} ${flag}` : flag}`;
  }
  for (const [name, value] of Object.entries(vars)) if (!out.some((p) => p.startsWith(`${name}=`))) out.push(`${name}=${value}`);
  return out;
}
