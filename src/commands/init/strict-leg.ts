// The strict leg init proposes: when the package's own lockfile is pnpm's or Yarn's, its authors' tests run in a
// tree npm users never see, and its users are likely to install strictly too. One cell: the newest pin again,
// installed by pnpm with hoist=false (the leg mcp-matrix has; Yarn PnP is not one of them yet).
import type { InitCell } from './cells.js';
import type { WorkflowRepo } from './repo.js';

export function strictLeg(cells: readonly InitCell[], repo: Pick<WorkflowRepo, 'pm' | 'lockfile'>): InitCell[] {
  const newest = cells.at(-1);
  if (!newest || repo.pm === 'npm' || !repo.lockfile) return [];
  const role = `${newest.role}, installed strictly (pnpm, hoist=false) for a ${repo.pm} lockfile`;
  return [{ ...newest, role, install: 'pnpm-strict' }];
}
