import { describe, expect, it } from 'vitest';
import { relative } from '../../../src/driver/phases/bind.js';

describe('relative: cell paths in a start failure', () => {
  const cell = '/tmp/mcp-matrix-x/cell-latest-1';
  it('drops the cell prefix from paths inside it, and names the cell itself "."', () => {
    expect(relative(`Cannot find module '${cell}/node_modules/p/dist/s.js' imported from ${cell}/node_modules/p/bin/s.js`, [cell])).toBe(
      "Cannot find module 'node_modules/p/dist/s.js' imported from node_modules/p/bin/s.js",
    );
    expect(relative(`Cannot find module '${cell}/node_modules/p/dist/s.js' imported from ${cell}/`, [cell])).toBe(
      "Cannot find module 'node_modules/p/dist/s.js' imported from .",
    );
    expect(relative(`at file://${cell}/node_modules/p/x.js:1`, [cell])).toBe('at node_modules/p/x.js:1');
    expect(relative('/elsewhere/x.js', [cell])).toBe('/elsewhere/x.js');
  });
});
