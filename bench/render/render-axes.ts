// Section 5 as text: the crossed runs against the cells alone, with each run's CPU floor.
import type { Axes } from '../sections/axes.js';
import type { Installs } from '../measure/spawns.js';
import { floorOf } from './render-main.js';
import { CORES, ms, ratio, round, sec, table } from '../measure/util.js';

const inst = (x: Installs | undefined): string =>
  x
    ? `server ${x.server}${x.resolutions ? ` (+${x.resolutions} resolutions)` : ''}, client ${x.client}${x.suite ? ` (+suite ${x.suite})` : ''}, runtime ${x.runtime}${x.other ? `, other ${x.other}` : ''}; driver runs ${x.drivers}`
    : '–';

export function renderAxes(ax: Axes): string {
  const extra = (
    [
      [`${ax.variants} variants, client cache off`, ax.cold],
      [`${ax.variants} variants, baseline`, ax.base],
    ] as const
  ).flatMap(([label, x]) =>
    x
      ? [
          [
            label,
            sec(x.wallMs),
            ratio(x.ratio),
            sec(x.cpuMs),
            floorOf(x.cpuMs, CORES),
            ms(round(x.wallMs! / ax.variants)),
            ms(x.variantMedianMs),
            inst(x.installs),
            `${x.ownMaxRssMb} MB`,
          ],
        ]
      : [],
  );
  const base = ax.base
    ? ` (baseline ${ax.base.ratios.join(', ')}; ${ax.base.verdicts.join('/')}; bind median ${ms(ax.base.bindMedianMs)}; driver runs ${sec(ax.base.work?.driverMs)}, each ${ms(ax.base.work?.driver)})`
    : '';
  const works = [
    ['alone', ax.aloneWork] as const,
    ['axes', ax.work] as const,
    ...(ax.cold ? [['axes, client cache off', ax.cold.work] as const] : []),
  ];
  const list = (r: Record<string, number | undefined>): string =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ');
  return [
    table(
      `5. axes: ${ax.cells} cells × clients ${ax.clients.join(', ')} × Node ${ax.node.join(', ')} = ${ax.variants} variants vs the ${ax.cells} cells alone`,
      ['run', 'wall', 'ratio', 'CPU', 'CPU floor', 'per variant', 'variant median', 'installs (per run)', 'own RSS'],
      [
        [
          `${ax.cells} cells alone`,
          sec(ax.aloneWallMs),
          '1.00x',
          sec(ax.aloneCpuMs),
          floorOf(ax.aloneCpuMs, CORES),
          ms(ax.perCellAloneMs),
          ms(ax.cellAloneMedianMs),
        ].concat([inst(ax.aloneInstalls), `${ax.aloneOwnMaxRssMb} MB`]),
        [
          `${ax.variants} variants`,
          sec(ax.axesWallMs),
          ratio(ax.ratio),
          sec(ax.axesCpuMs),
          floorOf(ax.axesCpuMs, CORES),
          ms(ax.perVariantMs),
          ms(ax.variantMedianMs),
        ].concat([inst(ax.installs), `${ax.ownMaxRssMb} MB`]),
        ...extra,
      ],
    ),
    `   CPU ratio (variants / cells alone): ${ratio(ax.cpuRatio)}`,
    `   per repetition: ratio ${ax.ratios.join(', ')}${ax.cold ? ` (client cache off ${ax.cold.ratios.join(', ')})` : ''}${base}; cells alone ${ax.aloneWalls.map(sec).join(', ')}`,
    `   warm-up (cold runtime and client caches, not counted): ${sec(ax.warmupWallMs)}; installs: ${inst(ax.warmupInstalls)}${ax.warmupInstalls?.runtimeMs ? ` (runtime downloads ${ms(ax.warmupInstalls.runtimeMs)})` : ''}`,
    `   variant median by client: ${list(ax.byClient)}; by Node: ${list(ax.byNode)}`,
    `   variant phase medians: ${list(ax.phases)}${ax.treeMaxRssMb ? `; largest process in the tree ${ax.treeMaxRssMb} MB` : ''}`,
    ...works.map(
      ([k, w]) =>
        `   work (${k}): server installs ${sec(w?.serverMs)} (each ${ms(w?.server)}), client installs ${sec(w?.clientMs)} (each ${ms(w?.client)}), driver runs ${sec(w?.driverMs)} (each ${ms(w?.driver)}); first server install at ${ms(w?.firstServer)}, client install at ${ms(w?.firstClient)}, driver at ${ms(w?.firstDriver)}; last process ends at ${ms(w?.lastEnd)}`,
    ),
    `   1-minute load average around these runs: median ${ax.load1.median}, max ${ax.load1.max}`,
  ].join('\n');
}
