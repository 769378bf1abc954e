// A server that starts a child with `spawn(cmd, { detached: true })` (a new session and process group)
// and unref's it: the process-group check cannot see the child, the run's cookie in its environment
// can. leaks must fail naming the pid, the command line and the server that started it, and the run
// must leave nothing behind.
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, readResults, tempDir } from './helpers/cli.js';
import { leftovers } from './helpers/fixture-run.js';
import { processesOfRun } from './helpers/procs.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const MARKER = 'broken-detached-child-marker';

describe('escaped descendants', () => {
  it('a detached child of the stdio server: leaks fails naming pid, command and starter; nothing survives', async () => {
    const outDir = await tempDir('mm-escaped-');
    // The run's own TMPDIR: what it left is looked for there, not in another run of the fixture on the machine.
    const tmp = await tempDir('mm-escaped-tmp-');
    dirs.push(outDir, tmp);
    const out = await cli(['run', '--config', 'fixtures/broken/detached-child/matrix.config.ts', '--out', outDir, '--progress', 'silent'], {
      timeoutMs: 240_000,
      env: { TMPDIR: tmp },
    });
    const results = await readResults(outDir);
    const cell = results.cells[0]!;
    const table = cell.phases.map((p) => `${p.phase}: ${p.verdict} ${p.message ?? ''}`).join('\n');
    expect(out.code, `${table}\n${out.stderr}`).toBe(1);
    expect(results.verdict).toBe('failed');
    expect(cell.phases.filter((p) => p.verdict === 'failed').map((p) => p.phase)).toEqual(['leaks']);
    const leaks = cell.phases.find((p) => p.phase === 'leaks')!;
    expect(leaks.step).toBe('escaped processes');
    const serverPid = (leaks.details!.servers as { role: string; pid: number }[]).find((s) => s.role === 'stdio')!.pid;
    expect(leaks.message).toMatch(
      new RegExp(
        `^1 process\\(es\\) started by the stdio server \\(pid ${serverPid}, stdio phase\\) escaped its process group and outlived it: ` +
          `pid (\\d+) \\S*node -e setTimeout\\(\\(\\) => \\{\\}, 300_000\\) ${MARKER} \\(found by the run's cookie in their environment; killed\\)$`,
      ),
    );
    const escapedPid = Number(/: pid (\d+) /.exec(leaks.message!)![1]);
    expect(escapedPid).not.toBe(serverPid);
    expect(leaks.details!.escaped).toEqual([expect.objectContaining({ pid: escapedPid, tag: `${cell.id}:stdio#1` })]);
    expect(cell.summary.leakedHandles).toContainEqual(
      expect.objectContaining({ owner: 'server:stdio', type: 'process', location: expect.stringContaining(`pid ${escapedPid}:`) }),
    );
    expect(out.stderr).toContain('leaks: FAIL: 1 process(es) started by the stdio server');
    // Reported, then taken down: no process of the fixture (the escaped one included), no run dir.
    expect(processesOfRun(tmp, MARKER)).toEqual([]);
    expect(leftovers('broken-detached-child', tmp)).toEqual({ leftoverDirs: [], leftoverProcs: [] });
  });
});
