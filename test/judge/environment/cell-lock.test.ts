import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCellLock } from '../../../src/judge/environment/cell-lock.js';

let cell = '';
afterEach(() => cell && rmSync(cell, { recursive: true, force: true }));

describe('readCellLock', () => {
  it('absent, not JSON (its bytes kept for the evidence hash), or its packages (none: {})', async () => {
    cell = mkdtempSync(path.join(tmpdir(), 'mm-cell-lock-'));
    expect(await readCellLock(cell)).toEqual({ kind: 'absent' });
    writeFileSync(path.join(cell, 'package-lock.json'), '{"packages": ');
    expect(await readCellLock(cell)).toEqual({ kind: 'unreadable', bytes: Buffer.from('{"packages": '), why: expect.any(String) });
    writeFileSync(path.join(cell, 'package-lock.json'), 'null');
    expect(await readCellLock(cell)).toMatchObject({ kind: 'parsed', packages: {} });
    const packages = { 'node_modules/srv': { version: '1.0.0', integrity: 'sha512-x' } };
    writeFileSync(path.join(cell, 'package-lock.json'), JSON.stringify({ packages }));
    expect(await readCellLock(cell)).toMatchObject({ kind: 'parsed', packages });
  });
});
