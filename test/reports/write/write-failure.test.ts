// A report write that fails (a full disk) never leaves half a file where a good one stood: each report
// goes to a temporary file beside it and is renamed only when whole. Shown twice: with a simulated
// failure in the middle of a write (half the bytes written, then ENOSPC), and on a real full disk (a
// 1 MB tmpfs, root only), where `report` answers with a typed failure naming the cause, not a throw.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reportCommand } from '../../../src/commands/report.js';
import { createLogger } from '../../../src/logger.js';
import { renderJson } from '../../../src/reports/json/json.js';
import { writeReportFiles } from '../../../src/reports/write/write.js';
import { writeReportsResult } from '../../../src/reports/write/write-result.js';
import { makeRun } from '../helpers/make-run.js';

/** When set, the next writeFile of a temporary report writes half its content, then fails as a full disk would. */
const failing = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsp>();
  const writeFile = async (file: Parameters<typeof real.writeFile>[0], data: string, options?: Parameters<typeof real.writeFile>[2]) => {
    if (!failing.on || !String(file).endsWith('.tmp')) return real.writeFile(file, data, options);
    await real.writeFile(file, data.slice(0, data.length / 2));
    throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', errno: -28, syscall: 'write' });
  };
  return { ...real, default: { ...real, writeFile }, writeFile };
});

const dirs: string[] = [];
const mounts: string[] = [];
afterAll(async () => {
  for (const m of mounts) execFileSync('umount', [m]);
  await Promise.all([...dirs, ...mounts].map((d) => rm(d, { recursive: true, force: true })));
});

/** Every file of `dir` and its bytes. */
async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) out[f] = await readFile(path.join(dir, f), 'utf8');
  return out;
}

/** A later run whose reports differ from the first (and are big: a full disk cannot take them). */
const later = () => makeRun(undefined, { startedAt: '2026-09-01T00:00:00.000Z', warnings: ['y'.repeat(2_000_000)] });

// Seconds of CPU per test (big reports rendered and written); beside test:unit under load 27 up to 9 s seen: a hang guard
// well above that, not the unit project's 20 s.
describe('a simulated failure in the middle of a write (half written, then ENOSPC)', { timeout: 60_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mm-write-failure-'));
    dirs.push(dir);
  });

  it('the good files stand as they were, byte for byte, and no temporary file is left', async () => {
    await writeReportFiles(makeRun(), dir);
    const before = await contents(dir);
    expect(Object.keys(before)).toContain('results.json');
    failing.on = true;
    try {
      await expect(writeReportFiles(later(), dir)).rejects.toMatchObject({ code: 'ENOSPC' });
    } finally {
      failing.on = false;
    }
    expect(await contents(dir)).toEqual(before);
  });

  it('as a result: an infrastructure failure naming the directory and the cause', async () => {
    failing.on = true;
    try {
      expect(await writeReportsResult(later(), dir)).toEqual({
        ok: false,
        error: {
          kind: 'infrastructure',
          message: `could not write the reports into ${dir}: the disk is full (ENOSPC): ENOSPC: no space left on device, write; no report was left half-written (each file is replaced only once it is whole)`,
        },
      });
    } finally {
      failing.on = false;
    }
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

/** A 1 MB tmpfs, or why this machine cannot give one. */
function smallDisk(): { mount?: string; skip?: string } {
  if (process.platform !== 'linux') return { skip: 'tmpfs mounts are Linux only' };
  if (process.getuid?.() !== 0) return { skip: 'mounting a tmpfs needs root' };
  const mount = execFileSync('mktemp', ['-d', path.join(os.tmpdir(), 'mm-write-enospc-XXXXXX')], { encoding: 'utf8' }).trim();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount], { stdio: 'ignore' });
  } catch (error) {
    execFileSync('rmdir', [mount]);
    return { skip: `mount -t tmpfs failed here (${(error as Error).message.split('\n')[0]})` };
  }
  mounts.push(mount);
  return { mount };
}
const disk = smallDisk();

describe('a real full disk', { timeout: 60_000 }, () => {
  it.skipIf(disk.skip !== undefined)(
    `\`report\` into a full disk: a typed failure naming ENOSPC, and the reports already there unchanged${disk.skip ? ` — skipped: ${disk.skip}` : ''}`,
    async () => {
      const out = path.join(disk.mount!, 'reports');
      await writeReportFiles(makeRun(), out);
      const before = await contents(out);
      // The results.json to re-render lives elsewhere; the disk that holds the reports is then filled.
      const source = await mkdtemp(path.join(os.tmpdir(), 'mm-write-source-'));
      dirs.push(source);
      await writeFile(path.join(source, 'results.json'), renderJson(later()));
      const filler = path.join(disk.mount!, 'filler');
      await writeFile(filler, Buffer.alloc(4 * 1024 * 1024)).catch((e: NodeJS.ErrnoException) => expect(e.code).toBe('ENOSPC'));
      const log = createLogger(new PassThrough(), new PassThrough());
      const result = await reportCommand('results.json', { cwd: source, out, junit: true }, log);
      expect(result).toMatchObject({ kind: 'infrastructure' });
      expect((result as { message: string }).message).toMatch(
        new RegExp(`^could not write the reports into ${out}: the disk is full \\(ENOSPC\\): .*no report was left half-written`),
      );
      expect(await contents(out)).toEqual(before);
    },
  );
});
