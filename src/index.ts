// The public API: what a matrix.config.ts imports, and the types of results.json.
export { defineConfig } from './config/define.js';
export type * from './config/define.js';
export type * from './results/types.js';
export { RESULTS_SCHEMA_VERSION } from './results/types.js';
