// Optional fields of a JSON record: an unset one is left out, never kept as a key holding `undefined`,
// so a result has the same keys whichever way it was built (results.json, toStrictEqual, `'k' in r`).

import type { PhaseResult } from '../results/types.js';

/** `fields` without the keys whose value is `undefined`: `...defined({ step })` for `...(step !== undefined ? { step } : {})`. */
export function defined<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Partial<Record<keyof T, unknown>> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) if (fields[key] !== undefined) out[key] = fields[key];
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** `result` with `extra` added to its details (its own phase's fields, or those any phase may carry). */
export function withDetails<R extends PhaseResult>(result: R, extra: NonNullable<R['details']>): R {
  return { ...result, details: { ...result.details, ...extra } };
}
