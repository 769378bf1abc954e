// The spec's check levels, checked when the driver reads the spec: a level for a check the catalogue does not
// hold in that phase is a protocol error (a harness and a driver of different versions), never a silent default.
import { checkIds, type CheckPhase } from '../contract/checks.js';
import type { DriverSpec } from '../contract/protocol.js';

/** Every `phases.<phase>.checks` id that is not one of that phase's checks, as `phases.http.checks.x`. */
export function unknownLevels(phases: DriverSpec['phases']): string[] {
  const given: [CheckPhase, Record<string, unknown> | undefined][] = [
    ['stdio', phases.stdio ? phases.stdio.checks : undefined],
    ['http', phases.http ? phases.http.checks : undefined],
    ['leaks', phases.leaks ? phases.leaks.checks : undefined],
  ];
  return given.flatMap(([phase, levels]) => {
    const known = new Set(checkIds(phase));
    return Object.keys(levels ?? {})
      .filter((id) => !known.has(id))
      .map((id) => `phases.${phase}.checks.${id}`);
  });
}
