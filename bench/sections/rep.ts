// One repetition's raw measurements (what bench/results/*.json keeps) and the shape of a target line.
import type { Floor } from '../measure/floor.js';
import type { Run } from '../measure/harness.js';
import type { Yardsticks } from './yardsticks.js';

export interface Rep {
  rep: number;
  parallel?: Run;
  serial?: Run;
  floors?: Floor[];
  floorSerialWallMs?: number;
  floorParallelWallMs?: number;
  /** CPU-s of the floor's work, one at a time (npm installs and servers). */
  floorSerialCpuMs?: number;
  scale?: Record<number, Run>;
  axes?: Run;
  axesAlone?: Run;
  axesBase?: Run;
  axesCold?: Run;
  yardsticks?: Yardsticks;
  flood?: Flood;
}

/** The flood fixture's run (bench/sections/flood.ts): the driver's peak memory under a server that floods stdout. */
export interface Flood {
  driverPeakRssMb: number | undefined;
  wallMs: number;
  /** The stdio phase's verdict: failed, by the noise on stdout (the fixture's finding). */
  stdio: string | undefined;
}

/** Every section's rows and targets in the bench's full runs (sections 1–4 only with the project's own config). */
export type Full = Required<Pick<Rep, 'parallel' | 'serial' | 'floors' | 'floorSerialWallMs' | 'floorParallelWallMs' | 'scale'>> & Rep;

export interface Target {
  name: string;
  value: unknown;
  limit?: number;
  shown: string;
  /** null: shown, not judged. */
  pass: boolean | null;
}
