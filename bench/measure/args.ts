// The bench's flags (`npm run bench -- --help`): which sections run, how often, on what config.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Options {
  reps: number;
  quick: boolean;
  scale: number[];
  config: string;
  warmup: boolean;
  keepTmp: boolean;
  axes: boolean;
  axesOnly: boolean;
  axesClients: string[];
  axesNode: (number | string)[];
  axesBaseline?: string;
  /** Section 6: the naive loop, the cold and warm runs, the edited single cell. */
  yardsticks: boolean;
  /** Section 6 alone. */
  yardsticksOnly: boolean;
  naiveLoop: string;
  from?: string;
}

const HELP =
  'node bench/.build/run.js [--reps N] [--quick] [--scale 4,8,16] [--config FILE] [--no-warmup] [--keep-tmp] ' +
  '[--axes-only | --no-axes] [--axes-clients a,b] [--axes-node 20,22] [--axes-baseline DIR] [--no-yardsticks | --yardsticks-only] [--naive-loop FILE] [--from FILE]';

/**
 * `../shared/bench/naive-loop/naive-loop.sh` beside the checkout; from a git worktree (`.git` a file naming
 * `<main>/.git/worktrees/<name>`), beside the main checkout when it is not beside the worktree.
 */
export function defaultNaiveLoop(root: string): string {
  const beside = (dir: string) => path.resolve(dir, '..', 'shared', 'bench', 'naive-loop', 'naive-loop.sh');
  if (existsSync(beside(root))) return beside(root);
  let gitdir = '';
  try {
    gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(path.join(root, '.git'), 'utf8'))?.[1]?.trim() ?? '';
  } catch {
    // not a worktree
  }
  const main = gitdir ? path.resolve(root, gitdir, '..', '..', '..') : undefined;
  return main && existsSync(beside(main)) ? beside(main) : beside(root);
}

export function parseArgs(argv: string[], root: string): Options | 'help' {
  const o: Options = {
    reps: 3,
    quick: false,
    scale: [],
    config: 'matrix.config.ts',
    warmup: true,
    keepTmp: false,
    axes: true,
    axesOnly: false,
    axesClients: ['latest@1', 'latest@2'],
    axesNode: [20, 22],
    yardsticks: true,
    yardsticksOnly: false,
    // The team's shared yardstick, beside the checkout (issue 22): ../shared/bench/naive-loop/.
    naiveLoop: defaultNaiveLoop(root),
  };
  let scale: number[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const val = (): string => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') o.quick = true;
    else if (a.startsWith('--reps')) o.reps = Number(val());
    else if (a.startsWith('--scale')) scale = val().split(',').map(Number);
    else if (a.startsWith('--config')) o.config = val();
    else if (a === '--no-warmup') o.warmup = false;
    else if (a.startsWith('--from')) o.from = val();
    else if (a === '--keep-tmp') o.keepTmp = true;
    else if (a === '--axes-only') o.axesOnly = true;
    else if (a === '--no-axes') o.axes = false;
    else if (a === '--no-yardsticks') o.yardsticks = false;
    else if (a === '--yardsticks-only') o.yardsticksOnly = true;
    else if (a.startsWith('--naive-loop')) o.naiveLoop = path.resolve(val());
    else if (a.startsWith('--axes-clients')) o.axesClients = val().split(',');
    else if (a.startsWith('--axes-baseline')) o.axesBaseline = path.resolve(val());
    else if (a.startsWith('--axes-node'))
      o.axesNode = val()
        .split(',')
        .map((v) => (/^\d+$/.test(v) ? Number(v) : v));
    else if (a === '--help' || a === '-h') return 'help';
    else throw new Error(`unknown flag ${a}`);
  }
  if (o.quick && !argv.some((a) => a.startsWith('--reps'))) o.reps = 1;
  o.scale = scale ?? (o.quick ? [4, 8] : [4, 8, 16]);
  if (!Number.isInteger(o.reps) || o.reps < 1) throw new Error('--reps must be a positive integer');
  if (o.axesOnly && !o.axes) throw new Error('--axes-only and --no-axes exclude each other');
  if (o.yardsticksOnly && (o.axesOnly || !o.yardsticks)) throw new Error('--yardsticks-only excludes --axes-only and --no-yardsticks');
  if (o.yardsticksOnly) o.axes = false;
  if (o.scale.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--scale takes cell counts, e.g. 4,8,16');
  return o;
}

export { HELP };
