// The strict leg init proposes: when the package's own lockfile is pnpm's or Yarn's, its authors' tests run in a
// tree npm users never see, and its users are likely to install strictly too. One cell: the newest pin again,
// installed by Yarn with Plug'n'Play for a PnP project, else by pnpm with hoist=false.
import type { InitCell } from './cells.js';
import type { WorkflowRepo } from './repo.js';

export function strictLeg(cells: readonly InitCell[], repo: Pick<WorkflowRepo, 'pm' | 'lockfile' | 'pnp'>): InitCell[] {
  const newest = cells.at(-1);
  if (!newest || repo.pm === 'npm' || !repo.lockfile) return [];
  if (repo.pm === 'yarn' && repo.pnp)
    return [{ ...newest, role: `${newest.role}, installed strictly (Yarn PnP) for a Yarn PnP project`, install: 'yarn-pnp' }];
  const role = `${newest.role}, installed strictly (pnpm, hoist=false) for a ${repo.pm} lockfile`;
  return [{ ...newest, role, install: 'pnpm-strict' }];
}
