// The spec's check levels at the driver's door: an id the phase's catalogue lacks is named, the rest pass.
import { describe, expect, it } from 'vitest';
import { resolveChecks } from '../../src/config/resolve.js';
import type { DriverSpec } from '../../src/contract/protocol.js';
import { unknownLevels } from '../../src/driver/spec-levels.js';

const phases = (over: Partial<DriverSpec['phases']>): DriverSpec['phases'] =>
  ({ stdio: false, http: false, bind: false, leaks: false, ...over }) as DriverSpec['phases'];

describe('unknownLevels', () => {
  it('the levels resolveConfig writes are all known', () => {
    const http = { checks: resolveChecks('http', 'bearer', {}) } as never;
    const stdio = { checks: resolveChecks('stdio', 'none', {}) } as never;
    const leaks = { graceMs: 1, checks: resolveChecks('leaks', 'none', {}) };
    expect(unknownLevels(phases({ http, stdio, leaks }))).toEqual([]);
  });

  it("a level for a check the phase does not hold (an unknown id, or another phase's) is named", () => {
    const http = { checks: { origin: 'require', 'no-such-check': 'warn', 'temp-files': 'warn' } } as never;
    expect(unknownLevels(phases({ http, leaks: { graceMs: 1, checks: { shutdown: 'warn' } } }))).toEqual([
      'phases.http.checks.no-such-check',
      'phases.http.checks.temp-files',
    ]);
  });
});
