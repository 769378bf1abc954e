// Sections 1–4 as text tables: what `npm run bench` prints (the JSON in bench/results/ keeps the rest).
import { renderLifecycle } from '../measure/lifecycle.js';
import type { Main } from '../sections/summary.js';
import { ms, pct, ratio, sec, table } from '../measure/util.js';

export function renderMain(s: Main): string[] {
  const c1 = s.concurrency;
  const parts = [
    table(
      '1. matrix: default concurrency vs --concurrency 1',
      ['run', 'wall', 'ratio', 'CPU', 'CPU floor'],
      [
        [`concurrency ${c1.default}`, sec(c1.defaultWallMs), ratio(c1.ratio), sec(c1.defaultCpuMs), floorOf(c1.defaultCpuMs, s.cores)],
        ['concurrency 1', sec(c1.serialWallMs), '1.00x', sec(c1.serialCpuMs), floorOf(c1.serialCpuMs, s.cores)],
        [`floor, ${c1.default} workers`, sec(c1.floorParallelWallMs), ratio(c1.floorRatio), '', ''],
        ['floor, one at a time', sec(c1.floorSerialWallMs), '1.00x', sec(c1.floorSerialCpuMs), floorOf(c1.floorSerialCpuMs, s.cores)],
      ],
    ),
  ];
  const cpuX = c1.serialCpuMs !== undefined && c1.floorSerialCpuMs ? c1.serialCpuMs / c1.floorSerialCpuMs : undefined;
  parts.push(
    `   CPU: the concurrency-1 run takes ${ratio(cpuX)} the floor's CPU-s (every check of the harness, the conformance phase included)`,
  );
  const a = s.allCells;
  parts.push(
    table(
      "2. per cell (concurrency-1 run; the conformance phase, the lifecycle sub-checks and http's spec sub-checks aside: the floor makes none of them) vs floor (bare npm install + minimal client)",
      [
        'cell',
        'harness',
        'floor',
        'ratio',
        'overhead',
        'install',
        'floor inst',
        'stdio',
        'min stdio',
        'stdio x',
        'http',
        'min http',
        'bind',
        'min bind',
        'leaks',
        'min exits',
        'conformance',
        'lifecycle',
        'spec checks',
      ],
      s.cells
        .map((c) => [
          `${c.id} (${c.version})`,
          ms(c.cellMs),
          ms(c.floorMs),
          ratio(c.ratio),
          pct(c.overheadShare),
          ms(c.installMs),
          ms(c.floorInstallMs),
          ms(c.stdioMs),
          ms(c.minStdioMs),
          ratio(c.stdioRatio),
          ms(c.httpMs),
          ms(c.minHttpMs),
          ms(c.bindMs),
          ms(c.minBindMs),
          ms(c.leaksMs),
          ms(c.minExitMs),
          ms(c.conformanceMs),
          ms(c.lifecycleMs),
          ms(c.specChecksMs),
        ])
        .concat([
          [
            'all cells (sum)',
            ms(a.cellMs),
            ms(a.floorMs),
            ratio(a.ratio),
            pct(a.overheadShare),
            '',
            '',
            ms(a.stdioMs),
            ms(a.minStdioMs),
            ratio(a.stdioRatio),
          ].concat([ms(a.httpMs), ms(a.minHttpMs), '', '', '', '', ms(a.conformanceMs), ms(a.lifecycleMs), ms(a.specChecksMs)]),
        ]),
    ),
  );
  const timed = a.lifecycleMs !== undefined;
  parts.push(
    [
      timed
        ? `   stdio and http are shown without their lifecycle sub-checks (the 'lifecycle' column: both phases'; the table below).`
        : '   these results predate the driver timing the lifecycle sub-checks: stdio and http include them.',
      `   stdio against the minimal client's spawn → ping + its exit after EOF (the phase waits for the exit): ${ratio(a.stdioWithExitRatio)}; http against spawn → DELETE: ${ratio(a.httpRatio)}`,
      ...(timed
        ? [
            `   counted as overhead, the lifecycle sub-checks would make it ${pct(a.overheadShareWithLifecycle)}, and stdio ${ratio(a.stdioWithLifecycleRatio)} the minimal client`,
          ]
        : []),
      a.specChecksMs !== undefined
        ? `   http is shown without its spec sub-checks too (the 'spec checks' column, as the driver timed them); counted as overhead they would make it ${pct(a.overheadShareWithSpecChecks)} (worst cell ${pct(Math.max(...s.cells.map((c) => c.overheadShareWithSpecChecks ?? 0)))}), http ${ratio(a.httpWithSpecChecksRatio)} the minimal client; with the lifecycle sub-checks as well, ${pct(a.overheadShareWithBoth)}`
        : "   these results predate the driver timing http's spec sub-checks: http and the overhead include them.",
    ].join('\n'),
  );
  if (s.lifecycle.length) parts.push(renderLifecycle(s.lifecycle, s.cells.length));
  parts.push(
    table(
      '   overhead in ms per phase (harness − floor)',
      ['cell', 'install', 'verify', 'stdio', 'http', 'bind', 'leaks', 'other*', 'install share'],
      s.cells.map((c) => {
        const o = c.overheadMs;
        return [c.id, o.install, o.verify, o.stdio, o.http, o.bind, o.leaks, o.other, pct(c.installShare)];
      }),
    ),
  );
  parts.push("   * other = cell time outside install and phases; split below by the harness's marks (src/util/marks.ts) and the spawn log");
  parts.push(
    table(
      "   install, split (inside the cell's install time; the floor's is one bare npm install)",
      [
        'cell',
        'install',
        'dir create',
        'resolve',
        'copy tree',
        'hash check',
        'waited after resolve',
        'npm install',
        'store tree',
        'floor inst',
      ],
      s.cells.map((c) => {
        const st = c.steps;
        return [
          c.id,
          ms(c.installMs),
          ms(st?.dirMs),
          ms(st?.resolveMs),
          ms(st?.copyMs),
          ms(st?.checkMs),
          ms(st?.copyWaitMs),
          ms(st?.npmMs),
          ms(st?.storeMs),
          ms(c.floorInstallMs),
        ];
      }),
    ),
  );
  parts.push(
    table(
      '   other, split',
      [
        'cell',
        'install end→fork',
        'verify+ship',
        'suite wait',
        'spec+fork',
        'driver outside phases',
        'after driver',
        'recheck',
        'removal (off path)',
        'floor rm -rf',
        'phases not passed',
      ],
      s.cells.map((c) => {
        const st = c.steps;
        return [
          c.id,
          ms(c.installToDriverMs),
          ms(st?.verifyShipMs),
          ms(st?.suiteWaitMs),
          ms(st?.toForkMs),
          ms(c.driverOutsidePhasesMs),
          ms(st?.afterDriverMs),
          ms(st?.recheckMs),
          ms(st?.removalMs),
          ms(c.floorRmMs),
          c.notPassed.length ? c.notPassed.join(',') : 'none',
        ];
      }),
    ),
  );
  parts.push(
    table(
      `3. scaling at concurrency ${c1.default}`,
      ['cells', 'wall', 'per cell', 'CPU', 'CPU floor', 'cell median', 'install median', 'own RSS', 'tree RSS', 'failed'],
      s.scale.map((x) => [
        x.cells,
        sec(x.wallMs),
        ms(x.perCellMs),
        sec(x.cpuMs),
        floorOf(x.cpuMs, s.cores),
        ms(x.cellDurationMs),
        ms(x.installMs),
        `${x.ownMaxRssMb} MB`,
        x.treeMaxRssMb ? `${x.treeMaxRssMb} MB` : '–',
        x.failedCells,
      ]),
    ),
  );
  const oc = s.orchestrator;
  const counts = Object.entries(oc.spawnCounts ?? {})
    .map(([k, v]) => `${k} ×${v}`)
    .join(', ');
  const tree = s.memory.treeMaxRssMb ? `, ${s.memory.treeMaxRssMb} MB (largest process in its tree, /usr/bin/time -v)` : '';
  const at16 = oc.averageBusyCellsAt16 !== undefined ? ` (16 cells: ${oc.averageBusyCellsAt16})` : '';
  parts.push(
    [
      `\n4. orchestrator: peak RSS ${s.memory.ownMaxRssMb} MB (own)${tree}`,
      `   spawns per run: ${counts}`,
      `   first spawn at ${ms(oc.beforeFirstSpawnMs)}, pack ${ms(oc.packMs)} from ${ms(oc.packStartMs)}, first install at ${ms(oc.firstInstallMs)}; pack before installs: ${oc.packBeforeInstalls}`,
      `   installs started while another cell ran its phases: ${oc.installsDuringOtherPhases.join(', ')}; average busy cells ${oc.averageBusyCells}${at16}`,
      `   install end → driver start ${ms(oc.installEndToDriverStartMs)}; after the last cell ${ms(oc.afterLastCellMs)}`,
      `   at concurrency 1: npm install is ${pct(s.shares.serialInstallShare)} of the wall time; the floor is ${pct(s.shares.serialFloorShare)}`,
      `\n   1-minute load average around the counted runs: median ${s.load1.median}, max ${s.load1.max} (other work on the machine shows up here)`,
    ].join('\n'),
  );
  return parts;
}

/** The least wall time the CPU allows: CPU-s over the cores. */
export const floorOf = (cpuMs: number | undefined, cores: number): string => (cpuMs === undefined ? '–' : sec(cpuMs / cores));
