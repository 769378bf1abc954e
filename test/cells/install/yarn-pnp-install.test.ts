// npm's cafile asked once per run, not once per Yarn cell: an `npm` first on PATH that counts its starts and answers
// with a CA file (the real npm's answers: yarn-pnp-install.integration.test.ts).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npmCaOnce } from '../../../src/cells/install/yarn-pnp-install.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mm-yarn-ca-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const calls = path.join(dir, 'calls');
const ca = path.join(dir, 'ca.pem');
writeFileSync(ca, '');
writeFileSync(path.join(dir, 'npm'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(calls)}\necho ${JSON.stringify(ca)}\n`);
chmodSync(path.join(dir, 'npm'), 0o755);
const env = (extra: Record<string, string> = {}) => ({ PATH: `${dir}:${process.env.PATH ?? ''}`, HOME: dir, ...extra });
const starts = (): number => readFileSync(calls, 'utf8').trim().split('\n').length;

describe('npmCaOnce', () => {
  it('one npm start per run and npm environment, whatever the number of Yarn cells', async () => {
    const run = path.join(dir, 'run-1');
    const cells = ['a', 'b', 'c'].map((cell) => path.join(dir, cell));
    for (const cell of cells) mkdirSync(cell);
    const answers = await Promise.all(cells.map((cell) => npmCaOnce(run, cell, env())));
    expect(answers).toEqual([0, 1, 2].map(() => ({ YARN_HTTPS_CA_FILE_PATH: ca })));
    expect(starts()).toBe(1);
    await npmCaOnce(run, cells[0]!, env());
    expect(starts()).toBe(1);
    // Another run, or an npm setting that can change the answer: asked again.
    await npmCaOnce(path.join(dir, 'run-2'), dir, env());
    expect(starts()).toBe(2);
    await npmCaOnce(run, dir, env({ npm_config_userconfig: path.join(dir, 'other-npmrc') }));
    expect(starts()).toBe(3);
  });
});
