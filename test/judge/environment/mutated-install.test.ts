import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockfileSha256, recheckInstall, withMutatedInstall } from '../../../src/judge/environment/mutated-install.js';
import { makeCell } from '../../reports/helpers/make-run.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mm-recheck-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("the lockfile re-check after a cell's variants", () => {
  it('an untouched install passes', async () => {
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}');
    const installed = await lockfileSha256(dir);
    expect(installed).toMatch(/^[0-9a-f]{64}$/);
    expect(await recheckInstall(dir, installed)).toBeUndefined();
  });

  it('a lockfile changed under the variants is named, old → new', async () => {
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}');
    const installed = await lockfileSha256(dir);
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3,"packages":{"node_modules/x":{}}}');
    const now = await lockfileSha256(dir);
    expect(await recheckInstall(dir, installed)).toBe(
      `the cell's install changed while its variants ran (package-lock.json sha256 ${installed!.slice(0, 12)}… → ${now!.slice(0, 12)}…): the harness mutated it, so no variant of this cell measured the pinned install`,
    );
  });

  it('a removed lockfile is a change too', async () => {
    await writeFile(path.join(dir, 'package-lock.json'), '{}');
    const installed = await lockfileSha256(dir);
    await rm(path.join(dir, 'package-lock.json'));
    expect(await recheckInstall(dir, installed)).toContain(`(its lockfile sha256 ${installed!.slice(0, 12)}… → removed)`);
  });

  it("a PnP leg's yarn.lock is read and named too; a cell without a lockfile has no hash", async () => {
    expect(await lockfileSha256(dir)).toBeUndefined();
    await writeFile(path.join(dir, 'yarn.lock'), '__metadata:\n  version: 8\n');
    const installed = await lockfileSha256(dir);
    expect(installed).toMatch(/^[0-9a-f]{64}$/);
    await writeFile(path.join(dir, 'yarn.lock'), '__metadata:\n  version: 8\n  cacheKey: 10\n');
    expect(await recheckInstall(dir, installed)).toMatch(/^the cell's install changed while its variants ran \(yarn\.lock sha256 /);
  });

  it("a strict leg's pnpm-lock.yaml is the one named when it changed, never package-lock.json", async () => {
    await writeFile(path.join(dir, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
    const installed = await lockfileSha256(dir);
    expect(await recheckInstall(dir, installed)).toBeUndefined();
    await writeFile(path.join(dir, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\nimporters: {}\n");
    const now = await lockfileSha256(dir);
    expect(now).not.toBe(installed);
    expect(await recheckInstall(dir, installed)).toBe(
      `the cell's install changed while its variants ran (pnpm-lock.yaml sha256 ${installed!.slice(0, 12)}… → ${now!.slice(0, 12)}…): the harness mutated it, so no variant of this cell measured the pinned install`,
    );
  });

  it('a mutated install makes each of its rows not measured in environment, naming it, whatever the phases said', () => {
    const row = makeCell({ id: 'latest-2~client-1.0.0', pin: 'latest@2', version: '2.4.0', major: 2 });
    expect(row.verdict).toBe('passed');
    const marked = withMutatedInstall(row, 'the install changed');
    expect(marked.verdict).toBe('not-measured');
    expect(marked.outcome).toBe('not-measured');
    expect(marked.phases.find((p) => p.phase === 'environment')).toMatchObject({
      verdict: 'not-measured',
      step: 'lockfile re-check',
      message: 'the install changed',
    });
    expect(marked.phases.filter((p) => p.phase !== 'environment')).toEqual(row.phases.filter((p) => p.phase !== 'environment'));
  });
});

describe('the lockfile re-check without a recorded hash', () => {
  it('an install whose hash was never recorded (no lockfile at install) has nothing to compare: no change is claimed', async () => {
    await writeFile(path.join(dir, 'package-lock.json'), '{"lockfileVersion":3}');
    expect(await recheckInstall(dir, undefined)).toBeUndefined();
  });
});
