// After main() has decided: a signal while the event loop drains ends the process with the decided exit code.
let holdingLateSignals = false;

/**
 * Once main() has decided, the bin sets the exit code and the event loop drains. A signal in that moment (a CI
 * runner's SIGTERM just after its SIGINT) must end the process with the decided code, as the reports say, not
 * by the signal's default action (no exit code at all, which reads as a crash).
 */
export function holdLateSignals(): void {
  if (holdingLateSignals) return;
  holdingLateSignals = true;
  const exit = () => process.exit(process.exitCode ?? 130);
  process.on('SIGINT', exit);
  process.on('SIGTERM', exit);
}
