// The confirm-alone rule on a real cell: a server that takes a fixed port on every start passes every phase in turn,
// collides side by side, and the phase that lost the port is run again alone on the cell's own tree and passes; a
// server that writes into its tree has every phase run again in turn (its later phases see the earlier ones' writes).
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDriver, type DriverLayout } from '../../../src/cells/driver-launch.js';
import { runBeside } from '../../../src/cells/side/side-driver.js';
import type { DriverSpec } from '../../../src/contract/protocol.js';
import { findTagged } from '../../../src/driver/server/escaped.js';
import { currentCookie } from '../../../src/process/cookie.js';
import { baseSpec, buildDriver, makeCell, removeDir, tempDir, testServerPhases, type Cell } from '../../driver/helpers/cell.js';
import { quietPort } from '../../helpers/quiet-port.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/fixed-port-server.mjs');
const STATEFUL = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/state-writing-server.mjs');
let work: string;
let cell: Cell;
let spec: DriverSpec;
let layout: DriverLayout;

beforeAll(async () => {
  work = tempDir('mm-side-');
  cell = await makeCell(1, await buildDriver(join(work, 'build')));
  cpSync(FIXTURE, join(cell.dir, 'pkg/fixed-port.mjs'));
  cpSync(STATEFUL, join(cell.dir, 'pkg/state-writing.mjs'));
  const phases = testServerPhases(cell, '', 8000);
  // The fixture's fixed port: one no other file's listen(0) or connection can take meanwhile.
  const env = { TEST_FIXED_PORT: String(await quietPort()), TEST_HOLD_MS: '2000' };
  for (const p of [phases.stdio, phases.http])
    if (p) p.command = { ...p.command, bin: join(cell.dir, 'pkg/fixed-port.mjs'), env: { ...p.command.env, ...env } };
  const base = baseSpec(cell, join(cell.dir, 'pkg'), { ...phases, bind: false });
  spec = { ...base, baseEnv: { ...base.baseEnv, MCP_MATRIX_CELL: 'fixed' } };
  layout = {
    dir: join(cell.dir, '.mcp-matrix'),
    entry: join(cell.driver, 'index.js'),
    probe: spec.probe,
    log: join(cell.dir, 'driver.log'),
  };
}, 240_000);
afterAll(() => {
  removeDir(cell?.dir);
  removeDir(work);
});

/** Every phase the spec runs passed; bind and conformance are off. */
const ALL_PASSED = [
  ['stdio', 'passed'],
  ['http', 'passed'],
  ['bind', 'skipped'],
  ['conformance', 'skipped'],
  ['leaks', 'passed'],
];
const options = () => ({ timeoutMs: 120_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });

/**
 * The spec whose servers surely collide side by side: the one that took the port holds it, once stopped, until the
 * other found it taken and wrote `collided` (however late that one starts under load); leaks.graceMs leaves it the time.
 */
function colliding(collided: string): DriverSpec {
  const phases = structuredClone(spec.phases);
  for (const p of [phases.stdio, phases.http])
    if (p) {
      const { TEST_HOLD_MS: _held, ...env } = p.command.env;
      p.command = { ...p.command, env: { ...env, TEST_COLLIDED: collided } };
    }
  if (phases.leaks) phases.leaks.graceMs = 60_000;
  return { ...spec, phases };
}

describe('phases side by side on a server that holds a fixed port', () => {
  it('in turn, every phase passes: the port is free again before the next server starts', async () => {
    const outcome = await runDriver(layout, spec, options());
    expect(outcome.kind).toBe('done');
    expect(outcome.results.map((r) => [r.phase, r.verdict])).toEqual(ALL_PASSED);
  }, 120_000);

  it('side by side, the server that lost the port failed there, was run again alone and passed; nothing is left', async () => {
    // Each driver says one line on its stderr (its log), as a crashing one does: the groups' logs outlive their copies.
    const says = join(work, 'says.cjs');
    writeFileSync(says, "process.stderr.write('a driver said this\\n');\n");
    const env = { ...options().env, NODE_OPTIONS: `--require ${says}` };
    const collide = colliding(join(work, 'phases-collided'));
    const { outcome, ran } = await runBeside(layout, collide, { ...options(), env }, {}, [['stdio'], ['http']]);
    expect(outcome.kind).toBe('done');
    expect(outcome.results.map((r) => [r.phase, r.verdict])).toEqual(ALL_PASSED);
    // The two servers' lives overlap (the first holds the port until the other found it taken): one lost it.
    expect(ran?.sideBySide).toEqual([['stdio'], ['http']]);
    expect(ran?.confirmedAlone.length).toBeGreaterThan(0);
    // The one that lost the port failed there; the other may be confirmed too (a warn check, its leaks): never for a write.
    const confirmed = ran!.confirmedAlone.map((p) => outcome.results.find((r) => r.phase === p)?.details?.confirmedAlone);
    expect(confirmed.map((c) => c?.beside.verdict)).toContainEqual(expect.stringMatching(/failed|not-measured/));
    for (const c of confirmed) expect(c?.why).toMatch(/^it did not pass beside the cell's other phases/);
    for (const phase of ['stdio', 'http'].filter((p) => !ran!.confirmedAlone.includes(p as 'stdio')))
      expect(outcome.results.find((r) => r.phase === phase)?.details?.confirmedAlone).toBeUndefined();
    expect(readFileSync(layout.log, 'utf8')).toContain('--- side by side, group 1 (stdio) ---\na driver said this\n');
    expect(readFileSync(layout.log, 'utf8')).toContain('--- side by side, group 2 (http) ---\na driver said this\n');
    // The copies are gone, and no process of any group's tags (nor the cell's) is alive.
    expect(readdirSync(dirname(cell.dir)).filter((e) => e.startsWith(`${basename(cell.dir)}.side-`))).toEqual([]);
    const cookie = currentCookie();
    if (cookie) expect(findTagged(cookie, 'fixed')).toEqual([]);
    // The cell's spec is the whole one again (the lone run's had its phases only): a kept cell reruns every phase.
    expect(JSON.parse(readFileSync(join(layout.dir, 'spec.json'), 'utf8'))).toEqual(collide);
  }, 240_000);

  it('the cell keeps the whole spec while the groups run: an interrupted --keep run keeps a cell that reruns', async () => {
    const file = join(layout.dir, 'spec.json');
    rmSync(file, { force: true });
    // What the cell's spec.json held when the first group's first phase started (a later lone run writes its own).
    let seen: unknown;
    const look = () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : 'no spec.json');
    const hooks = { onPhaseStart: () => void (seen ??= look()) };
    // The idle work is called once, once the last group's driver has started a phase: every group had started.
    let idle = 0;
    await runBeside(layout, spec, options(), hooks, [['stdio'], ['http']], () => void idle++);
    expect(seen).toEqual(spec);
    expect(idle).toBe(1);
  }, 240_000);

  it("a server that writes into its tree has every phase run again in turn, which sees the earlier phases' writes", async () => {
    const bin = join(cell.dir, 'pkg/state-writing.mjs');
    const phases = testServerPhases(cell, '', 8000);
    for (const p of [phases.stdio, phases.http]) if (p) p.command = { ...p.command, bin };
    const base = baseSpec(cell, join(cell.dir, 'pkg'), { ...phases, bind: false });
    const stateful = { ...base, baseEnv: { ...base.baseEnv, MCP_MATRIX_CELL: 'stateful' } };
    const { outcome, ran } = await runBeside(layout, stateful, options(), {}, [['stdio'], ['http']]);
    expect(outcome.results.map((r) => [r.phase, r.verdict])).toEqual(ALL_PASSED);
    expect(ran?.confirmedAlone).toEqual(['stdio', 'http']);
    for (const phase of ['stdio', 'http'])
      expect(outcome.results.find((r) => r.phase === phase)?.details?.confirmedAlone).toMatchObject({
        why: expect.stringMatching(/^a server wrote into its copy of the cell's tree \(pkg(\/starts\.log)?\)/),
      });
    // Only the run in turn wrote into the cell's own tree: every server of both phases, one after another.
    expect(readFileSync(join(cell.dir, 'pkg/starts.log'), 'utf8').trim().split('\n').length).toBeGreaterThan(1);
  }, 240_000);
});
