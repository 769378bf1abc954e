// A driver that crashes, is killed or runs past the backstop: runDriver says which, so run-cell can
// record the phase as not-measured with that cause (the e2e kill test covers the whole path).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDriver, type DriverLayout } from '../../src/cells/driver-launch.js';
import type { DriverSpec } from '../../src/contract/protocol.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-driver-launch-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** A stand-in driver: real process, real IPC, doing only `body` after announcing the http phase. */
async function fakeDriver(name: string, body: string): Promise<DriverLayout> {
  const entry = path.join(dir, `${name}.cjs`);
  await writeFile(entry, `process.send({ type: 'phase-start', phase: 'http' });\n${body}\n`);
  return { dir, entry, probe: path.join(dir, 'probe.js'), log: path.join(dir, `${name}.log`) };
}

const spec = (): DriverSpec => ({ cellDir: dir }) as unknown as DriverSpec;

describe('runDriver: a driver that did not finish', () => {
  it('crashed: names the fatal error and the phase', async () => {
    const layout = await fakeDriver('fatal', "process.send({ type: 'fatal', message: 'boom' }, () => process.exit(1));");
    const outcome = await runDriver(layout, spec(), { timeoutMs: 60_000, env: { PATH: process.env.PATH ?? '' } });
    expect(outcome).toMatchObject({ kind: 'crashed', current: 'http', message: 'the driver crashed: boom' });
  });

  it('killed: names the signal and the phase', async () => {
    const layout = await fakeDriver('killed', "setTimeout(() => process.kill(process.pid, 'SIGKILL'), 50);");
    const outcome = await runDriver(layout, spec(), { timeoutMs: 60_000, env: { PATH: process.env.PATH ?? '' } });
    expect(outcome).toMatchObject({ kind: 'crashed', current: 'http' });
    if (outcome.kind === 'crashed')
      expect(outcome.message).toMatch(/^the driver exited \(SIGKILL\) before reporting \(in the http phase\): /);
  });

  it('the backstop: names the bound and the phase', async () => {
    const layout = await fakeDriver('hang', 'setInterval(() => {}, 1000);');
    // The bound runs from the fork: a Node that has not started within it on a loaded machine never announced its
    // phase, and then the message names none (as the run's would). The hook tells which happened.
    let announced = false;
    const outcome = await runDriver(
      layout,
      spec(),
      { timeoutMs: 1000, env: { PATH: process.env.PATH ?? '' } },
      { onPhaseStart: () => void (announced = true) },
    );
    expect(outcome).toStrictEqual({
      kind: 'crashed',
      results: [],
      ...(announced ? { current: 'http' } : {}),
      message: `the driver did not finish within 1000 ms${announced ? ' (in the http phase)' : ''}`,
    });
  });
});
