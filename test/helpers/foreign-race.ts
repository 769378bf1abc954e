// The suite runs its files side by side, so another file's process can truly take a picked port between the pick and
// the server's listen. The harness then retries on a new port, as it would for a user: that retry is right, and a test
// of a server's own listener must not fail on it. What stays a misjudgment is a race that names the subject itself.
import { expect } from 'vitest';

/**
 * No port race in `details`, or only one whose holder is another process: the cause names a holder (never the
 * server's own stderr) and never `subject` (a text only the subject's command line carries).
 */
export function expectNoRaceButForeign(details: { retriedAfter?: { cause: string } } | undefined, subject: string): void {
  const race = details?.retriedAfter;
  if (race === undefined) return;
  expect(race.cause, 'a retried port must be held by another process').toMatch(/ \(held by pid \d+: /);
  expect(race.cause, 'the process holding the port must not be the server itself').not.toContain(subject);
}

/** `details` as a run without a port race has them, once `expectNoRaceButForeign` allowed the race they may carry. */
export function raceAside<T extends { retriedAfter?: { cause: string } }>(details: T, subject: string): Omit<T, 'retriedAfter'> {
  expectNoRaceButForeign(details, subject);
  const { retriedAfter: _race, ...rest } = details;
  return rest;
}
