// npm's cafile asked once per run (a memo of the run's instruments, gone with the run), not once per Yarn cell: an
// `npm` first on PATH that counts its starts and answers with a CA file (the real npm's: yarn-pnp-install.integration).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { cacheNotes } from '../../../src/cache/notes.js';
import type { ResolvedConfig } from '../../../src/config/resolve.js';
import { instruments } from '../../../src/orchestrator/instruments.js';
import { semaphore } from '../../../src/orchestrator/slots.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mm-yarn-ca-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const calls = path.join(dir, 'calls');
const ca = path.join(dir, 'ca.pem');
writeFileSync(ca, '');
writeFileSync(path.join(dir, 'npm'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(calls)}\necho ${JSON.stringify(ca)}\n`);
chmodSync(path.join(dir, 'npm'), 0o755);
const starts = (): number => readFileSync(calls, 'utf8').trim().split('\n').length;
afterEach(() => void vi.unstubAllEnvs());

/** A run's instruments, as orchestrate makes them (one per run). */
const runTools = (runDir: string) =>
  instruments(
    { install: { attempts: 1, timeoutMs: 15_000 } } as ResolvedConfig,
    runDir,
    new AbortController().signal,
    semaphore(1),
    cacheNotes(),
  );

describe("npm's cafile for Yarn", () => {
  it('one npm start per run, whatever the number of Yarn cells; another run asks again', async () => {
    vi.stubEnv('PATH', `${dir}:${process.env.PATH ?? ''}`);
    vi.stubEnv('YARN_HTTPS_CA_FILE_PATH', undefined);
    const cells = ['a', 'b', 'c'].map((cell) => path.join(dir, cell));
    for (const cell of cells) mkdirSync(cell);
    const run = runTools(path.join(dir, 'run-1'));
    const answers = await Promise.all(cells.map((cell) => run.yarnCa!(cell)));
    expect(answers).toEqual([0, 1, 2].map(() => ({ YARN_HTTPS_CA_FILE_PATH: ca })));
    expect(starts()).toBe(1);
    await run.yarnCa!(cells[0]!);
    expect(starts()).toBe(1);
    await runTools(path.join(dir, 'run-2')).yarnCa!(cells[0]!);
    expect(starts()).toBe(2);
  });
});
