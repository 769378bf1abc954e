import { describe, expect, it } from 'vitest';
import { configSchema, formatIssues } from '../../src/config/schema.js';

const valid = { cells: [{ pin: '1.24.0' }, { pin: 'latest@2' }] };

function problems(input: unknown): string[] {
  const r = configSchema.safeParse(input);
  return r.success ? [] : formatIssues(r.error);
}

describe('config schema', () => {
  it('accepts a minimal config', () => {
    expect(problems(valid)).toEqual([]);
  });

  it('reports every problem at once as path: message', () => {
    const out = problems({
      cells: [{ pin: 'banana' }, { pin: '1.24.0', allowedToFail: 'yes' }],
      stdoi: {},
      leaks: { graceMs: -1 },
    });
    expect(out).toContain('(root): unknown key "stdoi" (check the spelling; see the README\'s config reference)');
    expect(out.some((l) => l.startsWith('cells[0].pin: must be an exact version'))).toBe(true);
    expect(out.some((l) => l.startsWith('cells[1].allowedToFail:'))).toBe(true);
    expect(out.some((l) => l.startsWith('leaks.graceMs:'))).toBe(true);
  });

  it('rejects duplicate cell ids and package+tarball together', () => {
    const out = problems({ package: '.', tarball: 'x.tgz', cells: [{ pin: '2.0.0' }, { pin: '2.0.0' }] });
    expect(out).toContain('tarball: give either package or tarball, not both');
    expect(out.some((l) => l.startsWith('cells[1].id: duplicate cell id "2.0.0"'))).toBe(true);
  });

  it('names unknown keys inside nested objects', () => {
    expect(problems({ ...valid, http: { prot: 1 } })).toEqual([
      'http: unknown key "prot" (check the spelling; see the README\'s config reference)',
    ]);
  });

  it('accepts role pins and false phases', () => {
    expect(problems({ cells: [{ pin: 'floor' }, { pin: 'floor@1' }, { pin: 'latest@1' }], http: false, bind: false })).toEqual([]);
    expect(problems({ cells: [{ pin: 'latest' }] })[0]).toMatch(/^cells\[0\]\.pin:/);
  });

  it('accepts a client with capabilities, file:// roots and an arguments choice; names what is wrong', () => {
    const client = {
      capabilities: { roots: { listChanged: true }, sampling: {} },
      roots: [{ uri: 'file://{tmp}', name: 'scratch' }],
      noArguments: 'omit',
    };
    expect(problems({ ...valid, client })).toEqual([]);
    expect(problems({ ...valid, client: { roots: [{ uri: 'https://x' }], noArguments: 'never', capabilities: { roots: true } } })).toEqual([
      'client.capabilities.roots: Invalid input: expected record, received boolean',
      'client.roots[0].uri: a root is a file:// URI (the MCP spec allows no other scheme)',
      'client.noArguments: Invalid option: expected one of "empty"|"omit"',
    ]);
  });

  it('keeps the http phase on loopback', () => {
    expect(problems({ ...valid, http: { host: '127.0.0.1' } })).toEqual([]);
    expect(problems({ ...valid, http: { host: '0.0.0.0' } })).toEqual([
      'http.host: must be a loopback host (127.0.0.1, ::1 or localhost): the http phase runs with a token on loopback',
    ]);
  });
});
