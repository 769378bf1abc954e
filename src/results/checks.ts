// The sub-check catalogue and rules, for the harness: the config's check names and defaults, the
// verdict rules and the reports read the one list the driver records checks with (src/driver/checks.ts,
// loaded across the driver boundary by this module only).

export {
  CHECK_LEVELS,
  CHECKS,
  checkDefinition,
  checkIds,
  checkLine,
  checkSource,
  decidePhase,
  defaultLevel,
  notableChecks,
  type CheckDefinition,
  type CheckPhase,
} from '../driver/checks.js';
