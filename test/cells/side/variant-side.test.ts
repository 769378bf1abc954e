import { describe, expect, it } from 'vitest';
import { laterStandIns, takeLater, withoutStandIns } from '../../../src/cells/side/variant-side.js';
import { sharedResult } from '../../../src/judge/phase-share.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';
import type { PhaseResult } from '../../../src/results/types.js';

const server = { command: { bin: '/cell/node_modules/srv/bin.js', args: [], env: {} } };
/** A variant's spec: bind and conformance on unless stood in for (as driverSpec switches them). */
const spec = (standIns: DriverSpec['standIns'] = {}): DriverSpec =>
  ({
    cellDir: '/cell',
    packageDir: '/cell/node_modules/srv',
    baseEnv: {},
    ...(Object.keys(standIns).length ? { standIns } : {}),
    phases: {
      stdio: server,
      http: server,
      bind: !standIns.bind && server,
      conformance: !standIns.conformance && server,
      leaks: { graceMs: 1000 },
    },
  }) as unknown as DriverSpec;
const result = (phase: PhaseResult['phase'], verdict: PhaseResult['verdict'] = 'passed'): PhaseResult => ({
  phase,
  verdict,
  durationMs: 7,
});
const shareOf = (phase: 'bind' | 'conformance', verdict: PhaseResult['verdict'] = 'failed') =>
  sharedResult({
    variant: 'latest-1~client-latest-1~node-20',
    result: { ...result(phase, verdict), message: `${phase} measured`, details: { x: undefined } } as unknown as PhaseResult,
  });

describe("a lane's later variant beside its first: bind and conformance taken over after", () => {
  it('stands in for the shared phases it would measure, and only those', () => {
    const standIns = laterStandIns(spec());
    expect(Object.keys(standIns)).toEqual(['bind', 'conformance']);
    expect(standIns.bind).toMatchObject({ phase: 'bind', verdict: 'not-measured', durationMs: 0 });
    expect(Object.keys(laterStandIns(spec({ conformance: result('conformance', 'not-measured') })))).toEqual(['bind']);
  });

  it("takes the shares in place of its stand-ins, as its turn's driver would have reported them", () => {
    const ran = spec(laterStandIns(spec()));
    const final = spec({ bind: shareOf('bind'), conformance: shareOf('conformance', 'passed') });
    const beside = [result('stdio'), result('http'), ran.standIns!.bind!, ran.standIns!.conformance!, result('leaks')];
    const took = takeLater(beside, ran, final);
    expect('results' in took && took.results).toEqual([
      result('stdio'),
      result('http'),
      JSON.parse(JSON.stringify(shareOf('bind'))),
      JSON.parse(JSON.stringify(shareOf('conformance', 'passed'))),
      result('leaks'),
    ]);
    // The share as reported: the spec file's JSON (no undefined field), its origin named.
    expect('results' in took && took.results[2]).toMatchObject({
      verdict: 'failed',
      durationMs: 0,
      details: { measuredBy: 'latest-1~client-latest-1~node-20' },
    });
    expect('results' in took && 'x' in (took.results[2]!.details ?? {})).toBe(false);
  });

  it('runs again in its turn when a share is not there (its turn would have measured that phase)', () => {
    const ran = spec(laterStandIns(spec()));
    const final = spec({ conformance: shareOf('conformance') });
    const beside = [result('stdio'), result('http'), ran.standIns!.bind!, ran.standIns!.conformance!, result('leaks')];
    expect(takeLater(beside, ran, final)).toEqual({ again: expect.stringContaining('no clean bind') });
    expect(takeLater(beside, ran, spec())).toEqual({ again: expect.stringContaining('no clean bind or conformance') });
    // A row that will not stand (or a stopped run) keeps nothing of the stand-ins.
    expect(withoutStandIns(beside, ran).map((r) => r.phase)).toEqual(['stdio', 'http', 'leaks']);
  });
});
