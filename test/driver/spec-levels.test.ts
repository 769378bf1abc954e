// The spec's check levels at the driver's door: every running phase's checks exactly, each at a level, else that
// phase is refused with a protocol error that names what is wrong.
import { describe, expect, it } from 'vitest';
import { resolveChecks } from '../../src/config/resolve.js';
import type { DriverSpec } from '../../src/contract/protocol.js';
import { levelErrors } from '../../src/driver/spec-levels.js';

const phases = (over: Partial<DriverSpec['phases']>): DriverSpec['phases'] =>
  ({ stdio: false, http: false, bind: false, leaks: false, ...over }) as DriverSpec['phases'];

describe('levelErrors', () => {
  it('the levels resolveConfig writes are accepted; a phase not run needs none', () => {
    const http = { checks: resolveChecks('http', 'bearer', {}) } as never;
    const stdio = { checks: resolveChecks('stdio', 'none', {}) } as never;
    const leaks = { graceMs: 1, checks: resolveChecks('leaks', 'none', {}) };
    expect(levelErrors(phases({ http, stdio, leaks }))).toEqual({});
    expect(levelErrors(phases({}))).toEqual({});
  });

  it("a level for a check the phase does not hold (an unknown id, or another phase's) refuses that phase only", () => {
    const http = { checks: { ...resolveChecks('http', 'bearer', {}), 'no-such-check': 'warn', 'temp-files': 'warn' } } as never;
    const leaks = { graceMs: 1, checks: resolveChecks('leaks', 'none', {}) };
    expect(levelErrors(phases({ http, leaks }))).toEqual({
      http: {
        code: 'protocol-error',
        message: 'protocol error: phases.http.checks sets a level for a check this driver does not have: no-such-check, temp-files',
      },
    });
  });

  it('a check without a level, a level that is not one, or no levels at all: refused, never defaulted', () => {
    const { session: _, ...noSession } = resolveChecks('stdio', 'none', {});
    const stdio = { checks: noSession } as never;
    const http = { checks: { ...resolveChecks('http', 'bearer', {}), origin: 'strict' } } as never;
    const leaks = { graceMs: 1 } as never;
    expect(levelErrors(phases({ stdio, http, leaks }))).toEqual({
      stdio: { code: 'protocol-error', message: 'protocol error: phases.stdio.checks has no level for session' },
      http: {
        code: 'protocol-error',
        message: 'protocol error: phases.http.checks sets origin to "strict", not one of require, warn, off',
      },
      leaks: { code: 'protocol-error', message: 'protocol error: phases.leaks.checks is missing: the harness sends every check its level' },
    });
  });
});
