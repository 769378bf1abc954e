// `mcp-matrix pack`: the pack job's step. The plan's source decides: a directory is packed (by its own package
// manager: npm here; pnpm and Yarn in test/pack/pack-workspace.integration.test.ts), a tarball is copied; the
// file, size and sha512 are printed and written to GITHUB_OUTPUT.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { packCommand } from '../../src/commands/pack.js';
import { createLogger } from '../../src/logger.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mm-pack-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function logger() {
  const out = new PassThrough();
  const text = { out: '' };
  out.on('data', (d: Buffer) => (text.out += d.toString()));
  return { log: createLogger(out, new PassThrough()), text };
}

const sha512 = (file: string) => `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;

describe('pack', () => {
  it("packs the plan's source.directory with npm (no lockfile, no packageManager) and writes the step outputs", async () => {
    const pkg = path.join(dir, 'pkg');
    mkdirSync(path.join(pkg, '.git'), { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@x/pkg', version: '1.0.0' }));
    writeFileSync(path.join(pkg, 'index.js'), '');
    writeFileSync(path.join(dir, 'plan.json'), JSON.stringify({ source: { directory: 'pkg' } }));
    const outputs = path.join(dir, 'outputs');
    writeFileSync(outputs, '');
    const { log, text } = logger();
    const code = await packCommand({ cwd: dir, plan: 'plan.json', out: 'package-tarball' }, log, {
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: outputs,
    });
    expect(code).toBe(0);
    const file = path.join(dir, 'package-tarball', 'x-pkg-1.0.0.tgz');
    const lines = `tarball=package-tarball/x-pkg-1.0.0.tgz\nsize=${readFileSync(file).length}\nsha512=${sha512(file)}\n`;
    expect(text.out).toBe(lines);
    expect(readFileSync(outputs, 'utf8')).toBe(lines);
  });

  it("copies the plan's source.tarball, fingerprinted; a plan without a source is a usage error", async () => {
    const given = path.join(dir, 'given.tgz');
    writeFileSync(given, 'not really gzip, only bytes');
    writeFileSync(path.join(dir, 'plan-t.json'), JSON.stringify({ source: { tarball: 'given.tgz' } }));
    const { log, text } = logger();
    expect(await packCommand({ cwd: dir, plan: 'plan-t.json', out: 'copied' }, log, {})).toBe(0);
    expect(text.out).toContain(`tarball=copied/given.tgz\nsize=27\nsha512=${sha512(given)}\n`);
    writeFileSync(path.join(dir, 'plan-x.json'), JSON.stringify({ include: [] }));
    expect(await packCommand({ cwd: dir, plan: 'plan-x.json' }, logger().log, {})).toEqual({
      kind: 'usage',
      message: `pack --plan: ${path.join(dir, 'plan-x.json')} has no source.directory or source.tarball (write it with plan --json)`,
    });
  });
});
