import { describe, expect, it } from 'vitest';
import { carryProbe, PROBE_VARS } from '../../../src/driver/probe/probe-carry.js';

const URL = 'file:///cell/.mcp-matrix/driver/probe.js';
const VARS = { MCP_MATRIX_PROBE_FILE: '/cell/p.jsonl', MCP_MATRIX_CELL_DIR: '/cell' };

describe('carryProbe: the probe travels into a child the server spawns', () => {
  it('merges the probe after NODE_OPTIONS of the server’s own (a launcher’s heap size is kept)', () => {
    expect(carryProbe(['PATH=/bin', 'NODE_OPTIONS=--max-old-space-size=256'], URL, VARS)).toEqual([
      'PATH=/bin',
      `NODE_OPTIONS=--max-old-space-size=256 --import=${URL}`,
      'MCP_MATRIX_PROBE_FILE=/cell/p.jsonl',
      'MCP_MATRIX_CELL_DIR=/cell',
    ]);
  });

  it('adds NODE_OPTIONS when the child has none (or an empty one), and the probe’s variables when missing', () => {
    expect(carryProbe(['PATH=/bin'], URL, VARS)).toEqual([
      'PATH=/bin',
      `NODE_OPTIONS=--import=${URL}`,
      'MCP_MATRIX_PROBE_FILE=/cell/p.jsonl',
      'MCP_MATRIX_CELL_DIR=/cell',
    ]);
    expect(carryProbe(['NODE_OPTIONS= '], URL, {})).toEqual([`NODE_OPTIONS=--import=${URL}`]);
  });

  it('leaves an environment that already carries the probe, and the child’s own values, as they are', () => {
    const env = [`NODE_OPTIONS=--no-warnings --import=${URL}`, 'MCP_MATRIX_PROBE_FILE=/other', 'MCP_MATRIX_CELL_DIR=/cell'];
    expect(carryProbe(env, URL, VARS)).toEqual(env);
  });

  it('carries the probe’s file, package, cell and SDK-name variables', () => {
    expect(PROBE_VARS).toEqual(['MCP_MATRIX_PROBE_FILE', 'MCP_MATRIX_PACKAGE_DIR', 'MCP_MATRIX_CELL_DIR', 'MCP_MATRIX_SDK_PACKAGES']);
  });
});
