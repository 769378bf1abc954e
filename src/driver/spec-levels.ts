// The spec's check levels, checked when the driver reads the spec. The harness resolves every one, so a level
// missing, unknown or not a level is a protocol error (harness and driver of different versions), never a default.
import { CHECK_LEVELS, checkIds, type CheckPhase } from '../contract/checks.js';
import type { DriverSpec } from '../contract/protocol.js';

/** A spec the driver cannot run a phase from: reported as that phase's not-measured result, with this message. */
export interface ProtocolError {
  code: 'protocol-error';
  message: string;
}

/** Each running phase whose `checks` are not exactly its catalogue's ids, each with a level: why it is refused. */
export function levelErrors(phases: DriverSpec['phases']): Partial<Record<CheckPhase, ProtocolError>> {
  const given: [CheckPhase, unknown][] = [];
  if (phases.stdio) given.push(['stdio', phases.stdio.checks]);
  if (phases.http) given.push(['http', phases.http.checks]);
  if (phases.leaks) given.push(['leaks', phases.leaks.checks]);
  const errors: Partial<Record<CheckPhase, ProtocolError>> = {};
  for (const [phase, levels] of given) {
    const problems = levelProblems(phase, levels);
    if (problems.length > 0)
      errors[phase] = { code: 'protocol-error', message: `protocol error: phases.${phase}.checks ${problems.join('; ')}` };
  }
  return errors;
}

/** What is wrong with one phase's levels, as clauses of a sentence; none when every check has a level. */
function levelProblems(phase: CheckPhase, levels: unknown): string[] {
  if (typeof levels !== 'object' || levels === null || Array.isArray(levels))
    return ['is missing: the harness sends every check its level'];
  const given = levels as Record<string, unknown>;
  const known = checkIds(phase);
  const missing = known.filter((id) => !(id in given));
  const unknown = Object.keys(given).filter((id) => !known.includes(id));
  const invalid = known.filter((id) => id in given && !CHECK_LEVELS.includes(given[id] as never));
  return [
    ...(missing.length ? [`has no level for ${missing.join(', ')}`] : []),
    ...(unknown.length ? [`sets a level for a check this driver does not have: ${unknown.join(', ')}`] : []),
    ...invalid.map((id) => `sets ${id} to ${JSON.stringify(given[id])}, not one of ${CHECK_LEVELS.join(', ')}`),
  ];
}
