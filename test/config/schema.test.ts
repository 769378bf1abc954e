import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/schema.js';

const valid = { cells: [{ pin: '1.24.0' }, { pin: 'latest@2' }] };

function problems(input: unknown): string[] {
  const r = validateConfig(input);
  return r.ok ? [] : r.problems;
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
    expect(out).toContain('stdoi: unknown key (did you mean "stdio"?)');
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
    expect(problems({ ...valid, http: { prot: 1 } })).toEqual(['http.prot: unknown key']);
    expect(problems({ ...valid, http: { pth: '/x' } })).toEqual(['http.pth: unknown key (did you mean "path"?)']);
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
      'client.capabilities.roots: expected record, received boolean',
      'client.roots[0].uri: a root is a file:// URI (the MCP spec allows no other scheme)',
      'client.noArguments: must be one of "empty", "omit"',
    ]);
  });

  it('keeps the http phase on loopback', () => {
    expect(problems({ ...valid, http: { host: '127.0.0.1' } })).toEqual([]);
    expect(problems({ ...valid, http: { host: '0.0.0.0' } })).toEqual([
      'http.host: must be a loopback host (127.0.0.1, ::1 or localhost): the http phase runs with a token on loopback',
    ]);
  });

  it('unwraps unions: every leaf problem under a phase, with its own path', () => {
    expect(problems({ ...valid, stdio: { expect: { tools: 'five' }, timeout: 5 } })).toEqual([
      'stdio.expect.tools: expected a number or a list, got string',
      'stdio.timeout: unknown key (did you mean "timeoutMs"?)',
    ]);
    expect(problems({ ...valid, http: 5 })).toEqual(['http: expected false or an object, got number']);
  });

  it('reports a step against the step kind it was meant to be', () => {
    expect(
      problems({
        ...valid,
        stdio: {
          steps: [
            { tool: 'add', argumnts: {} },
            { prompt: 'p', expect: { messages: 'one' } },
          ],
        },
      }),
    ).toEqual([
      'stdio.steps[0].argumnts: unknown key (did you mean "arguments"?)',
      'stdio.steps[1].expect.messages: expected number, received string',
    ]);
  });

  it('checks pins against the known SDK majors while validating, with the other problems', () => {
    expect(problems({ cells: [{ pin: '9.9.9' }, { pin: 'latest@3' }], lockstep: 'eror' })).toEqual([
      'lockstep: must be one of "error", "warn", "off" (did you mean "error"?)',
      'cells[0].pin: no install recipe for SDK major 9 (known: 1, 2); pin a version of a known major, or add a recipe under "majors"',
      'cells[1].pin: no install recipe for SDK major 3 (known: 1, 2); pin a version of a known major, or add a recipe under "majors"',
    ]);
    expect(problems({ cells: [{ pin: 'latest@3' }], majors: { '3': { pinned: ['@x/sdk'] } } })).toEqual([]);
  });
});

describe('http.auth', () => {
  it("accepts 'bearer' and 'none'", () => {
    expect(problems({ ...valid, http: { auth: 'bearer' } })).toEqual([]);
    expect(problems({ ...valid, http: { auth: 'none' } })).toEqual([]);
  });

  it('rejects any other scheme, naming the key', () => {
    const out = problems({ ...valid, http: { auth: 'basic' } });
    expect(out.length).toBeGreaterThan(0);
    expect(out.every((l) => l.startsWith('http'))).toBe(true);
  });

  it("accepts 'oauth', with or without what its tokens carry", () => {
    expect(problems({ ...valid, http: { auth: 'oauth' } })).toEqual([]);
    expect(problems({ ...valid, http: { auth: 'oauth', oauth: { audience: 'urn:x:{port}', scopes: ['mcp:read', 'admin'] } } })).toEqual([]);
  });

  it("http.oauth without auth: 'oauth', a bad scope or an unknown key is a config error naming the key", () => {
    expect(problems({ ...valid, http: { oauth: { audience: 'x' } } })).toEqual(["http.oauth: http.oauth applies only with auth: 'oauth'"]);
    expect(problems({ ...valid, http: { auth: 'oauth', oauth: { scopes: ['two words'] } } })[0]).toMatch(
      /^http\.oauth\.scopes\[0\]: a scope is visible ASCII/,
    );
    expect(problems({ ...valid, http: { auth: 'oauth', oauth: { issuer: 'x' } } })[0]).toMatch(/^http\.oauth/);
  });
});

describe('config schema: the client and Node axes', () => {
  it('accepts client pins and Node specs at top level and per cell, empty lists included', () => {
    expect(
      problems({
        cells: [
          { pin: 'latest@2', clients: ['1.0.0'], node: [22, '24.1.0'] },
          { pin: 'latest@1', clients: [], node: [] },
        ],
        clients: ['1.0.0', 'latest@1', 'floor', 'floor@2', '2.4.0'],
        node: [20, '22', '22.11.0'],
      }),
    ).toEqual([]);
  });

  it('rejects a client pin or a Node spec of the wrong form, naming where', () => {
    const out = problems({ cells: [{ pin: 'latest@2', node: ['lts'] }], clients: ['latest', 'banana'], node: [22.5, 'v22'] });
    expect(out.some((l) => l.startsWith('clients[0]: must be an exact version'))).toBe(true);
    expect(out.some((l) => l.startsWith('clients[1]: must be an exact version'))).toBe(true);
    expect(out.some((l) => l.startsWith('node[0]:'))).toBe(true);
    expect(out.some((l) => l.startsWith('node[1]:') && l.includes('a Node major (22) or an exact release (22.11.0)'))).toBe(true);
    expect(out.some((l) => l.startsWith('cells[0].node[0]:') && l.includes('a Node major'))).toBe(true);
  });

  it('rejects an entry listed twice (two variants with one id), a number and a string of one spec included', () => {
    const out = problems({ cells: [{ pin: 'latest@2', clients: ['1.0.0', '1.0.0'] }], node: [22, '22'] });
    expect(out).toContain('cells[0].clients[1]: "1.0.0" is listed twice (also [0]): each variant needs a distinct id');
    expect(out).toContain('node[1]: "22" is listed twice (also [0]): each variant needs a distinct id');
  });

  it('rejects a client pin of a major that has no client package', () => {
    expect(problems({ cells: [{ pin: 'latest@2' }], clients: ['latest@3'] })).toEqual([
      'clients[0]: no client package for SDK major 3 (known: 1 → @modelcontextprotocol/sdk, 2 → @modelcontextprotocol/client)',
    ]);
  });
});

describe('config schema: answer parity', () => {
  it('takes parity.allow entries with an item, an optional path and a reason, and steps with vary', () => {
    const stdio = {
      steps: [
        { tool: 'now', vary: ['content[0].text'] },
        { resource: 'r://x', vary: ['contents[0].text'] },
      ],
    };
    expect(problems({ ...valid, stdio, parity: { allow: [{ item: 'stdio tools/call now', path: 'isError', reason: 'r' }] } })).toEqual([]);
    expect(problems({ ...valid, parity: false })).toEqual([]);
  });

  it('refuses an allowance without a reason, an unknown key and an empty vary path, each named', () => {
    const out = problems({
      ...valid,
      stdio: { steps: [{ tool: 'now', vary: [''] }] },
      parity: { allow: [{ item: 'stdio tools/call now' }], allw: [] },
    });
    expect(out.some((l) => l.startsWith('parity.allow[0].reason:'))).toBe(true);
    expect(out.some((l) => l.startsWith('parity.allw: unknown key'))).toBe(true);
    expect(out.some((l) => l.startsWith('stdio.steps[0]'))).toBe(true);
  });
});
