// The allowance for a true port race in tests of a server's own listener (test/helpers/foreign-race.ts).
import { describe, expect, it } from 'vitest';
import { expectNoRaceButForeign, raceAside } from './foreign-race.js';

const held = (cmdline: string): { retriedAfter: { port: number; cause: string } } => ({
  retriedAfter: {
    port: 4000,
    cause: `127.0.0.1:4000 answers, but no process of the started server's group holds it (held by pid 7: ${cmdline})`,
  },
});

describe('expectNoRaceButForeign', () => {
  it('passes with no race, and with a race whose holder is another process', () => {
    expectNoRaceButForeign({}, '/tmp/mm-run-a');
    expectNoRaceButForeign(undefined, '/tmp/mm-run-a');
    expectNoRaceButForeign(held('/usr/bin/node /tmp/mm-other/server.js'), '/tmp/mm-run-a');
  });

  it('fails when the holder is the subject itself', () => {
    expect(() => expectNoRaceButForeign(held('/usr/bin/node /tmp/mm-run-a/server.js'), '/tmp/mm-run-a')).toThrow(
      /must not be the server itself/,
    );
  });

  it("fails on a race told by the server's own stderr, which names no holder", () => {
    const race = { retriedAfter: { port: 4000, cause: "port 4000 is already in use (EADDRINUSE in the server's stderr)" } };
    expect(() => expectNoRaceButForeign(race, 'twice.mjs')).toThrow(/held by another process/);
  });

  it('raceAside: the details without the race it allowed; a race of the subject still fails', () => {
    expect(raceAside({ port: 5, ...held('/usr/bin/node /tmp/mm-other/server.js') }, '/tmp/mm-run-a')).toEqual({ port: 5 });
    const unraced: { port: number; retriedAfter?: { cause: string } } = { port: 5 };
    expect(raceAside(unraced, '/tmp/mm-run-a')).toEqual({ port: 5 });
    expect(() => raceAside({ port: 5, ...held('/usr/bin/node /tmp/mm-run-a/server.js') }, '/tmp/mm-run-a')).toThrow(
      /must not be the server itself/,
    );
  });
});
