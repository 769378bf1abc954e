// The cells init writes, from the declared ranges and the published versions: floor and newest per
// admitted major. An exact range is that one version; a range that stops below the newest N.x gets
// the newest version it admits as an exact pin (latest@N would lie outside it and fail lockstep).
import semver from 'semver';
import type { CellConfig } from '../../config/define.js';
import { stableVersions } from '../../plan/pins.js';

export interface InitCell extends CellConfig {
  role: string;
  /** The version the pin resolves to today (shown, not written). */
  version: string;
}

/** `versions`: every published version of the major's primary package. */
export function cellsForMajor(major: number, range: string, versions: Iterable<string>): InitCell[] | string {
  const exact = semver.valid(semver.clean(range) ?? '');
  const inMajor = stableVersions(versions).filter((v) => semver.major(v) === major);
  if (exact) {
    return inMajor.includes(exact) || [...versions].includes(exact)
      ? [{ pin: exact, role: `the exact version package.json declares`, version: exact }]
      : `the range "${range}" names ${exact}, which is not published`;
  }
  const floor = semver.minSatisfying(inMajor, range);
  const newest = semver.maxSatisfying(inMajor, range);
  if (!floor || !newest) return `no published ${major}.x version satisfies "${range}"`;
  const cells: InitCell[] = [{ pin: `floor@${major}`, role: `lower supported boundary (${major}.x)`, version: floor }];
  if (newest === floor) return cells;
  cells.push(
    newest === inMajor.at(-1)
      ? { pin: `latest@${major}`, role: `latest supported ${major}.x`, version: newest }
      : { pin: newest, role: `newest ${major}.x that "${range}" admits`, version: newest },
  );
  return cells;
}
